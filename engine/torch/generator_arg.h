// The torch.Generator a random function draws from: its generator= keyword (a torch.Generator
// instance) or the default generator; TypeError as PyTorch words it for anything else.
#pragma once

#include "engine/ops/random.h"
#include "engine/python/interpreter.h"

namespace kiln::torchapi {

Generator& generatorOf(py::Interpreter& in, const py::CallArgs& a);

}  // namespace kiln::torchapi
