// The pass pipeline: one short ordered list, run by the pass manager (pass_manager.h).
#pragma once

#include "engine/passes/pass.h"

#include <vector>

namespace kiln::passes {

const std::vector<PassInfo>& pipeline();

}  // namespace kiln::passes
