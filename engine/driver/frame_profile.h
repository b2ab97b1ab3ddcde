// Times one compiled graph against its eager reference on the inputs of its first call (what
// `kiln bench` reports per frame): medians of repeated runs after a warm-up, and per kernel the
// time and the bandwidth it achieved (its buffers' bytes over its time). A graph on the GPU is
// timed with CUDA events (host work the GPU waits for included, as torch.cuda.Event timings
// are), and its extern calls (cuBLAS, cuDNN) are listed beside its kernels.
#pragma once

#include "engine/driver/backends.h"

#include <string>
#include <vector>

namespace kiln::driver {

struct KernelProfile {
  std::string name;
  double ms = 0.0;    // median wall time of one launch (GPU: CUDA events around it)
  int64_t bytes = 0;  // bytes of its input and output buffers
  double gbPerS() const { return ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : 0.0; }
};

struct FrameProfile {
  std::string compileId;
  double eagerMs = 0.0;     // the captured graph op by op with the eager kernels
  double compiledMs = 0.0;  // the wrapper: generated kernels and extern calls
  std::vector<KernelProfile> kernels;
};

// Throws std::runtime_error when the frame was never called (no inputs to run it on).
FrameProfile profileFrame(const CompiledFrame& f, int repeat);

// A plain memcpy of `bytes` bytes between two warm buffers: bytes read + written per second
// (the same accounting as KernelProfile), median of `repeat` runs; on one thread, or split
// over the runtime's thread pool as large generated kernels are.
double memcpyGbPerS(size_t bytes, int repeat, bool parallel);

}  // namespace kiln::driver
