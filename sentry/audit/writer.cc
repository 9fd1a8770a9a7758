#include "sentry/audit/writer.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <new>
#include <utility>

#include "base/log.h"
#include "base/strings.h"
#include "base/time.h"

namespace vigil::sentry::audit {
namespace {

// Encoding needs little stack: yajl's state and a few frames of ours.
constexpr std::size_t kThreadStack = 128 * 1024;

}  // namespace

void AuditWriter::SlotsDeleter::operator()(Slot* slots) const {
  std::destroy_n(slots, constructed);
  std::allocator<Slot>().deallocate(slots, allocated);
}

AuditWriter::AuditWriter(AuditLog log, std::chrono::milliseconds period, std::size_t slots,
                         UniqueFd wake)
    : log_(std::move(log)),
      period_(period),
      slot_count_(slots),
      slots_(std::allocator<Slot>().allocate(slots), SlotsDeleter{.allocated = slots}),
      wake_(std::move(wake)) {}

Result<std::unique_ptr<AuditWriter>> AuditWriter::Start(AuditLog log,
                                                        std::chrono::milliseconds period,
                                                        std::size_t slots) {
  if (slots < 2) return Fail("audit writer: a ring needs at least 2 slots");
  UniqueFd wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake) return FailErrno("audit writer: eventfd");
  std::unique_ptr<AuditWriter> writer(
      new AuditWriter(std::move(log), period, slots, std::move(wake)));
  pthread_attr_t attributes;
  ::pthread_attr_init(&attributes);
  ::pthread_attr_setstacksize(&attributes, kThreadStack);
  // Every signal blocked on the thread from its first instruction: the
  // supervisor reads its signals from a signalfd, and one delivered to this
  // thread instead would be lost to it.
  sigset_t all;
  sigset_t before;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &before);
  const int created = ::pthread_create(&writer->thread_, &attributes, &ThreadMain, writer.get());
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  ::pthread_attr_destroy(&attributes);
  if (created != 0) return FailErrno(created, "audit writer: pthread_create");
  writer->running_ = true;
  // Until the thread runs its own code, glibc is still setting it up with
  // system calls of its own (rseq) that the supervisor's confinement, which
  // may come next, would refuse (glibc then aborts the process).
  writer->started_.wait(false, std::memory_order_acquire);
  return writer;
}

AuditWriter::~AuditWriter() {
  if (!running_) return;
  HandOverDrops();
  stopping_.store(true, std::memory_order_release);
  Wake();
  ::pthread_join(thread_, nullptr);
}

Record* AuditWriter::Claim() {
  const std::uint64_t head = head_.load(std::memory_order_relaxed);
  if (head - tail_.load(std::memory_order_acquire) == slot_count_) {
    if (unattached_drops_ == 0) first_unattached_drop_ = Rfc3339NanoNow();
    ++unattached_drops_;
    ++dropped_;
    return nullptr;
  }
  Slot* slot = &slots_[head % slot_count_];
  // First time round the slot is raw storage. Only then: a slot given back
  // by Abandon is claimed again at the same head, still constructed, and
  // constructing it anew would leak what its strings and args hold.
  std::size_t& constructed = slots_.get_deleter().constructed;
  if (head == constructed && constructed < slot_count_) {
    ::new (slot) Slot();
    constructed = head + 1;
  }
  slot->dropped_before = std::exchange(unattached_drops_, 0);
  if (slot->dropped_before != 0) slot->first_drop_time = first_unattached_drop_;
  return &slot->record;
}

void AuditWriter::Commit() {
  const std::uint64_t head = head_.load(std::memory_order_relaxed) + 1;
  head_.store(head, std::memory_order_release);
  // Half full: the writer should not wait for its period. Once per
  // crossing, so a busy loop makes one eventfd write per half ring.
  if (head - tail_.load(std::memory_order_acquire) == slot_count_ / 2) Wake();
}

void AuditWriter::Abandon() {
  Slot& slot = slots_[head_.load(std::memory_order_relaxed) % slot_count_];
  // Drops Claim attached to this slot wait for the next record again.
  if (slot.dropped_before != 0) {
    unattached_drops_ = std::exchange(slot.dropped_before, 0);
    first_unattached_drop_ = slot.first_drop_time;
  }
}

void AuditWriter::Flush() {
  HandOverDrops();
  const std::uint64_t request = flush_requests_.fetch_add(1, std::memory_order_acq_rel) + 1;
  Wake();
  for (std::uint64_t done = flushes_done_.load(std::memory_order_acquire); done < request;
       done = flushes_done_.load(std::memory_order_acquire)) {
    flushes_done_.wait(done, std::memory_order_acquire);
  }
}

void AuditWriter::HandOverDrops() {
  if (unattached_drops_ == 0) return;
  const std::lock_guard<std::mutex> lock(handed_over_mutex_);
  if (handed_over_drops_ == 0) handed_over_time_ = first_unattached_drop_;
  handed_over_drops_ += std::exchange(unattached_drops_, 0);
}

void AuditWriter::Wake() const {
  const std::uint64_t one = 1;
  // EAGAIN: the counter is at its maximum, so the writer is woken anyway.
  (void)!::write(wake_.Get(), &one, sizeof one);
}

void* AuditWriter::ThreadMain(void* self) {
  auto* writer = static_cast<AuditWriter*>(self);
  writer->started_.store(true, std::memory_order_release);
  writer->started_.notify_one();
  writer->Run();
  return nullptr;
}

void AuditWriter::Run() {
  for (;;) {
    pollfd wake{.fd = wake_.Get(), .events = POLLIN, .revents = 0};
    ::poll(&wake, 1, static_cast<int>(period_.count()));
    std::uint64_t kicks = 0;
    (void)!::read(wake_.Get(), &kicks, sizeof kicks);
    // Read before the drain: every record committed before a Flush that
    // asked for this request is then among those drained.
    const bool stopping = stopping_.load(std::memory_order_acquire);
    const std::uint64_t request = flush_requests_.load(std::memory_order_acquire);
    Drain();
    flushes_done_.store(request, std::memory_order_release);
    flushes_done_.notify_all();
    if (stopping) return;
  }
}

void AuditWriter::Drain() {
  const std::uint64_t head = head_.load(std::memory_order_acquire);
  for (std::uint64_t tail = tail_.load(std::memory_order_relaxed); tail != head; ++tail) {
    Slot& slot = slots_[tail % slot_count_];
    if (slot.dropped_before != 0) log_.AppendDropped(slot.dropped_before, slot.first_drop_time);
    log_.Append(slot.record);
    // Only now may the producer fill the slot again.
    tail_.store(tail + 1, std::memory_order_release);
  }
  {
    const std::lock_guard<std::mutex> lock(handed_over_mutex_);
    if (handed_over_drops_ != 0) {
      log_.AppendDropped(std::exchange(handed_over_drops_, 0), handed_over_time_);
    }
  }
  if (Result<void> flushed = log_.Flush(); !flushed) {
    log::Warning(StrCat("audit log ", log_.path(), ": ", flushed.error().message));
  }
}

}  // namespace vigil::sentry::audit
