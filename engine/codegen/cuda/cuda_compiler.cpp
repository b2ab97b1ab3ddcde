// makeCudaCompiler(): kernel IR -> CUDA C++ (cuda_source.cpp) -> PTX with NVRTC, one translation
// unit per batch. The kernels carry their source and PTX for display; they run on a CudaDevice
// (cuda_toolchain.h), which the CPU runtime does not use yet.
#include "engine/codegen/cuda/cuda_source.h"
#include "engine/codegen/cuda/cuda_toolchain.h"
#include "engine/codegen/kernel_compiler.h"

#include <chrono>
#include <stdexcept>

namespace kiln::codegen {

namespace {

// The text from `start` to the next `next` (or the end), or "".
std::string section(const std::string& all, const std::string& start, const std::string& next) {
  size_t at = all.find(start);
  if (at == std::string::npos) return "";
  size_t end = all.find(next, at + start.size());
  return all.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

class CudaCompiler : public KernelCompiler {
 public:
  CudaCompiler(const cuda::Nvrtc& nvrtc, std::string arch) : nvrtc_(nvrtc), arch_(std::move(arch)) {}
  std::string name() const override { return "cuda-nvrtc"; }

  std::shared_ptr<CompiledModule> compile(const std::vector<kir::Kernel>& kernels, const std::string& moduleName) override {
    auto start = std::chrono::steady_clock::now();
    const std::string source = cuda::cudaSource(kernels);
    const std::string ptx = nvrtc_.compileToPtx(source, moduleName + ".cu", arch_);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    auto out = std::make_shared<CompiledModule>();
    for (const auto& k : kernels) {
      CompiledKernel ck;
      ck.name = k.name;
      ck.source = section(source, "// kernel " + k.name + " (", "\n// kernel ");
      ck.assembly = section(ptx, ".entry " + cuda::cudaSymbol(k) + "(", ".entry ");
      ck.compileMs = ms / static_cast<double>(kernels.size());
      out->kernels.push_back(std::move(ck));
    }
    return out;
  }

 private:
  const cuda::Nvrtc& nvrtc_;
  std::string arch_;
};

}  // namespace

std::unique_ptr<KernelCompiler> makeCudaCompiler(std::string* why) {
  cuda::Nvrtc* nvrtc = cuda::Nvrtc::instance(why);
  if (!nvrtc) return nullptr;
  // Target the GPU when there is one, else the oldest architecture current CUDA supports.
  cuda::CudaDevice* device = cuda::CudaDevice::instance(nullptr);
  return std::make_unique<CudaCompiler>(*nvrtc, device ? device->arch() : std::string(kDefaultCudaArch));
}

}  // namespace kiln::codegen
