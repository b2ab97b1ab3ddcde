// torch.compile(options={...}): PyTorch's check of Inductor options (inductor_options.cpp).
#pragma once

#include "engine/python/interpreter.h"

namespace kiln::capture {

// Raises PyTorch's RuntimeError for a key that is no Inductor config option ("Unexpected
// optimization option KEY, known options are [...]") or a value of another type ("Unexpected
// type of attr KEY, got int should be bool"). `options` not a dict: nothing to check.
void checkInductorOptions(py::Interpreter& in, const py::Value& options);

}  // namespace kiln::capture
