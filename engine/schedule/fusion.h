// fuse: groups ATen nodes into kernels (the "fused" stage). A pointwise node joins the kernel
// of a producer with the same iteration shape; a reduction joins its producer's kernel (its
// pointwise prologue) or another reduction over the same shape and dims; a pointwise node of
// the full or reduced (keepdim) shape joins a reduction kernel as its epilogue, so softmax,
// layer_norm and RMSNorm become one kernel each. A node with no fusable producer may join a
// kernel that reads one of its inputs (horizontal fusion). A join is refused when another input
// depends on the kernel through a node outside it (the kernel would wait on itself) or the
// kernel has 64 nodes. Every pair considered is recorded as a rule hit ("fused: ..." or
// "not fused: <reason>"). Kernels are named like Inductor's: cpp_fused_<ops>_<n>.
#pragma once

#include "engine/ir/graph.h"

#include <functional>
#include <string>

namespace kiln::schedule {

// The graph with every fused node's kernel name set; changed when any kernel formed.
struct Fused {
  ir::Graph graph;
  bool changed = false;
};

// Told every decision: the rule text and the node it concerns (the fuse pass records them as
// rule hits: engine/passes/fuse.h).
using FusionRule = std::function<void(const std::string& rule, int node)>;

// fusionLimit: at most this many fusion decisions (joins of a node into an existing kernel);
// -1: no limit (kiln run --verify bisects over it).
Fused fuse(const ir::Graph& g, int fusionLimit, const FusionRule& fired);

}  // namespace kiln::schedule
