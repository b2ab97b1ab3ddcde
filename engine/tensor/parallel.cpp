#include "engine/tensor/parallel.h"

#include "engine/tensor/stop.h"

#include <algorithm>
#include <atomic>

namespace kiln::tensor {

namespace {
std::atomic<ParallelRunner> gRunner{nullptr};
}

void setParallelRunner(ParallelRunner runner) { gRunner.store(runner, std::memory_order_release); }

void parallelRanges(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  ParallelRunner runner = gRunner.load(std::memory_order_acquire);
  if (runner && n >= 2 * kParallelGrain) {
    runner(n, fn);
    return;
  }
  for (int64_t b = 0; b < n; b += kStopChunk) {
    checkStop();
    fn(b, std::min(n, b + kStopChunk));
  }
}

void parallelBlocks(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  ParallelRunner runner = gRunner.load(std::memory_order_acquire);
  if (runner && n > 1) {
    runner(n, fn);
    return;
  }
  for (int64_t b = 0; b < n; ++b) {
    checkStop();
    fn(b, b + 1);
  }
}

}  // namespace kiln::tensor
