// The backward graph of a forward ATen graph, as AOTAutograd derives it: reverse-mode
// differentiation through every op's derivative formula (the op table's OpDef::backward, the
// same formulas eager autograd runs), recorded as ATen nodes by a graph dispatcher.
//
// The graph built here is the joint graph: its inputs are the forward's inputs and one tangent per
// differentiable forward output, and it replays the forward values the formulas need.
// partition.h cuts it into what the forward saves and what the backward recomputes (the
// compiled backward); run as is, it recomputes the whole forward.
//
//   placeholders: primals_1 .. primals_n (the forward's inputs), tangents_1 .. tangents_k
//   outputs:      the gradient of every forward input that requires grad and is reached
#pragma once

#include "engine/ir/graph.h"

#include <cstdint>
#include <map>
#include <vector>

namespace kiln::passes {

struct BackwardGraph {
  ir::Graph graph;
  std::vector<int> tangentOf;  // per tangent placeholder: the forward output index it is for
  std::vector<int> gradOf;     // per graph output: the forward input index it is the gradient of
  // forward node id -> the node replaying it in `graph` (calls only): what the partitioner
  // (partition.h) may ask the forward to save.
  std::map<int, int> forwardValue;
};

// Throws std::runtime_error when an op on the way has no derivative formula, or a formula cannot
// be recorded as a graph (the caller then differentiates eagerly).
// Only the first `userOutputs` outputs get tangents (the rest are input mutations, which are not
// differentiated: running stats are updated under no_grad).
BackwardGraph buildBackwardGraph(const ir::Graph& forward, size_t userOutputs = SIZE_MAX);

}  // namespace kiln::passes
