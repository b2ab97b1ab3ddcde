// A small persistent thread pool for splitting a kernel's outer loop. Threads are started
// once; parallelFor blocks until every chunk ran.
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
  // Runs fn(begin, end) over [0, n) in about size() contiguous chunks, the caller taking one.
  void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void work();
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_, done_;
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t n_ = 0, chunk_ = 0, nextChunk_ = 0, chunks_ = 0, finished_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace kiln::runtime
