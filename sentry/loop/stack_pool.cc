#include "sentry/loop/stack_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

namespace vigil::sentry {
namespace {

std::size_t PageSize() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

}  // namespace

Result<StackPool> StackPool::Create(std::size_t chunk, std::size_t size, std::size_t most) {
  const std::size_t page = PageSize();
  StackPool pool(chunk, (size + page - 1) / page * page, std::max(chunk, most));
  RETURN_IF_ERROR(pool.Grow());
  return pool;
}

StackPool::StackPool(std::size_t chunk, std::size_t size, std::size_t most)
    : chunk_(chunk), stack_size_(size), most_(most) {}

Result<void> StackPool::Grow() {
  const std::size_t page = PageSize();
  const std::size_t count = std::min(chunk_, most_ - total_);
  if (count == 0) return Fail("every fiber stack is in use");
  const std::size_t stride = stack_size_ + page;  // the guard page sits below each stack
  const std::size_t mapping_size = stride * count;
  void* base = ::mmap(nullptr, mapping_size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return FailErrno("map the fiber stacks");
  for (std::size_t i = 0; i < count; ++i) {
    if (::mprotect(static_cast<char*>(base) + i * stride, page, PROT_NONE) != 0) {
      ::munmap(base, mapping_size);
      return FailErrno("protect a fiber stack's guard page");
    }
  }
  mappings_.push_back({base, mapping_size});
  free_.reserve(total_ + count);
  for (std::size_t i = count; i > 0; --i) {
    free_.push_back(static_cast<char*>(base) + (i - 1) * stride + stride);
  }
  total_ += count;
  return {};
}

StackPool::StackPool(StackPool&& other) noexcept
    : mappings_(std::move(other.mappings_)),
      chunk_(other.chunk_),
      stack_size_(other.stack_size_),
      most_(other.most_),
      total_(other.total_),
      free_(std::move(other.free_)) {
  other.mappings_.clear();
}

StackPool::~StackPool() {
  for (const Mapping& mapping : mappings_) ::munmap(mapping.base, mapping.size);
}

bool StackPool::empty() { return free_.empty() && (total_ >= most_ || !Grow()); }

boost::context::stack_context StackPool::allocate() {
  boost::context::stack_context stack;
  stack.sp = free_.back();
  stack.size = stack_size_;
  free_.pop_back();
  return stack;
}

void StackPool::deallocate(boost::context::stack_context& stack) { free_.push_back(stack.sp); }

}  // namespace vigil::sentry
