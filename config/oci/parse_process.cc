// Field tables for config.json "process".
#include "config/oci/codec.h"
#include "config/oci/sections.h"

namespace vigil::config {
namespace {

constexpr Field<ConsoleSize> kConsoleSizeFields[] = {
    Required<&ConsoleSize::height>("height"),
    Required<&ConsoleSize::width>("width"),
};

constexpr Field<User> kUserFields[] = {
    Bind<&User::uid>("uid"),           Bind<&User::gid>("gid"),
    Bind<&User::umask>("umask"),       Bind<&User::additional_gids>("additionalGids"),
    Bind<&User::username>("username"),
};

constexpr Field<Capabilities> kCapabilitiesFields[] = {
    BindName<&Capabilities::bounding, kCapabilityNames>("bounding"),
    BindName<&Capabilities::effective, kCapabilityNames>("effective"),
    BindName<&Capabilities::inheritable, kCapabilityNames>("inheritable"),
    BindName<&Capabilities::permitted, kCapabilityNames>("permitted"),
    BindName<&Capabilities::ambient, kCapabilityNames>("ambient"),
};

constexpr Field<Rlimit> kRlimitFields[] = {
    BindName<&Rlimit::type, kRlimitNames, /*kRequired=*/true>("type"),
    Required<&Rlimit::hard>("hard"),
    Required<&Rlimit::soft>("soft"),
};

constexpr Field<Scheduler> kSchedulerFields[] = {
    BindName<&Scheduler::policy, kSchedulerPolicyNames, /*kRequired=*/true>("policy"),
    Bind<&Scheduler::nice>("nice"),
    Bind<&Scheduler::priority>("priority"),
    BindName<&Scheduler::flags, kSchedulerFlagNames>("flags"),
    Bind<&Scheduler::runtime>("runtime"),
    Bind<&Scheduler::deadline>("deadline"),
    Bind<&Scheduler::period>("period"),
};

constexpr Field<IoPriority> kIoPriorityFields[] = {
    BindName<&IoPriority::io_class, kIoPriorityClassNames, /*kRequired=*/true>("class"),
    Bind<&IoPriority::priority>("priority"),
};

constexpr Field<ExecCpuAffinity> kExecCpuAffinityFields[] = {
    Bind<&ExecCpuAffinity::initial>("initial"),
    Bind<&ExecCpuAffinity::final>("final"),
};

constexpr Field<Process> kProcessFields[] = {
    Bind<&Process::terminal>("terminal"),
    Bind<&Process::console_size>("consoleSize"),
    Bind<&Process::user>("user"),
    Bind<&Process::args>("args"),
    Bind<&Process::command_line>("commandLine"),
    Bind<&Process::env>("env"),
    Required<&Process::cwd>("cwd"),
    Bind<&Process::capabilities>("capabilities"),
    Bind<&Process::rlimits>("rlimits"),
    Bind<&Process::no_new_privileges>("noNewPrivileges"),
    Bind<&Process::apparmor_profile>("apparmorProfile"),
    Bind<&Process::selinux_label>("selinuxLabel"),
    Bind<&Process::oom_score_adj>("oomScoreAdj"),
    Bind<&Process::scheduler>("scheduler"),
    Bind<&Process::io_priority>("ioPriority"),
    Bind<&Process::exec_cpu_affinity>("execCPUAffinity"),
};

}  // namespace

VIGIL_DEFINE_SECTION(ConsoleSize, kConsoleSizeFields)
VIGIL_DEFINE_SECTION(User, kUserFields)
VIGIL_DEFINE_SECTION(Capabilities, kCapabilitiesFields)
VIGIL_DEFINE_SECTION(Rlimit, kRlimitFields)
VIGIL_DEFINE_SECTION(Scheduler, kSchedulerFields)
VIGIL_DEFINE_SECTION(IoPriority, kIoPriorityFields)
VIGIL_DEFINE_SECTION(ExecCpuAffinity, kExecCpuAffinityFields)
VIGIL_DEFINE_SECTION(Process, kProcessFields)

}  // namespace vigil::config
