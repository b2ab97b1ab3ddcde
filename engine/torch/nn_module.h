// torch.nn: Module (with PyTorch's _parameters/_buffers/_modules layout, which Dynamo's guard
// sources refer to) and the layers built on it.
#pragma once

#include "engine/python/interpreter.h"

namespace kiln::torchapi {

void installNn(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& nn);

// Native state of a module compiled in place with module.compile().
struct CompiledModuleState {
  py::Value compiledCall;  // callable taking the forward's arguments
};

// Module._call_impl's hook part: calls `forward` (the forward's arguments, self excluded) inside
// the module's forward pre-hooks and forward hooks; a plain call when it has none.
// torch.compile(module)'s OptimizedModule calls its compiled forward through this.
py::Value callForwardWithHooks(py::Interpreter& in, const py::Value& module, const py::Value& forward, py::CallArgs& call);

}  // namespace kiln::torchapi
