// Field tables for config.json "linux.seccomp".
#include "config/oci/codec.h"
#include "config/oci/sections.h"

namespace vigil::config {
namespace {

constexpr Field<SeccompArg> kSeccompArgFields[] = {
    Required<&SeccompArg::index>("index"),
    Required<&SeccompArg::value>("value"),
    Bind<&SeccompArg::value_two>("valueTwo"),
    Required<&SeccompArg::op>("op"),
};

constexpr Field<SeccompSyscall> kSeccompSyscallFields[] = {
    Required<&SeccompSyscall::names>("names"),
    Required<&SeccompSyscall::action>("action"),
    Bind<&SeccompSyscall::errno_ret>("errnoRet"),
    Bind<&SeccompSyscall::args>("args"),
};

constexpr Field<Seccomp> kSeccompFields[] = {
    Required<&Seccomp::default_action>("defaultAction"),
    Bind<&Seccomp::default_errno_ret>("defaultErrnoRet"),
    BindName<&Seccomp::architectures, kSeccompArchNames>("architectures"),
    BindName<&Seccomp::flags, kSeccompFlagNames>("flags"),
    Bind<&Seccomp::listener_path>("listenerPath"),
    Bind<&Seccomp::listener_metadata>("listenerMetadata"),
    Bind<&Seccomp::syscalls>("syscalls"),
};

}  // namespace

VIGIL_DEFINE_SECTION(SeccompArg, kSeccompArgFields)
VIGIL_DEFINE_SECTION(SeccompSyscall, kSeccompSyscallFields)
VIGIL_DEFINE_SECTION(Seccomp, kSeccompFields)

}  // namespace vigil::config
