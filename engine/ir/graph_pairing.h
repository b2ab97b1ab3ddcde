// Node-by-node pairing of two graphs of the same program made by different compilers (a
// PyTorch run imported from its TORCH_TRACE log and Kiln's run of the same script): names are
// no use there (each side numbers its nodes its own way, `relu_1` on one side is `relu` on the
// other), so nodes are matched by provenance — op and source line — with their order as the
// tie-breaker. Used by the fidelity diff (storage/session_diff, `kiln diff`) and the studio's
// graph diff. diffGraphs (graph_diff.h) stays the tool for two stages of one compiler, where
// names are stable.
#pragma once

#include "engine/ir/graph.h"

#include <map>
#include <string>
#include <vector>

namespace kiln::ir {

struct NodePair {
  int a = -1, b = -1;                    // node ids in the first and the second graph
  std::vector<std::string> differences;  // empty when the two nodes agree
};

struct GraphPairing {
  std::vector<NodePair> pairs;  // in the first graph's order
  std::vector<int> onlyA;       // ids of nodes of the first graph with no partner
  std::vector<int> onlyB;
  std::map<int, int> aToB, bToA;  // partner ids

  int differing() const;
  // Every node has a partner and no pair differs: the same graph, node by node.
  bool complete() const { return onlyA.empty() && onlyB.empty() && differing() == 0; }
};

// Pairs the nodes of `a` and `b`. First pass: nodes of the same kind, op (target) and source
// line (file base name and line number) are paired, the k-th of A's with the k-th of B's;
// placeholders by their outer name. Second pass, among what is left: nodes of the same kind and
// op in order (their source lines differ: listed as a difference), placeholders in order (their
// names differ). A pair then differs in op arguments (node arguments compare through the
// pairing, constants as printed), keyword arguments, result shapes and dtypes (symbols paired
// one to one: PyTorch's s70 is Kiln's s0; a side with no type stated is not compared), source
// line or input name.
GraphPairing pairGraphs(const Graph& a, const Graph& b);

// A node as the pairing lists it: "relu (torch.nn.functional.relu) at model.py:57".
std::string describeNode(const Node& n);

}  // namespace kiln::ir
