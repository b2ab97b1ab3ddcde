// Tensor::clone(), to(dtype) and contiguous() of a device tensor run on the device, through the
// strided copy kernel that the GPU runtime installs here (engine/runtime/cuda_ops.cpp): the
// tensor layer never reaches the driver itself. Without one installed they raise the host-access
// NotImplementedError.
#pragma once

#include "engine/tensor/tensor.h"

#include <functional>

namespace kiln::tensor {

// A fresh contiguous tensor on src's device holding src's elements converted to `dtype`.
using DeviceConvert = std::function<Tensor(const Tensor& src, ir::DType dtype)>;
void setDeviceConvert(DeviceConvert convert);

}  // namespace kiln::tensor
