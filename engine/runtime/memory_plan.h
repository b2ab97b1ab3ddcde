// Memory planning for a compiled graph: the intermediate buffers kernels write (not graph
// outputs, not extern results) share storage when their lifetimes do not overlap. Greedy in
// step order: before a step allocates, buffers whose last use is behind it are free; a free
// slot of the same dtype that is large enough is reused (smallest first). An output written in
// place (Step::inPlace) shares its input's slot, which then lives as long as either.
#pragma once

#include "engine/ir/graph.h"
#include "engine/schedule/kernel_builder.h"

#include <cstdint>
#include <map>
#include <string>

namespace kiln::runtime {

struct MemoryPlan {
  std::map<int, int> slotOf;          // node id -> slot (planned buffers only)
  std::vector<int64_t> slotElements;  // per slot: capacity in elements
  std::vector<ir::DType> slotDtype;
  int64_t peakBytes = 0;       // planned buffers live at once, at worst
  int64_t unplannedBytes = 0;  // what the same buffers would take without reuse
  int planned = 0;
  int inPlace = 0;  // kernel outputs written over a dying input

  std::string summary() const;  // one line for the wrapper text
};

MemoryPlan planMemory(const ir::Graph& g, const schedule::ScheduledGraph& s);

}  // namespace kiln::runtime
