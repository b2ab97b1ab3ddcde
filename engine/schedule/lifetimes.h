// When each value of a scheduled graph is last needed: the index of the last step reading it
// (directly, or through a view of it that is read later); graph outputs live past the last
// step (steps.size()). Memory planning and in-place reuse both decide from this.
#pragma once

#include "engine/ir/graph.h"
#include "engine/schedule/kernel_builder.h"

#include <map>

namespace kiln::schedule {

std::map<int, size_t> lastUses(const ir::Graph& g, const ScheduledGraph& s);

}  // namespace kiln::schedule
