// Calls from the interpreter into torch-level functions: converts Python values to op values,
// runs eagerly or records into the active capture, and converts the result back.
#pragma once

#include "engine/python/interpreter.h"
#include "engine/torch/torch_functions.h"

namespace kiln::torchapi {

ops::Val toVal(py::Interpreter& in, const py::Value& v);
py::Value fromVal(py::Interpreter& in, const ops::Val& v);

// Calls the torch-level function `target` (kind: function or Tensor method; for methods the
// receiver is args.args[0]). Eager on real tensors, recorded when any tensor is fake.
py::Value callTorch(py::Interpreter& in, const std::string& target, ir::NodeKind kind, py::CallArgs& args);

// While capturing, a random draw Kiln does not record (torch.rand, Tensor.normal_ ...) would be
// frozen into the graph as a constant, the same numbers every call: the frame breaks instead.
void breakOnRandomInCapture(py::Interpreter& in, const std::string& what);

// Something Kiln cannot do yet (not a PyTorch error): NotImplementedError, or while capturing a
// graph break (KB030), so the frame runs eagerly from there instead of failing the program.
[[noreturn]] void notSupported(py::Interpreter& in, const std::string& what);

// Rethrows engine errors (TorchError) as Python exceptions (a NotImplementedError while
// capturing is a Kiln gap: notSupported).
[[noreturn]] void rethrow(py::Interpreter& in, const tensor::TorchError& e);

}  // namespace kiln::torchapi
