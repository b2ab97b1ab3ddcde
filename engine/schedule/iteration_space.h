// The iteration space of a kernel built around reductions, shared by the fusion pass (which
// decides what may join a kernel) and the kernel builder (which lays the kernel's loops out):
// the shape a reduction reads and the dims it reduces, and how a node's value sits in it.
#pragma once

#include "engine/ir/graph.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::schedule {

struct IterationSpace {
  std::vector<int64_t> shape;    // the reduction's input shape
  std::vector<int64_t> reduced;  // the dims it reduces, ascending
};

// Sizes of a type, a symbolic dim by its hint (the captured value); nullopt when a symbolic dim
// has no hint (a graph read from text).
std::optional<std::vector<int64_t>> concreteSizes(const ir::TensorType& t);

// The iteration space of reduction node n (an op with a ReductionSpec and a concrete input), or
// nullopt for anything else.
std::optional<IterationSpace> reductionSpace(const ir::Graph& g, const ir::Node& n);

// How a value of shape `sizes` lays out in `space`: the full shape, the reduced shape with
// size-1 dims kept (keepdim=True), without them, or not at all.
enum class Layout { Full, KeepDims, DropDims, None };
Layout layoutIn(const IterationSpace& space, const std::vector<int64_t>& sizes);

}  // namespace kiln::schedule
