// The partition of a joint forward+backward graph into what the forward saves for backward and
// what the backward recomputes, as AOTAutograd's min-cut partitioner
// (torch/_functorch/partitioners.py, min_cut_rematerialization_partition) decides it.
//
// The joint graph is buildBackwardGraph()'s: primals, tangents, the forward replayed, then the
// gradient formulas. Nodes that depend on no tangent are forward values (or values computed from
// them); the others are the backward proper. A flow network over the forward values decides
// which of them cross the cut:
//   - each value v is an edge v_in -> v_out whose capacity is the bytes of v (saving it costs its
//     size); a value that is not a node of the forward graph (a formula's own computation on
//     forward values) or a view (it would keep its whole base alive) cannot be saved: infinite
//     capacity;
//   - the forward's inputs (primals) hang off the source at capacity 0: the autograd node keeps
//     them anyway, so recomputing from them is free;
//   - a value that must not be recomputed (matmul, convolution, reductions, indexing, random
//     ops: anything not pointwise, view or deterministic creation) hangs off the source with an
//     infinite edge: it is computed in the forward only, and saved (or something after it is);
//   - every argument edge u_out -> v_in is infinite, and a forward value read by the backward
//     proper (or returned as a gradient) has an infinite edge to the sink.
// A minimum cut (max flow, Dinic) then saves the cheapest set of values from which the backward
// can recompute everything else it reads with pointwise and view ops only. Unlike Inductor, the
// capacities are bytes alone (no extra weight for non-fusible pointwise ops, no memory-budget
// knob); between cuts of equal bytes, values the forward returns anyway are saved, other ties
// go to whichever cut the flow finds first.
//
// torch.utils.checkpoint regions (nodes whose provenance has a checkpointRegion) follow
// AOTAutograd's CheckpointPolicy.MUST_RECOMPUTE: such a value can never be saved (infinite
// capacity) and is never banned from recomputation, matmuls included, so the backward recomputes
// the region from what enters it. As cleanup_recompute_tags does, a region's value read by a
// later region is saved (MUST_SAVE: computed in the forward only), so consecutive regions
// (checkpoint_sequential) recompute from their own inputs. Random ops inside a region are the
// exception: Kiln's backward cannot replay the forward's draws, so they keep the rules above
// (saved, never recomputed) and the gradients stay exact.
#pragma once

#include "engine/passes/backward_graph.h"

#include <set>
#include <string>
#include <vector>

namespace kiln::passes {

struct SavedValue {
  int jointNode = -1;    // in the joint graph
  int forwardNode = -1;  // the same value in the forward graph (what the forward returns)
  std::string name;      // its name in the forward graph
  ir::TensorType type;
  int64_t bytes = 0;
};

struct Partition {
  // primals_1..n, saved_1..k (one per `saved`, in order), tangents_1..m; outputs as the joint's.
  ir::Graph backward;
  std::vector<SavedValue> saved;
  std::vector<int> recomputed;    // joint ids of forward values the backward computes again
  std::vector<int> banned;        // joint ids of forward values that may not be recomputed
  std::vector<int> checkpointed;  // the recomputed ones that a torch.utils.checkpoint region forced
  int64_t savedBytes = 0;
  // The decision as the studio shows it: saved tensors with shapes and bytes, the recomputed
  // nodes, and the cut's cost.
  std::string summary() const;
};

// `forward` is the graph buildBackwardGraph(joint) was built from; the joint's forwardValue map
// names each forward node's replay.
Partition partitionJoint(const BackwardGraph& joint, const ir::Graph& forward);

// The tangent placeholders (named tangents_k) of a backward or joint graph and every node that
// depends on one: the backward proper; the other calls are forward work.
std::set<int> tangentDependent(const ir::Graph& g);

// Whether the partitioner may recompute `target` in the backward (pointwise, view, deterministic
// creation) rather than save it.
bool recomputable(const std::string& target);

}  // namespace kiln::passes
