// Eager ops on tensors that live on a device (CUDA): the op table's kernels are CPU code, so the
// eager dispatcher sends an op whose tensors are on a device here. The GPU runtime installs a
// `DeviceKernels` that runs the ops it has kernels for (engine/runtime/cuda_ops.cpp); any other
// op raises NotImplementedError naming the op and the device: Kiln never computes a device
// tensor's op on the CPU and hands the result back as a device tensor.
#pragma once

#include "engine/ops/val.h"
#include "engine/tensor/device.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln::ops {

struct OpDef;

// Runs `op` on `device`; returns nullopt where it has no kernel for the op (or these arguments).
using DeviceKernels = std::function<std::optional<Val>(const OpDef& op, const std::vector<Val>& args, const tensor::Device& device)>;
void setDeviceKernels(DeviceKernels k);

// The device an op's tensor arguments (list items too) put it on: nullopt when every tensor is
// on the CPU. Tensors on two devices raise PyTorch's "Expected all tensors to be on the same
// device" RuntimeError, except a 0-dim CPU tensor beside device tensors in a pointwise op (a
// scalar, as TensorIterator allows).
std::optional<tensor::Device> opDevice(const OpDef& op, const std::vector<Val>& args);

// `kiln.to_device.default(x, device)`: x's elements on the device named by the string `device`
// ("cpu", "cuda:0"), a copy (the tensor itself when already there); its backward moves the
// gradient back to x's device (PyTorch's ToCopyBackward0). The one op the eager dispatcher runs
// whatever devices its argument is on.
constexpr const char* kToDeviceOp = "kiln.to_device.default";
void registerDeviceOps(std::vector<OpDef>& table);
tensor::Device parseDeviceString(const std::string& s);  // "cpu", "cuda", "cuda:1"

// FakeTensor's device propagation for meta results: the device of the op's first non-CPU
// tensor argument (TensorType::device), "cpu" when none (the metas compute sizes and dtypes).
std::string metaDevice(const std::vector<Val>& args);

// copyInto() (in-place ops, setitem, optimizer steps) where dst or src lives on a device: the
// GPU runtime installs a copy kernel (any strides, broadcast, dtype conversion). Without one
// such a copy raises NotImplementedError (index_ops.cpp).
using DeviceCopy = std::function<void(tensor::Tensor& dst, const tensor::Tensor& src)>;
void setDeviceCopy(DeviceCopy c);
const DeviceCopy& deviceCopy();

// Runs `op` through the installed device kernels or raises NotImplementedError.
Val runOnDevice(const OpDef& op, const std::vector<Val>& args, const tensor::Device& device);

}  // namespace kiln::ops
