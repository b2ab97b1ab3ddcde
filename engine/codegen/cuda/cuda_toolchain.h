// NVRTC and the CUDA driver, found at run time with dlopen: Kiln links neither, so it builds and
// runs where there is no CUDA at all, and the CUDA path says why it is unavailable ("libcuda.so.1
// not found", "no CUDA device"). Only the C entry points Kiln uses are declared here.
#pragma once

#include "engine/codegen/cuda/cuda_source.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::codegen::cuda {

class Nvrtc {
 public:
  // The process's NVRTC, or nullptr with `why` set when libnvrtc cannot be loaded.
  static Nvrtc* instance(std::string* why);
  // CUDA C++ -> PTX for `arch` ("compute_75"). Throws std::runtime_error with NVRTC's log.
  std::string compileToPtx(const std::string& source, const std::string& name, const std::string& arch) const;
  // What one NVRTC compile gives: PTX, the cubin when `arch` is a real one ("sm_90"), and the
  // log (warnings; with --ptxas-options=-v, ptxas's resource report per entry).
  struct Output {
    std::string ptx, cubin, log;
    bool cached = false;  // read from the on-disk kernel cache, NVRTC not run
  };
  // CUDA C++ -> PTX (and cubin) with `options` added to the architecture and -std=c++17, from
  // the on-disk kernel cache (kernel_cache.h) when it holds this compile, else NVRTC's (then
  // stored there). Throws std::runtime_error with NVRTC's log.
  Output compile(const std::string& source, const std::string& name, const std::string& arch,
                 const std::vector<std::string>& options) const;
  std::string version() const;

 private:
  Output compileUncached(const std::string& source, const std::string& name, const std::string& arch,
                         const std::vector<std::string>& options) const;
  Nvrtc() = default;
  struct Fns;
  const Fns* fns_ = nullptr;
};

// A host buffer bound to one kernel parameter: copied to the device before the launch and, for
// outputs, back after it.
struct HostBuffer {
  void* data = nullptr;
  size_t bytes = 0;
  bool output = false;
};

class CudaDevice {
 public:
  // Device 0 through the driver API (primary context), or nullptr with `why` set: no
  // libcuda.so.1, cuInit failed, or no device.
  static CudaDevice* instance(std::string* why);
  std::string name() const { return name_; }
  // "compute_XY" for the device's compute capability (what NVRTC should target).
  std::string arch() const { return arch_; }
  // Loads `ptx`, launches `symbol` as `launch` says (cuda_source.h: grid, block, and for a split
  // reduction its zeroed scratch and counters) with the buffers' device copies and the trailing
  // `long long points` argument, waits, and copies outputs back. Throws on any error.
  void run(const std::string& ptx, const std::string& symbol, std::vector<HostBuffer>& buffers, const CudaLaunch& launch) const;
  int multiprocessors() const { return sms_; }

 private:
  CudaDevice() = default;
  struct Fns;
  const Fns* fns_ = nullptr;
  void* context_ = nullptr;
  std::string name_, arch_;
  int sms_ = 1;
};

}  // namespace kiln::codegen::cuda
