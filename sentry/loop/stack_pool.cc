#include "sentry/loop/stack_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <utility>

namespace vigil::sentry {

Result<StackPool> StackPool::Create(std::size_t count, std::size_t size) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  size = (size + page - 1) / page * page;
  const std::size_t stride = size + page;  // the guard page sits below each stack
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
  return StackPool(base, mapping_size, stride, size, count);
}

StackPool::StackPool(void* base, std::size_t mapping_size, std::size_t stride, std::size_t size,
                     std::size_t count)
    : base_(base), mapping_size_(mapping_size), stack_size_(size) {
  free_.reserve(count);
  for (std::size_t i = count; i > 0; --i) {
    free_.push_back(static_cast<char*>(base) + (i - 1) * stride + stride);
  }
}

StackPool::StackPool(StackPool&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      mapping_size_(other.mapping_size_),
      stack_size_(other.stack_size_),
      free_(std::move(other.free_)) {}

StackPool::~StackPool() {
  if (base_ != nullptr) ::munmap(base_, mapping_size_);
}

boost::context::stack_context StackPool::allocate() {
  boost::context::stack_context stack;
  stack.sp = free_.back();
  stack.size = stack_size_;
  free_.pop_back();
  return stack;
}

void StackPool::deallocate(boost::context::stack_context& stack) { free_.push_back(stack.sp); }

}  // namespace vigil::sentry
