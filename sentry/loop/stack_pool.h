// Fiber stacks (docs/design.md, rule 9), allocated in chunks: the first
// chunk up front, so that a handler never waits on the allocator in the
// common case, and another (one mmap) only when every stack is in use, up
// to a fixed number. A workload whose threads hold many calls waiting (a
// FIFO's other end, a full socket) cannot so exhaust the stacks its other
// threads' calls need; the bound keeps the supervisor's share, which the
// container's memory cgroup is charged for, finite.
#pragma once

#include <boost/context/stack_context.hpp>
#include <cstddef>
#include <vector>

#include "base/result.h"

namespace vigil::sentry {

class StackPool {
 public:
  // Stacks of `size` bytes each (rounded up to pages), each with an
  // inaccessible guard page below it, so an overflow faults instead of
  // corrupting its neighbour: `chunk` of them now, and more in chunks of
  // that many as they run out, `most` in all.
  static Result<StackPool> Create(std::size_t chunk, std::size_t size, std::size_t most);

  StackPool(StackPool&& other) noexcept;
  StackPool& operator=(StackPool&&) = delete;
  ~StackPool();

  // Whether no stack can be had: all `most` are in use (or the last chunk
  // could not be mapped).
  bool empty();
  // How many stacks are in use.
  std::size_t in_use() const { return total_ - free_.size(); }

  // Boost.Context's StackAllocator concept; allocate() needs !empty().
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& stack);

 private:
  StackPool(std::size_t chunk, std::size_t size, std::size_t most);
  // Maps one more chunk (at most the stacks left to `most_`).
  Result<void> Grow();

  struct Mapping {
    void* base;
    std::size_t size;
  };
  std::vector<Mapping> mappings_;
  std::size_t chunk_ = 0;
  std::size_t stack_size_ = 0;
  std::size_t most_ = 0;
  std::size_t total_ = 0;    // stacks mapped so far
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
