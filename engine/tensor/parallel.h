// Splitting an eager kernel's loop over threads. The thread pool lives in the runtime layer,
// above this one; it installs itself here (torchapi::install, the frontend, does it for every
// interpreter), so the ops' eager kernels can use it without depending upward. Without a pool
// (the lower layers' own unit tests) the loop runs on the calling thread, checking for a stop
// request between chunks either way (stop.h).
#pragma once

#include <cstdint>
#include <functional>

namespace kiln::tensor {

// Runs fn(begin, end) over contiguous ranges covering [0, n), in parallel, returning when all
// ran; throws tensor::Interrupted where a stop was requested.
using ParallelRunner = void (*)(int64_t n, const std::function<void(int64_t, int64_t)>& fn);
void setParallelRunner(ParallelRunner runner);

// Elements below which an eager loop stays on the calling thread: waking the pool costs
// microseconds, a pointwise op on 2^16 floats about as much.
constexpr int64_t kParallelGrain = int64_t{1} << 16;

// fn(begin, end) over [0, n): on the installed runner when n is worth splitting, else here.
void parallelRanges(int64_t n, const std::function<void(int64_t, int64_t)>& fn);

// fn(begin, end) over [0, n) blocks that each carry enough work to be worth a thread (the caller
// judged it, e.g. a GEMM's column blocks): on the installed runner whenever n > 1, else here.
void parallelBlocks(int64_t n, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace kiln::tensor
