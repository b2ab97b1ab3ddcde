// In-place Tensor methods (add_, copy_, zero_, uniform_ ...) and augmented assignment
// (x += y): the new value is computed with the torch-level functions, then written through
// the tensor's strides into its storage, so every view of that storage sees it. With grad
// mode on, the tensor's grad_fn is rebased onto the op that computed the new value.
#pragma once

#include "engine/python/interpreter.h"

namespace kiln::torchapi {

// The bound method for `name` when it is an in-place method of tensors, else null.
py::Value inplaceMethod(const py::Value& self, const std::string& name);
// x op= y: `result` is x op y computed out of place; writes it into x and returns x itself.
py::Value inplaceAssign(py::Interpreter& in, const py::Value& self, const py::Value& result);
// While capturing: x op= y on the fake tensor `self` recorded as `target` (_operator.iadd ...),
// type-checked as the eager update would be; returns self.
py::Value inplaceOperator(py::Interpreter& in, const std::string& target, const py::Value& self, const py::Value& other);

// A function's out= tensor: `result` written into it (cast to its dtype as PyTorch allows;
// an out of another shape is resized first, as ATen's resize_output does); returns out.
py::Value writeOut(py::Interpreter& in, const py::Value& out, const tensor::Tensor& result);

}  // namespace kiln::torchapi
