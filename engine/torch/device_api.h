// Devices in scripts: torch.device values, the device= argument every factory and .to() take,
// tensors' .device / .is_cuda / .cuda() / .cpu(), torch.cuda, torch.set_default_device,
// torch.version and torch.backends.cudnn. A CUDA request goes through
// runtime::cuda::lazyInit(), which raises PyTorch's own error where there is no driver or GPU:
// Kiln never makes a CPU tensor where a script asked for a CUDA one.
#pragma once

#include "engine/python/interpreter.h"
#include "engine/tensor/device.h"

namespace kiln::torchapi {

// A torch.device instance (torch.device('cuda', 0)).
py::Value makeDevice(py::Interpreter& in, const tensor::Device& d);
// True for a torch.device instance.
bool isDevice(const py::Value& v);
// The device `v` names: a torch.device, a str ("cpu", "cuda", "cuda:0") or an int (a CUDA
// index); PyTorch's RuntimeError for a malformed string. Kiln knows cpu and cuda only.
tensor::Device parseDevice(py::Interpreter& in, const py::Value& v);
// The device a new tensor goes to: `v` (None: torch.set_default_device's), with a CUDA device
// initialized (lazyInit: PyTorch's error without a GPU) and its index filled in.
tensor::Device targetDevice(py::Interpreter& in, const py::Value& v);
tensor::Device defaultDevice();
// torch.set_default_device(d) from outside the script (kiln run --default-device cuda); each
// interpreter starts on the CPU, as a fresh PyTorch process does.
void setDefaultDevice(const tensor::Device& d);
// `t` on `d` (a copy unless already there), requires_grad and autograd history not carried.
tensor::Tensor moveTo(py::Interpreter& in, const tensor::Tensor& t, const tensor::Device& d);

// A CUDA tensor's elements copied to the host (the tensor itself on the CPU): for item(),
// tolist(), printing.
tensor::Tensor onHost(py::Interpreter& in, const tensor::Tensor& t);
// Tensor.to(...) / .cuda(device=None) / .cpu() (`method`): a device change is a copy recorded
// by autograd (kiln.to_device), a dtype change goes through Tensor.to's definition.
py::Value tensorTo(py::Interpreter& in, const py::Value& self, const std::string& method, py::CallArgs& a);

// Calls the factory `fn` (torch.zeros, torch.randn_like, Tensor.new_ones ...) for the device
// its device= names (or, `like`, its input's; else the default device): on the CPU as before,
// on CUDA by making the values on the CPU (a random draw from the CUDA generator, which is
// PyTorch's CPU algorithm: values differ from PyTorch's CUDA Philox draws) and copying them.
py::Value deviceFactoryCall(py::Interpreter& in, const py::Value& fn, py::CallArgs& a, bool like, bool random);
// Wraps torch's factories with deviceFactoryCall; installModules calls it last.
void wrapFactories(const std::shared_ptr<py::ModuleObj>& torch);

// torch.device, torch.cuda, torch.version, torch.backends, torch.set_default_device /
// get_default_device.
void installDeviceApi(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& torch);

}  // namespace kiln::torchapi
