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

// Rethrows engine errors (TorchError) as Python exceptions.
[[noreturn]] void rethrow(py::Interpreter& in, const tensor::TorchError& e);

}  // namespace kiln::torchapi
