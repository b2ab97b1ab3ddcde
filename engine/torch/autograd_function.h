// torch.autograd.Function's native half (autograd_function.cpp): _attach_function on the
// torch.autograd module. The Python half is prelude/torch.autograd.function.py.
#pragma once

#include "engine/python/interpreter.h"

namespace kiln::torchapi {

void installAutogradFunction(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& autogradModule);

}  // namespace kiln::torchapi
