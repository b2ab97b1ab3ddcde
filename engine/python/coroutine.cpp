#include "engine/python/coroutine.h"

#include "engine/python/stack_guard.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>
#include <new>
#include <stdexcept>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define KILN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_ASAN 1
#endif
#endif
#ifdef KILN_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace kiln::py {

namespace {

thread_local Coroutine* tCurrent = nullptr;

// Stacks of ended coroutines, kept for the next ones (mapping 16 MiB is cheap, but not free).
struct StackPool {
  std::mutex mu;
  std::vector<void*> free;
  ~StackPool() {
    for (void* s : free) munmap(s, Coroutine::kStackBytes);
  }
  void* take() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!free.empty()) {
        void* s = free.back();
        free.pop_back();
        return s;
      }
    }
    void* s = mmap(nullptr, Coroutine::kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (s == MAP_FAILED) throw std::bad_alloc();
    // The lowest page traps an overflow instead of running into another mapping.
    mprotect(s, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_NONE);
    return s;
  }
  void give(void* s) {
    std::lock_guard<std::mutex> lock(mu);
    if (free.size() < 64) free.push_back(s);
    else munmap(s, Coroutine::kStackBytes);
  }
};

StackPool& pool() {
  static StackPool* p = new StackPool();  // outlives coroutines destroyed at exit
  return *p;
}

}  // namespace

struct Coroutine::Impl {
  ucontext_t self{}, caller{};
  void* stack = nullptr;
#ifdef KILN_ASAN
  void* fakeStack = nullptr;
  const void* callerBottom = nullptr;
  size_t callerSize = 0;
#endif
};

Coroutine::Coroutine(std::function<void()> body) : impl_(std::make_unique<Impl>()), body_(std::move(body)) {}

Coroutine::~Coroutine() {
  if (impl_->stack) pool().give(impl_->stack);
}

Coroutine* Coroutine::current() { return tCurrent; }

void Coroutine::entry(unsigned lo, unsigned hi) {
  auto* self = reinterpret_cast<Coroutine*>((static_cast<uintptr_t>(hi) << 32) | static_cast<uintptr_t>(lo));
#ifdef KILN_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &self->impl_->callerBottom, &self->impl_->callerSize);
#endif
  try {
    self->body_();
  } catch (...) { self->error_ = std::current_exception(); }
  self->done_ = true;
  self->body_ = nullptr;  // release what the body captured while the stack still exists
#ifdef KILN_ASAN
  __sanitizer_start_switch_fiber(nullptr, self->impl_->callerBottom, self->impl_->callerSize);
#endif
  swapcontext(&self->impl_->self, &self->impl_->caller);
}

void Coroutine::resume() {
  if (done_) throw std::logic_error("resuming a finished coroutine");
  if (running_) throw std::logic_error("resuming a running coroutine");
  if (!started_) {
    impl_->stack = pool().take();
    getcontext(&impl_->self);
    impl_->self.uc_stack.ss_sp = impl_->stack;
    impl_->self.uc_stack.ss_size = kStackBytes;
    impl_->self.uc_link = nullptr;
    auto p = reinterpret_cast<uintptr_t>(this);
    makecontext(&impl_->self, reinterpret_cast<void (*)()>(&Coroutine::entry), 2, static_cast<unsigned>(p & 0xffffffffu),
                static_cast<unsigned>(p >> 32));
    started_ = true;
  }
  running_ = true;
  outer_ = tCurrent;
  tCurrent = this;
  // The interpreter's stack check (stack_guard.h) measures the stack running now: this one's
  // while the body runs, the resumer's again once it suspends or ends.
  if (tStackFloor == 0) tStackFloor = computeStackFloor();
  const uintptr_t outerFloor = tStackFloor;
  tStackFloor = reinterpret_cast<uintptr_t>(impl_->stack) + kStackHeadroom;
#ifdef KILN_ASAN
  __sanitizer_start_switch_fiber(&impl_->fakeStack, impl_->stack, kStackBytes);
#endif
  swapcontext(&impl_->caller, &impl_->self);
#ifdef KILN_ASAN
  __sanitizer_finish_switch_fiber(impl_->fakeStack, nullptr, nullptr);
#endif
  tStackFloor = outerFloor;
  tCurrent = outer_;
  running_ = false;
  if (done_ && error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void Coroutine::suspend() {
#ifdef KILN_ASAN
  __sanitizer_start_switch_fiber(&impl_->fakeStack, impl_->callerBottom, impl_->callerSize);
#endif
  swapcontext(&impl_->self, &impl_->caller);
#ifdef KILN_ASAN
  __sanitizer_finish_switch_fiber(impl_->fakeStack, &impl_->callerBottom, &impl_->callerSize);
#endif
}

}  // namespace kiln::py
