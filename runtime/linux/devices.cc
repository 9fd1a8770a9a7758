#include "runtime/linux/devices.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/strings.h"
#include "config/oci/names.h"
#include "runtime/linux/path_in_root.h"

namespace vigil::runtime {
namespace {

config::Device CharDevice(const char* path, int major, int minor) {
  return config::Device{.type = "c",
                        .path = path,
                        .major = major,
                        .minor = minor,
                        .file_mode = 0666,
                        .uid = 0,
                        .gid = 0};
}

std::string_view Parent(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

Result<void> CreateDevice(int root_fd, const config::Device& device, bool bind) {
  std::string where = StrCat("create device ", device.path);
  if (bind) {
    ASSIGN_OR_RETURN(UniqueFd target, TouchInRoot(root_fd, device.path));
    if (::mount(device.path.c_str(), FdPath(target.Get()).c_str(), nullptr, MS_BIND, nullptr) !=
        0) {
      return FailErrno(StrCat(where, ": bind-mount the host's node"));
    }
    return {};
  }
  ASSIGN_OR_RETURN(UniqueFd parent, MkdirAllInRoot(root_fd, Parent(device.path)));
  std::string name(device.path.substr(device.path.rfind('/') + 1));
  const config::NamedValue* type = config::FindName(config::kDeviceTypeNames, device.type);
  mode_t mode = static_cast<mode_t>(type->value) | (device.file_mode.value_or(0666) & 07777);
  ::unlinkat(parent.Get(), name.c_str(), 0);  // the image may ship a placeholder
  dev_t dev = makedev(static_cast<unsigned>(device.major), static_cast<unsigned>(device.minor));
  if (::mknodat(parent.Get(), name.c_str(), mode, dev) != 0) return FailErrno(where);
  // mknod honours the umask; set the mode the config asked for.
  if (::fchmodat(parent.Get(), name.c_str(), mode & 07777, 0) != 0) {
    return FailErrno(StrCat(where, ": chmod"));
  }
  if (::fchownat(parent.Get(), name.c_str(), device.uid.value_or(0), device.gid.value_or(0),
                 AT_SYMLINK_NOFOLLOW) != 0) {
    return FailErrno(StrCat(where, ": chown"));
  }
  return {};
}

}  // namespace

std::vector<config::Device> DevicesFor(const std::vector<config::Device>& extra) {
  std::vector<config::Device> devices = {
      CharDevice("/dev/null", 1, 3),    CharDevice("/dev/zero", 1, 5),
      CharDevice("/dev/full", 1, 7),    CharDevice("/dev/random", 1, 8),
      CharDevice("/dev/urandom", 1, 9), CharDevice("/dev/tty", 5, 0),
  };
  for (const config::Device& device : extra) {
    std::erase_if(devices, [&](const config::Device& d) { return d.path == device.path; });
    devices.push_back(device);
  }
  return devices;
}

Result<void> CreateDevices(int root_fd, const std::vector<config::Device>& devices, bool bind) {
  for (const config::Device& device : devices) {
    RETURN_IF_ERROR(CreateDevice(root_fd, device, bind));
  }
  return {};
}

Result<void> CreateDevSymlinks(int root_fd) {
  static constexpr std::pair<const char*, const char*> kLinks[] = {
      {"/proc/self/fd", "fd"},       {"/proc/self/fd/0", "stdin"}, {"/proc/self/fd/1", "stdout"},
      {"/proc/self/fd/2", "stderr"}, {"pts/ptmx", "ptmx"},
  };
  ASSIGN_OR_RETURN(UniqueFd dev, MkdirAllInRoot(root_fd, "/dev"));
  for (const auto& [target, name] : kLinks) {
    if (std::string_view(name) == "ptmx") ::unlinkat(dev.Get(), name, 0);
    if (::symlinkat(target, dev.Get(), name) != 0 && errno != EEXIST) {
      return FailErrno(StrCat("symlink /dev/", name));
    }
  }
  return {};
}

}  // namespace vigil::runtime
