// The interface between kernel IR and a code generator. The CPU generator (LLVM, ORC JIT)
// lives in engine/codegen/llvm/, the GPU one (CUDA C++ via NVRTC) in engine/codegen/cuda/.
#pragma once

#include "engine/kir/kernel_ir.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::codegen {

// ABI of a compiled CPU kernel. `buffers` are the data pointers of Kernel::buffers in order;
// [begin, end) is the range of the outermost loop to run, so the runtime can split it over
// threads. A kernel with no loops ignores the range and runs its single point.
using CpuKernelFn = void (*)(void* const* buffers, int64_t begin, int64_t end);

struct CompiledKernel {
  std::string name;
  CpuKernelFn fn = nullptr;
  std::string source;    // generated source when the backend has one (CUDA C++); else ""
  std::string llvmIr;    // optimized LLVM IR (CPU) or ""
  std::string assembly;  // native assembly (CPU) or PTX (GPU)
  double compileMs = 0.0;
  // The kernel whose compiled code this one runs (the same kernel IR but for names and
  // provenance: kernel_bodies.h), or "" when it runs code compiled for itself. Its texts then
  // are that code's, with this kernel's provenance and a first line saying so.
  std::string sharesCodeOf;
};

// Owns the code of the kernels it returns (the JIT session); keep it alive while calling them.
class CompiledModule {
 public:
  virtual ~CompiledModule() = default;
  std::vector<CompiledKernel> kernels;
  // Distinct kernel bodies the LLVM backend compiled for this module (0 when the kernel cache
  // supplied the code; the CUDA backend does not count).
  size_t bodiesCompiled = 0;
};

class KernelCompiler {
 public:
  virtual ~KernelCompiler() = default;
  virtual std::string name() const = 0;
  // Compiles a batch of kernels into one module. Throws std::runtime_error on failure.
  virtual std::shared_ptr<CompiledModule> compile(const std::vector<kir::Kernel>& kernels, const std::string& moduleName) = 0;
};

// The LLVM ORC JIT CPU backend (engine/codegen/llvm/llvm_compiler.cpp).
std::unique_ptr<KernelCompiler> makeLlvmCpuCompiler();

// The CUDA backend (engine/codegen/cuda/): CUDA C++ through NVRTC to PTX, for the GPU found or,
// without one, kDefaultCudaArch. Kernels carry `source` and PTX (`assembly`) and no CPU entry
// point; cuda::CudaDevice runs them. nullptr, with `why` set, when NVRTC cannot be loaded.
constexpr const char* kDefaultCudaArch = "compute_75";
std::unique_ptr<KernelCompiler> makeCudaCompiler(std::string* why = nullptr);

}  // namespace kiln::codegen
