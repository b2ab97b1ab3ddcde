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

}  // namespace kiln::torchapi
