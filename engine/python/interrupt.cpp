#include "engine/python/interrupt.h"

#include "engine/tensor/stop.h"

#include <atomic>
#include <csignal>

namespace kiln::py {

namespace {
std::atomic<int> pending{0};
std::atomic<int> last{0};
struct sigaction oldInt, oldTerm;

// Native loops see stop requests through tensor::stopRequested (engine/tensor/stop.h): set while
// a request that stops the script is pending, not for FlushOutput.
bool stops(int what) { return what != 0 && what != static_cast<int>(Interrupt::FlushOutput); }
void syncStopFlag() { tensor::setStopRequested(stops(pending.load())); }

void onSignal(int sig) {
  if (sig == SIGINT && pending.load() == static_cast<int>(Interrupt::KeyboardInterrupt)) {
    // The first Ctrl-C was not taken (native code running): the second one kills.
    sigaction(SIGINT, &oldInt, nullptr);
    raise(SIGINT);
    return;
  }
  requestInterrupt(sig == SIGINT ? Interrupt::KeyboardInterrupt : Interrupt::Terminate);
}
}  // namespace

void requestFlushOutput() {
  int expected = 0;
  pending.compare_exchange_strong(expected, static_cast<int>(Interrupt::FlushOutput));
}

bool takeFlushOutput() {
  int expected = static_cast<int>(Interrupt::FlushOutput);
  return pending.compare_exchange_strong(expected, 0);
}

void requestInterrupt(Interrupt what) {
  // A time limit or termination is never downgraded to a (catchable) KeyboardInterrupt.
  int cur = pending.load();
  if (cur == static_cast<int>(Interrupt::Timeout) || cur == static_cast<int>(Interrupt::Terminate)) return;
  pending.store(static_cast<int>(what));
  last.store(static_cast<int>(what));
  if (stops(static_cast<int>(what))) tensor::setStopRequested(true);
}

Interrupt pendingInterrupt() { return static_cast<Interrupt>(pending.load(std::memory_order_relaxed)); }

void clearInterrupt() {
  pending.store(0);
  last.store(0);
  tensor::setStopRequested(false);
}

Interrupt lastInterrupt() { return static_cast<Interrupt>(last.load()); }

void takeKeyboardInterrupt() {
  int expected = static_cast<int>(Interrupt::KeyboardInterrupt);
  pending.compare_exchange_strong(expected, 0);
  syncStopFlag();
}

void takeOutOfMemory() {
  int expected = static_cast<int>(Interrupt::OutOfMemory);
  pending.compare_exchange_strong(expected, 0);
  syncStopFlag();
}

SignalScope::SignalScope() {
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &oldInt);
  sigaction(SIGTERM, &sa, &oldTerm);
}

SignalScope::~SignalScope() {
  sigaction(SIGINT, &oldInt, nullptr);
  sigaction(SIGTERM, &oldTerm, nullptr);
}

}  // namespace kiln::py
