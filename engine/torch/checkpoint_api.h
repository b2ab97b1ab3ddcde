// The native half of torch.utils.checkpoint (the Python half is
// engine/torch/prelude/torch.utils.checkpoint.py).
#pragma once

#include "engine/python/interpreter.h"

namespace kiln::torchapi {

// torch.utils.checkpoint._kiln_checkpoint_region(fn, *args, **kwargs): calls fn; while capturing,
// the call nodes fn records are stamped with a checkpoint region of the graph (provenance's
// checkpointRegion), which the min-cut partition recomputes in the backward instead of saving.
void installCheckpoint(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& checkpointModule);

}  // namespace kiln::torchapi
