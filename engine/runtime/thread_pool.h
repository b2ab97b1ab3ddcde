// A small persistent thread pool for splitting a kernel's outer loop. Threads are started
// once; parallelFor blocks until every chunk ran. Each chunk runs in slices (1/kSlices of it,
// growing while they are fast) with a stop check between them (engine/tensor/stop.h), so Ctrl-C
// or a time limit stops a long compiled kernel within about 1/kSlices of one thread's share.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln::runtime {

class ThreadPool {
 public:
  static ThreadPool& instance();
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  // Runs fn(begin, end) over [0, n) in contiguous ranges (about size() chunks of kSlices slices
  // each), the caller taking one chunk. Throws tensor::Interrupted, once every thread has stopped,
  // where a stop was requested; the ranges not yet run are then skipped. While the pool runs
  // another caller's job (a second thread, or fn itself splitting a loop) the call runs on its
  // own thread instead: the pool holds one job at a time.
  void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn);
  // fn(begin, end) over [lo, hi) on this thread in kSlices slices, checking for a stop before
  // each; returns false (and skips the rest) where one was requested.
  static bool runSliced(int64_t lo, int64_t hi, const std::function<void(int64_t, int64_t)>& fn);
  static constexpr int64_t kSlices = 64;
  // Makes this pool the eager kernels' runner (engine/tensor/parallel.h).
  static void installForEagerKernels();

 private:
  void work();
  std::vector<std::thread> workers_;
  std::mutex busy_;  // held by the caller whose job runs
  std::mutex mu_;
  std::condition_variable cv_, done_;
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t n_ = 0, chunk_ = 0, nextChunk_ = 0, chunks_ = 0, finished_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  bool interrupted_ = false;  // a chunk of the current job saw a stop request (under mu_)
};

}  // namespace kiln::runtime
