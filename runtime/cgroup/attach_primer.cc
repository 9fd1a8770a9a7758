#include "runtime/cgroup/attach_primer.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "base/strings.h"
#include "runtime/cgroup/hierarchy.h"

namespace vigil::runtime::cgroup {

AttachPrimer AttachPrimer::Start() {
  AttachPrimer primer;
  // Found before the thread starts, so that the thread itself only opens,
  // writes and closes.
  Result<std::vector<Hierarchy>> hierarchies = DiscoverHierarchies();
  if (!hierarchies || hierarchies->empty()) return primer;
  // Any hierarchy takes the same lock: the first is as good as another.
  const Hierarchy& first = hierarchies->front();
  std::string procs =
      StrCat(first.mount_point, first.own_path == "/" ? "" : first.own_path, "/cgroup.procs");
  primer.thread_ = std::thread([procs = std::move(procs)] {
    const int fd = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    // "0": the writing process, into the cgroup that holds it.
    (void)!::write(fd, "0", 1);
    ::close(fd);
  });
  return primer;
}

AttachPrimer::~AttachPrimer() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace vigil::runtime::cgroup
