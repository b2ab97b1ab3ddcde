// Lowering: the captured (torch-level) graph -> the ATen graph, as AOTAutograd produces it.
// Each captured node is re-run through its torch-level definition with a dispatcher that
// records ATen ops, so the ATen graph says exactly what eager execution would have done.
// Inputs are renamed arg0_1, arg1_1 ... as in AOT graphs; every ATen node's provenance points
// at the captured node it came from.
//
// Functionalization, as AOTAutograd does it: the ATen graph has no in-place ops and no
// aliasing. An in-place op makes a new value; when it updates a view (`v = x[:, 1:3];
// v.mul_(2)`), the new value is scattered into the view's base (through an index map built by
// replaying the view chain on an iota of the base), and every other view of that base read
// later is rebuilt from the new base. A graph input updated this way (directly, through a
// view, or inside an op's decomposition such as training batch_norm's running stats) makes the
// graph return its final value after the captured outputs; whoever runs the graph copies it
// back into the input.
#pragma once

#include "engine/ir/graph.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln::passes {

// One view op of a chain: the ATen op and its arguments after `self`.
struct ViewStep {
  std::string op;
  std::vector<ir::Arg> args;
};

// A graph output that is a view of a graph input (`return x[0]`, `return x.t()`): eager code
// hands back an alias of the input, so the runner rebuilds the output as that view of the real
// input tensor (AOTAutograd regenerates such outputs the same way).
struct OutputAlias {
  size_t output = 0;  // index among the captured graph's outputs
  size_t input = 0;   // placeholder index
  std::vector<ViewStep> chain;
};

struct Lowered {
  ir::Graph graph;
  // Per captured node with a tensor result, the ATen node that holds it (the studio shows a
  // dynamic graph's captured sizes from the ATen graph's symbols).
  std::map<int, int> resultOf;
  // (input index, output index): the graph returns the input's new value there (after the
  // captured outputs, or one of them when a captured output is that value).
  std::vector<std::pair<int, int>> inputMutations;
  size_t userOutputs = 0;  // the captured graph's outputs
  std::vector<OutputAlias> outputAliases;
};

Lowered lower(const ir::Graph& captured);

// The same, graph only (and optionally the node map and input mutations).
ir::Graph lowerToAten(const ir::Graph& captured, std::map<int, int>* resultOf = nullptr,
                      std::vector<std::pair<int, int>>* inputMutations = nullptr);

}  // namespace kiln::passes
