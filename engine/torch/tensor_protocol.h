// How the interpreter treats Tensor values: operators, attributes, indexing, printing.
// Implemented in engine/torch/ on top of the torch-level op bindings, so that operators on
// fake tensors are captured like any other torch call.
#pragma once

#include "engine/python/interpreter.h"

namespace kiln::torchapi {

// torch._dynamo (graph_break, reset) and torch.compiler (engine/torch/dynamo_module.cpp).
void installDynamo(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& dynamo, const std::shared_ptr<py::ModuleObj>& compiler);

// torch.finfo / torch.iinfo and torch._check (engine/torch/torch_misc.cpp).
void installTorchMisc(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& torch);
// torch.autocast (torch.amp, torch.amp.autocast_mode, torch.cpu.amp), the autocast state
// functions and torch.set_default_dtype / get_default_dtype (engine/torch/autocast_api.cpp).
void installAutocast(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& torch, const std::shared_ptr<py::ModuleObj>& amp,
                     const std::shared_ptr<py::ModuleObj>& autocastMode, const std::shared_ptr<py::ModuleObj>& cpuAmp);
// torch.distributed's native half (Gloo process group) and the read-only `os` module
// (os.environ, os.getenv): engine/torch/distributed_api.cpp.
void installDistributed(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& distributed);
void installOs(py::Interpreter& in);
// Installs torch, torch.nn, torch.nn.functional, torch._dynamo, torch.compiler, math.
void installModules(py::Interpreter& in);

// Returns null when the operator does not apply (so the interpreter raises its TypeError).
py::Value tensorBinary(py::Interpreter& in, const std::string& op, const py::Value& a, const py::Value& b);
py::Value tensorUnary(py::Interpreter& in, const std::string& op, const py::Value& a);
py::Value tensorGetAttr(py::Interpreter& in, const py::Value& t, const std::string& name);
py::Value tensorSubscript(py::Interpreter& in, const py::Value& t, const py::Value& index);
void tensorSetSubscript(py::Interpreter& in, const py::Value& t, const py::Value& index, const py::Value& v);
bool tensorTruthy(py::Interpreter& in, const py::Value& t);
std::string tensorRepr(py::Interpreter& in, const py::Value& t);
std::vector<py::Value> tensorIterate(py::Interpreter& in, const py::Value& t);

}  // namespace kiln::torchapi
