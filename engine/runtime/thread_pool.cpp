#include "engine/runtime/thread_pool.h"

#include "engine/tensor/parallel.h"
#include "engine/tensor/stop.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace kiln::runtime {

namespace {

// OMP_NUM_THREADS where set (as PyTorch's intra-op pool, oneDNN's OpenMP and OpenBLAS read it),
// else the CPUs this process may run on (taskset, a cgroup cpuset). Not
// std::thread::hardware_concurrency(): glibc counts the machine's CPUs there, so under
// `taskset -c 0` on 16 cores the pool had 16 threads taking turns on one CPU.
unsigned defaultThreads() {
  if (const char* e = std::getenv("OMP_NUM_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(e, &end, 10);
    if (end != e && *end == '\0' && v > 0 && v <= 4096) return static_cast<unsigned>(v);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

ThreadPool& ThreadPool::instance() {
  static ThreadPool pool(defaultThreads());
  return pool;
}

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::work() {
  uint64_t seen = 0;
  while (true) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return stop_ || (generation_ != seen && nextChunk_ < chunks_); });
    if (stop_) return;
    seen = generation_;
    while (nextChunk_ < chunks_) {
      int64_t c = nextChunk_++;
      const auto* job = job_;
      int64_t b = c * chunk_, e = std::min(n_, b + chunk_);
      l.unlock();
      const bool ran = runSliced(b, e, *job);
      l.lock();
      if (!ran) interrupted_ = true;
      if (++finished_ == chunks_) done_.notify_all();
    }
  }
}

bool ThreadPool::runSliced(int64_t lo, int64_t hi, const std::function<void(int64_t, int64_t)>& fn) {
  // Slices start at 1/kSlices of the range; one that ran in under a millisecond makes the next
  // four times longer, so a fast kernel is a few calls and a slow one is checked every slice.
  int64_t step = std::max<int64_t>(1, (hi - lo + kSlices - 1) / kSlices);
  auto t0 = std::chrono::steady_clock::now();
  for (int64_t b = lo; b < hi;) {
    if (tensor::stopRequested()) return false;
    const int64_t e = b + std::min(step, hi - b);
    fn(b, e);
    b = e;
    const auto t1 = std::chrono::steady_clock::now();
    if (t1 - t0 < std::chrono::milliseconds(1) && step < (int64_t{1} << 60)) step *= 4;
    t0 = t1;
  }
  return true;
}

void ThreadPool::parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
  if (workers_.empty() || n == 1 || !busy.owns_lock()) {
    if (!runSliced(0, n, fn)) tensor::throwStopped();
    return;
  }
  std::unique_lock<std::mutex> l(mu_);
  job_ = &fn;
  n_ = n;
  chunks_ = std::min<int64_t>(n, size());
  chunk_ = (n + chunks_ - 1) / chunks_;
  chunks_ = (n + chunk_ - 1) / chunk_;
  nextChunk_ = 0;
  finished_ = 0;
  interrupted_ = false;
  ++generation_;
  cv_.notify_all();
  while (nextChunk_ < chunks_) {
    int64_t c = nextChunk_++;
    int64_t b = c * chunk_, e = std::min(n_, b + chunk_);
    l.unlock();
    const bool ran = runSliced(b, e, fn);
    l.lock();
    if (!ran) interrupted_ = true;
    ++finished_;
  }
  done_.wait(l, [&] { return finished_ == chunks_; });
  job_ = nullptr;
  if (interrupted_) {
    l.unlock();
    tensor::throwStopped();
  }
}

void ThreadPool::installForEagerKernels() {
  tensor::setParallelRunner([](int64_t n, const std::function<void(int64_t, int64_t)>& fn) { instance().parallelFor(n, fn); });
}

}  // namespace kiln::runtime
