// The pipeline's last pass, "fuse": groups nodes into kernels (engine/schedule/fusion.h decides)
// and records every decision as a rule hit. Passes sit above schedule in their layer
// (engine/layers.txt), so the scheduler knows nothing of the pass interface.
#pragma once

#include "engine/passes/pass.h"

namespace kiln::passes {

PassResult fuse(const ir::Graph& g, PassContext& ctx);

}  // namespace kiln::passes
