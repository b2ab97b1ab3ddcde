// Convolution on CUDA tensors through cuDNN (cuda_conv.cpp): libcudnn.so.9 loaded with dlopen,
// never linked, found as cuBLAS is (nvidia_libs.h: LD_LIBRARY_PATH, $CUDA_HOME/lib64,
// /usr/local/cuda/lib64, a Python install's nvidia/cudnn/lib). cuda_ops.cpp tries it after
// cuBLAS.
#pragma once

#include "engine/ops/op_table.h"
#include "engine/tensor/device.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::runtime::cuda {

// aten.convolution.default (forward: cudnnConvolutionForward; transposed:
// cudnnConvolutionBackwardData) and kiln.convolution_weight_grad.default
// (cudnnConvolutionBackwardFilter) on `d`; nullopt for other ops. Raises a RuntimeError saying
// where cuDNN was looked for when it is not found.
std::optional<ops::Val> convOnDevice(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& d);

// torch.backends.cudnn.allow_tf32: whether float32 convolutions may use TF32 tensor cores.
// PyTorch's default is true (unlike cuBLAS matmuls, where torch.backends.cuda.matmul.allow_tf32
// defaults to false); false sets CUDNN_FMA_MATH as PyTorch does.
void setCudnnAllowTf32(bool allow);
bool cudnnAllowTf32();

// cudnnGetVersion() (91900 for 9.19.0), or 0 where cuDNN cannot be loaded; loads the library
// and resolves its entry points on first call, which needs no GPU (the handle is made on the
// first convolution). cudnnUnavailableMessage() says why it could not be loaded ("" when it
// was).
long cudnnVersion();
std::string cudnnUnavailableMessage();

}  // namespace kiln::runtime::cuda
