// The files a workload thread names things from: its descriptors, its root
// and working directory, its executable, and where they are in the
// container, the bases for resolving its paths (docs/design.md, rule 4).
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil::sentry {

class TraceeFiles {
 public:
  virtual ~TraceeFiles() = default;

  // A duplicate of the thread's descriptor `fd` (pidfd_getfd): the same
  // open file, to act on as the workload asked. EBADF if it has none.
  virtual Result<UniqueFd> Descriptor(int fd) = 0;

  // The thread's root and working directory (O_PATH). The root is shared
  // with what the sentry keeps about the thread (it changes only by
  // chroot), the working directory opened for each call.
  virtual Result<SharedFd> Root() = 0;
  virtual Result<UniqueFd> WorkingDirectory() = 0;

  // The file the thread's process executes (O_PATH), where /proc/self/exe
  // leads: the sentry follows that link for the workload, whose own walk
  // it never lets follow a magic link.
  virtual Result<UniqueFd> Executable() = 0;

  // The thread's namespace of `type` ("pid", "net", ...; O_PATH), where
  // /proc/self/ns/TYPE leads: followed the same way.
  virtual Result<UniqueFd> Namespace(std::string_view type) = 0;

  // Where the container's root is, as the sentry sees it (what PathInRoot
  // strips): the policy names files as the container does, whatever root
  // the thread chrooted to.
  virtual Result<std::string> RootPath() = 0;

  // Whether the thread's root is not the container's (it chrooted): its
  // paths then name files from its own root.
  virtual Result<bool> Chrooted() = 0;

  // Where the thread's working directory and its descriptor `fd` are, as
  // paths from its root (what it would see in /proc/self/cwd, fd/N): the
  // bases of its relative paths, walked from Root().
  virtual Result<std::string> WorkingDirectoryPath() = 0;
  virtual Result<std::string> DescriptorPath(int fd) = 0;
};

}  // namespace vigil::sentry
