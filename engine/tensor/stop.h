// Stopping long native work. A stop request (Ctrl-C, `kiln run --timeout`, SIGTERM, the memory
// watchdog: engine/python/interrupt.h) sets this flag as well as the interpreter's own request;
// the interpreter checks its request between statements, and native loops that can run for
// seconds (forEachIndex's rows, a big GEMM's row blocks, the thread pool's chunks of a compiled
// kernel) check the flag between chunks and throw tensor::Interrupted (a TorchError), which the
// Python bindings raise as the pending KeyboardInterrupt / TimeoutError. Checking costs one
// relaxed atomic load per chunk, never one per element.
#pragma once

#include <atomic>
#include <cstdint>

namespace kiln::tensor {

inline std::atomic<bool> stopFlag{false};

// Async-signal-safe (a lock-free atomic store).
inline void setStopRequested(bool on) { stopFlag.store(on, std::memory_order_relaxed); }
inline bool stopRequested() { return stopFlag.load(std::memory_order_relaxed); }
// Throws tensor::Interrupted (engine/tensor/tensor.h).
[[noreturn]] void throwStopped();
inline void checkStop() {
  if (stopRequested()) throwStopped();
}

// Elements a loop runs between two checks: small enough that a stop lands within milliseconds,
// large enough that the check is free.
constexpr int64_t kStopChunk = int64_t{1} << 16;

}  // namespace kiln::tensor
