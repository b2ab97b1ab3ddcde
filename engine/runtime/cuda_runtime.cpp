#include "engine/runtime/cuda_runtime.h"

#include "engine/tensor/current_device.h"
#include "engine/tensor/tensor.h"

#include <algorithm>
#include <mutex>

namespace kiln::runtime::cuda {

namespace {
CudaCachingAllocator* gAllocator = nullptr;
}  // namespace

bool isAvailable() { return CudaDriver::state() == CudaDriver::State::Ok; }
bool isInitialized() { return gAllocator != nullptr; }
int deviceCount() { return CudaDriver::deviceCount(); }
int currentDevice() { return std::max(CudaDriver::boundIndex(), 0); }

void lazyInit(int deviceIndex) {
  if (CudaDriver::state() != CudaDriver::State::Ok) throw tensor::TorchError("RuntimeError", CudaDriver::unavailableMessage());
  if (deviceIndex < 0) deviceIndex = currentDevice();
  if (deviceIndex >= deviceCount())
    throw tensor::TorchError("RuntimeError",
                             "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported at "
                             "some other API call, so the stacktrace below might be incorrect.\nFor debugging consider "
                             "passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side "
                             "assertions.\n");
  CudaDriver* d = CudaDriver::bind(deviceIndex);
  if (!d) throw tensor::TorchError("RuntimeError", CudaDriver::unavailableMessage());
  // One GPU per process, as torchrun runs DDP: the first device used (or torch.cuda.set_device)
  // is the process's, and another is an error rather than a silent move to it.
  if (d->index() != deviceIndex)
    throw tensor::TorchError("NotImplementedError", "Kiln drives one GPU per process and this process drives cuda:" +
                                                        std::to_string(d->index()) + ", so cuda:" + std::to_string(deviceIndex) +
                                                        " cannot be used in it; run one process per GPU (kiln run --nproc-per-node N, "
                                                        "torch.cuda.set_device(LOCAL_RANK) before the first CUDA tensor)");
  static std::once_flag once;
  std::call_once(once, [d] {
    tensor::setCurrentCudaIndex(d->index());
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
