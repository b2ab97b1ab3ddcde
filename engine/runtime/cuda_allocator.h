// Device memory for CUDA tensors, cached like PyTorch's CUDACachingAllocator: requests round up
// to size classes (512 bytes up to 1 MiB, 2 MiB steps above), a freed block goes back to its
// pool and the next request of its class reuses it without a driver call. One stream, so a
// block freed by the host may be handed out again at once: every use of it is ordered on that
// stream. Only cuMemAlloc memory, never managed memory. The figures are torch.cuda's.
#pragma once

#include "engine/tensor/device.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

namespace kiln::runtime {

class CudaDriver;

struct CudaMemoryStats {
  uint64_t allocated = 0, maxAllocated = 0;  // bytes of live blocks (rounded to their class)
  uint64_t reserved = 0, maxReserved = 0;    // bytes taken from the driver and not given back
  uint64_t allocations = 0, driverAllocations = 0, cacheHits = 0;
};

class CudaCachingAllocator : public tensor::DeviceBackend {
 public:
  explicit CudaCachingAllocator(CudaDriver& driver) : driver_(driver) {}
  static size_t roundSize(size_t bytes);  // the size class of a request

  void* allocate(size_t bytes) override;
  void release(void* ptr, size_t bytes) override;
  void copyToDevice(void* dst, const void* src, size_t bytes) override;
  void copyToHost(void* dst, const void* src, size_t bytes) override;
  void copyOnDevice(void* dst, const void* src, size_t bytes) override;

  // Private pools, for CUDA graphs (cuda_graph_replay.h). A replayed graph writes the addresses
  // it was recorded with, so while a pool captures, every allocation is one of its blocks, and a
  // block of a live pool goes back to that pool when freed, never to the shared cache where
  // another tensor could be handed it. `retirePool` (the graph is gone) returns the pool's free
  // blocks to the shared cache; its blocks still held go there when released.
  int beginPool();  // a new pool, capturing from now (one at a time)
  void endPool();   // allocations come from the shared cache again
  void retirePool(int pool);

  CudaMemoryStats stats() const;
  void emptyCache();      // gives every cached (free) block back to the driver
  void resetPeakStats();  // max_* back to the current figures

 private:
  CudaDriver& driver_;
  mutable std::mutex mu_;
  std::multimap<size_t, uint64_t> free_;       // cached blocks by size
  std::unordered_map<uint64_t, size_t> live_;  // handed-out blocks and their sizes
  int capturing_ = 0, nextPool_ = 1;
  std::unordered_map<uint64_t, int> poolOf_;              // blocks of live private pools
  std::map<int, std::multimap<size_t, uint64_t>> pools_;  // their free blocks, by pool
  CudaMemoryStats stats_;
};

}  // namespace kiln::runtime
