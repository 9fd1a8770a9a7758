// Fiber stacks allocated once, up front (docs/design.md, rule 9): a handler
// never waits on the allocator, and the pool's size bounds how many
// syscalls can be in flight at once.
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <vector>

#include "base/result.h"

namespace vigil::sentry {

class StackPool {
 public:
  // `count` stacks of `size` bytes each (rounded up to pages), each with an
  // inaccessible guard page below it, so an overflow faults instead of
  // corrupting its neighbour.
  static Result<StackPool> Create(std::size_t count, std::size_t size);

  StackPool(StackPool&& other) noexcept;
  StackPool& operator=(StackPool&&) = delete;
  ~StackPool();

  bool empty() const { return free_.empty(); }
  std::size_t available() const { return free_.size(); }

  // Boost.Context's StackAllocator concept; allocate() needs !empty().
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& stack);

 private:
  StackPool(void* base, std::size_t mapping_size, std::size_t stride, std::size_t size,
            std::size_t count);

  void* base_ = nullptr;
  std::size_t mapping_size_ = 0;
  std::size_t stack_size_ = 0;
  std::vector<void*> free_;  // the top (highest address) of each free stack
};

// A StackAllocator that borrows from a pool: boost::context::fiber copies its
// allocator, so it holds a pointer.
struct PoolAllocator {
  StackPool* pool;
  boost::context::stack_context allocate() { return pool->allocate(); }
  void deallocate(boost::context::stack_context& stack) { pool->deallocate(stack); }
};

}  // namespace vigil::sentry
