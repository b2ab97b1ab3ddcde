// Installs the torch-level functions as passes::TorchLevel (engine/passes/torch_level.h), the
// interface lowering and eager graph runs below the frontend call them through. torch_functions.cpp
// does it at start-up, so every program that links the torch functions has them installed.
#pragma once

namespace kiln::torchapi {

void installTorchLevel();

}  // namespace kiln::torchapi
