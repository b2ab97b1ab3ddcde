// Structural checks of a graph: unique ids and names, arguments defined before use, a single
// output node last, tensor types present on calls. Returns "" when valid, else the first problem.
#pragma once

#include "engine/ir/graph.h"

#include <string>

namespace kiln::ir {

std::string verify(const Graph& g);

}  // namespace kiln::ir
