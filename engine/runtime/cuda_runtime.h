// The GPU runtime's front: what torch.cuda and CUDA tensors reach. `lazyInit()` is
// torch.cuda._lazy_init: on first use it binds the driver, installs the caching allocator as the
// CUDA tensor backend and the device kernels (cuda_ops.cpp), or raises the RuntimeError PyTorch's
// CUDA build raises on this machine (no driver, no GPU).
#pragma once

#include "engine/ops/val.h"
#include "engine/runtime/cuda_allocator.h"
#include "engine/runtime/cuda_driver.h"

#include <optional>
#include <vector>

namespace kiln::ops {
struct OpDef;
}

namespace kiln::runtime::cuda {

bool isAvailable();    // a driver and a device (torch.cuda.is_available())
bool isInitialized();  // lazyInit() has succeeded
int deviceCount();
// torch.cuda.current_device(): the device this process drives (bound on first use), 0 before.
int currentDevice();
// Binds device `deviceIndex` (-1: the current one) on first use. Throws tensor::TorchError
// (RuntimeError, PyTorch's message) when CUDA is unavailable, "CUDA error: invalid device
// ordinal" for an index past the devices, and NotImplementedError for a second device in one
// process (Kiln drives one GPU per process, as torchrun's DDP does).
void lazyInit(int deviceIndex = -1);
CudaDriver& driver();               // after lazyInit()
CudaCachingAllocator& allocator();  // after lazyInit()
// Installs the eager device kernels (cuda_ops.cpp); lazyInit() calls it.
void installCudaKernels();
// An op on CUDA tensors as a one-node graph through fuse -> schedule -> kernel IR -> CUDA C++ ->
// NVRTC (pointwise ops, reductions, softmax, layer_norm ...), one GpuGraph per op and argument
// description, compiled once per process (cuda_eager_graph.cpp); nullopt where it cannot.
std::optional<ops::Val> graphOnDevice(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& d);
// matmul-family ops through cuBLAS (cuda_blas.cpp); nullopt for other ops or arguments.
std::optional<ops::Val> blasOnDevice(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& d);
// torch.backends.cuda.matmul.allow_tf32: whether float32 GEMMs may use TF32 tensor cores
// (CUBLAS_TF32_TENSOR_OP_MATH); PyTorch's default is false. Needs no GPU (read at each GEMM).
void setCublasAllowTf32(bool allow);
bool cublasAllowTf32();

}  // namespace kiln::runtime::cuda
