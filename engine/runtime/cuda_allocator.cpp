#include "engine/runtime/cuda_allocator.h"

#include "engine/runtime/cuda_driver.h"
#include "engine/tensor/tensor.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace kiln::runtime {

namespace {
constexpr size_t kMinBlock = 512;       // PyTorch's kMinBlockSize
constexpr size_t kSmallSize = 1 << 20;  // requests up to 1 MiB are "small"
constexpr size_t kLargeStep = 2 << 20;  // larger ones round to 2 MiB

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  return buf;
}
std::string mib(uint64_t bytes) {
  char buf[32];
  if (bytes >= (uint64_t{1} << 30)) return gib(bytes);
  std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}
}  // namespace

size_t CudaCachingAllocator::roundSize(size_t bytes) {
  if (bytes <= kSmallSize) return std::max(kMinBlock, (bytes + kMinBlock - 1) / kMinBlock * kMinBlock);
  return (bytes + kLargeStep - 1) / kLargeStep * kLargeStep;
}

void* CudaCachingAllocator::allocate(size_t bytes) {
  if (bytes == 0) return nullptr;  // as PyTorch: an empty tensor holds no block
  const size_t size = roundSize(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t ptr = 0;
  size_t got = size;
  // A cached block of this class, or a larger one not more than twice the size (blocks are not
  // split, so a much larger one would waste most of itself): from the capturing pool's own free
  // blocks first, then from the shared cache.
  auto take = [&](std::multimap<size_t, uint64_t>& from) {
    auto it = from.lower_bound(size);
    if (it == from.end() || it->first > 2 * size) return false;
    got = it->first;
    ptr = it->second;
    from.erase(it);
    ++stats_.cacheHits;
    return true;
  };
  if (!(capturing_ && take(pools_[capturing_])) && !take(free_)) {
    ptr = driver_.alloc(size);
    if (!ptr && !free_.empty()) {  // out of memory: give the cache back and try once more
      for (auto& [s, p] : free_) {
        driver_.free(p);
        stats_.reserved -= s;
      }
      free_.clear();
      ptr = driver_.alloc(size);
    }
    if (!ptr) {
      size_t freeBytes = 0, total = 0;
      driver_.memGetInfo(&freeBytes, &total);
      throw tensor::OutOfMemory("CUDA out of memory. Tried to allocate " + mib(size) + ". GPU 0 has a total capacity of " + gib(total) +
                                " of which " + mib(freeBytes) + " is free. Of the allocated memory " + mib(stats_.allocated) +
                                " is allocated by Kiln, and " + mib(stats_.reserved - stats_.allocated) +
                                " is reserved by Kiln but unallocated.");
    }
    ++stats_.driverAllocations;
    stats_.reserved += size;
    stats_.maxReserved = std::max(stats_.maxReserved, stats_.reserved);
  }
  live_[ptr] = got;
  if (capturing_) poolOf_[ptr] = capturing_;
  ++stats_.allocations;
  stats_.allocated += got;
  stats_.maxAllocated = std::max(stats_.maxAllocated, stats_.allocated);
  return reinterpret_cast<void*>(ptr);
}

void CudaCachingAllocator::release(void* p, size_t) {
  if (!p) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(reinterpret_cast<uint64_t>(p));
  if (it == live_.end()) return;
  stats_.allocated -= it->second;
  // cached: work on the one stream stays ordered before reuse
  if (auto pool = poolOf_.find(it->first); pool != poolOf_.end()) pools_[pool->second].emplace(it->second, it->first);
  else free_.emplace(it->second, it->first);
  live_.erase(it);
}

int CudaCachingAllocator::beginPool() {
  std::lock_guard<std::mutex> lock(mu_);
  capturing_ = nextPool_++;
  pools_[capturing_];
  return capturing_;
}

void CudaCachingAllocator::endPool() {
  std::lock_guard<std::mutex> lock(mu_);
  capturing_ = 0;
}

void CudaCachingAllocator::retirePool(int pool) {
  std::lock_guard<std::mutex> lock(mu_);
  if (capturing_ == pool) capturing_ = 0;
  auto it = pools_.find(pool);
  if (it == pools_.end()) return;
  for (const auto& [size, ptr] : it->second) free_.emplace(size, ptr), poolOf_.erase(ptr);
  pools_.erase(it);
  for (auto b = poolOf_.begin(); b != poolOf_.end();) b = b->second == pool ? poolOf_.erase(b) : std::next(b);
}

void CudaCachingAllocator::copyToDevice(void* dst, const void* src, size_t bytes) {
  driver_.copyToDevice(reinterpret_cast<uint64_t>(dst), src, bytes);
}
void CudaCachingAllocator::copyToHost(void* dst, const void* src, size_t bytes) {
  driver_.copyToHost(dst, reinterpret_cast<uint64_t>(src), bytes);
}
void CudaCachingAllocator::copyOnDevice(void* dst, const void* src, size_t bytes) {
  driver_.copyOnDevice(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), bytes);
}

CudaMemoryStats CudaCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void CudaCachingAllocator::emptyCache() {
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.empty()) return;
  driver_.synchronize();  // a cached block may still be read by queued work
  for (auto& [s, p] : free_) {
    driver_.free(p);
    stats_.reserved -= s;
  }
  free_.clear();
}

void CudaCachingAllocator::resetPeakStats() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.maxAllocated = stats_.allocated;
  stats_.maxReserved = stats_.reserved;
}

}  // namespace kiln::runtime
