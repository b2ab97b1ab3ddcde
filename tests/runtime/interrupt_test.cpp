// Stopping long native work (engine/tensor/stop.h, issue 13): a stop request (Ctrl-C, a time
// limit) reaches a loop that runs for seconds between two of its chunks, and the op throws
// tensor::Interrupted within a bounded time instead of running to its end.
#include "engine/ops/op_table.h"
#include "engine/runtime/thread_pool.h"
#include "engine/tensor/stop.h"
#include "engine/tensor/tensor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace kiln::tensor {
namespace {

using Clock = std::chrono::steady_clock;

// Requests a stop `afterMs` after construction; clears the request when destroyed.
class StopLater {
 public:
  explicit StopLater(int afterMs)
      : thread_([afterMs] {
          std::this_thread::sleep_for(std::chrono::milliseconds(afterMs));
          setStopRequested(true);
        }) {}
  ~StopLater() {
    thread_.join();
    setStopRequested(false);
  }

 private:
  std::thread thread_;
};

// Runs f, which must throw Interrupted; returns the seconds it took.
double secondsUntilInterrupted(const std::function<void()>& f) {
  auto t0 = Clock::now();
  EXPECT_THROW(f(), Interrupted);
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

TEST(Interrupt, ElementLoopStopsBetweenChunks) {
  // 2^40 elements of a broadcast view: hours of work, one row (no row boundary to check at).
  const Shape sizes{int64_t{1} << 40}, strides{0};
  StopLater stop(50);
  std::atomic<int64_t> seen{0};
  double s = secondsUntilInterrupted(
      [&] { forEachIndex<1>(sizes, {&strides}, [&](const std::array<int64_t, 1>&) { seen.fetch_add(1, std::memory_order_relaxed); }); });
  EXPECT_LT(s, 2.0);
  EXPECT_GT(seen.load(), 0);
}

TEST(Interrupt, HugeMatmulStops) {
  // 4096^3 multiply-adds: many seconds on this machine's cores; stopped within a row block.
  Tensor a = Tensor::full({4096, 4096}, 1.0, DType::Float32);
  ops::EagerDispatcher d;
  StopLater stop(100);
  double s = secondsUntilInterrupted([&] { d.call("aten.mm.default", {ops::Val::of(a), ops::Val::of(a)}); });
  EXPECT_LT(s, 5.0);
}

TEST(Interrupt, ThreadPoolStopsEveryChunkAndThrowsOnce) {
  auto& pool = runtime::ThreadPool::instance();
  std::atomic<int64_t> done{0};
  // 2^20 iterations of ~20 us each (about 20 s of work): every thread stops within a slice
  // (1/64 of its chunk, a fraction of a second even on a loaded machine).
  auto slow = [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      auto until = Clock::now() + std::chrono::microseconds(20);
      while (Clock::now() < until) {}
      done.fetch_add(1, std::memory_order_relaxed);
    }
  };
  {
    StopLater stop(50);
    double s = secondsUntilInterrupted([&] { pool.parallelFor(int64_t{1} << 20, slow); });
    EXPECT_LT(s, 5.0);
  }
  EXPECT_LT(done.load(), int64_t{1} << 20);
  // With the request cleared the pool runs every index again.
  std::atomic<int64_t> sum{0};
  pool.parallelFor(1000, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) sum.fetch_add(i, std::memory_order_relaxed);
  });
  EXPECT_EQ(sum.load(), 999 * 1000 / 2);
}

TEST(Interrupt, NothingIsStoppedWithoutARequest) {
  ops::EagerDispatcher d;
  Tensor a = Tensor::full({64, 64}, 1.0, DType::Float32);
  Tensor c = d.call("aten.mm.default", {ops::Val::of(a), ops::Val::of(a)}).t;
  EXPECT_EQ(c.loadAt(0), 64.0);
}

}  // namespace
}  // namespace kiln::tensor
