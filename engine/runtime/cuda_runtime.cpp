#include "engine/runtime/cuda_runtime.h"

#include "engine/tensor/tensor.h"

#include <mutex>

namespace kiln::runtime::cuda {

namespace {
CudaCachingAllocator* gAllocator = nullptr;
}  // namespace

bool isAvailable() { return CudaDriver::get() != nullptr; }
bool isInitialized() { return gAllocator != nullptr; }
int deviceCount() { return CudaDriver::deviceCount(); }

void lazyInit(int deviceIndex) {
  CudaDriver* d = CudaDriver::get();
  if (!d) throw tensor::TorchError("RuntimeError", CudaDriver::unavailableMessage());
  // Kiln drives device 0 (the one it binds); another index is PyTorch's error on a machine
  // with one GPU.
  if (deviceIndex != 0)
    throw tensor::TorchError("RuntimeError", "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported at "
                                             "some other API call, so the stacktrace below might be incorrect.\nFor debugging consider "
                                             "passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side "
                                             "assertions.\n");
  static std::once_flag once;
  std::call_once(once, [d] {
    gAllocator = new CudaCachingAllocator(*d);  // process lifetime: tensors may outlive any scope
    tensor::setDeviceBackend(tensor::DeviceType::CUDA, gAllocator);
    installCudaKernels();
  });
}

CudaDriver& driver() {
  lazyInit();
  return *CudaDriver::get();
}

CudaCachingAllocator& allocator() {
  lazyInit();
  return *gAllocator;
}

}  // namespace kiln::runtime::cuda
