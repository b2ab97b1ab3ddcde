// Kernel IR -> CUDA C++ source, for NVRTC. Each kernel gets one of three GPU schedules
// (cudaSchedule(), a function of the kernel alone, so the source and its launch agree):
//
// * Thread: one thread per point of the parallel loops (flattened, the last loop fastest); a
//   point's reduction nests (if any: rows shorter than a warp) run in that thread, in the order
//   kir::place() gives (the placement the LLVM backend uses).
//
//     extern "C" __global__ void kiln_<name>(const float* b0_x, ..., long long points) {
//       long long t = blockIdx.x * blockDim.x + threadIdx.x;  if (t >= points) return;
//       long long i1 = t % 16; t /= 16;  long long i0 = t;       // the parallel loops
//       <gap 0> for (r0 ...) { <nest 0> } <gap 1> ...
//
//   A pointwise kernel whose fastest loop steps through float32 buffers (cudaVectorWidth() 4)
//   gives each thread four consecutive points: one float4 load per such input before an unrolled
//   loop over the four, one float4 store per such output after it, when every such address is
//   16-byte aligned (a view's offset may not be; then the loop loads and stores each element).
//
// * Block: one block per point (a row of a softmax, layer_norm, sum over the last dim): the
//   block's threads stride over the flattened reduction loops, each nest's accumulators are
//   combined with warp shuffles and one shared-memory step (every thread gets the result, which
//   the next nest and gap use); a gap's stores are made by thread 0.
//   A row of at most 32 steps of the block (cudaRowSteps(): 16,384 elements at 512 threads) is
//   held in registers: each nest's loop is a fixed, unrolled number of steps over the same
//   elements per thread, and an element that several nests read (softmax's input, layer_norm's)
//   or one nest writes and a later one reads (softmax's exp) is loaded once into a per-thread
//   cache `kiln_c<N>[kiln_j]`; only an element's last store reaches memory. Where the steps come
//   in fours over one reduction loop, a thread owns four consecutive elements per four steps and
//   the accesses that reach memory are float4s (16-byte aligned buffers; else element by element).
//   Rows longer than that stride over the row once per nest, reading it again (from L2 at best).
// * Split: few points with long rows and one nest (a sum of a whole tensor): a grid of
//   gridDim.x blocks per point (blockIdx.y), each reducing a slice into a partial in
//   `kiln_scratch`; the last block to finish (a counter per point, reset by it for the next
//   launch) combines the partials and runs the gap after the nest. Two extra parameters follow
//   `points`: `unsigned long long* kiln_scratch` (CudaLaunch::scratchSlots) and
//   `unsigned int* kiln_counters` (one per point, zero before the first launch).
//
// Scalar semantics follow engine/codegen/README.md: NaN-propagating max/min, floor division and
// modulo, truncating float -> int casts, bool bytes 0/1. Float sums are combined in another
// order than the CPU's (a tree per block), so they agree within rounding.
//
// Plain text generation: nothing here needs the CUDA toolkit.
#pragma once

#include "engine/kir/kernel_ir.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::codegen::cuda {

// The entry point's name for kernel `k` (extern "C", so not mangled).
std::string cudaSymbol(const kir::Kernel& k);

// How many threads a launch needs: the product of the parallel loop extents (1 with none).
// `sizes`: the size symbols' values (s<N> at N) for a kernel over size expressions.
int64_t cudaPoints(const kir::Kernel& k, const std::vector<int64_t>& sizes = {});

enum class CudaSchedule { Thread, Block, Split };
CudaSchedule cudaSchedule(const kir::Kernel& k);
const char* scheduleName(CudaSchedule s);  // "thread", "block", "split"

// Elements per thread of a Thread-schedule kernel: 4 where the fastest parallel loop's extent is a
// multiple of 4 and some float32 buffer is read or written at consecutive elements along it (a
// 128-bit load or store per thread, when the addresses are 16-byte aligned at run time, else
// four scalar accesses), else 1. KILN_CUDA_VECTOR=0 makes it 1 everywhere (to compare).
int cudaVectorWidth(const kir::Kernel& k);

// A Block-schedule kernel whose row (the reduction loops' static extent) takes at most 16 steps
// of a 1,024-thread block, 32 of a smaller one: the steps (elements per thread), else 0. KILN_CUDA_ROW_REGISTERS=0 makes it 0
// everywhere (to compare).
int cudaRowSteps(const kir::Kernel& k);

// A launch of one kernel: what the runtime passes to cuLaunchKernel, recorded with the kernel.
struct CudaLaunch {
  CudaSchedule schedule = CudaSchedule::Thread;
  int vector = 1;      // elements per thread (cudaVectorWidth)
  int64_t points = 0;  // the kernel's `points` argument
  unsigned gridX = 1, gridY = 1, block = 1;
  size_t scratchSlots = 0;  // Split: 8-byte partials (accumulators x points x gridX)
  size_t counters = 0;      // Split: one per point
  int rowSteps = 0;         // Block: the row's elements per thread held in registers (cudaRowSteps)
  std::string str() const;  // "grid 528x1, block 512, split"
};
// `smCount`: the device's multiprocessors (sizes the split grid). Points may be 0 (no launch).
CudaLaunch cudaLaunch(const kir::Kernel& k, const std::vector<int64_t>& sizes = {}, int smCount = 132);

// One translation unit with the helper functions and every kernel. Throws std::runtime_error
// for dtypes the backend does not support (f16, bf16).
std::string cudaSource(const std::vector<kir::Kernel>& kernels);

}  // namespace kiln::codegen::cuda
