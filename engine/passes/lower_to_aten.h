// Lowering: the captured (torch-level) graph -> the ATen graph, as AOTAutograd produces it.
// Each captured node is re-run through its torch-level definition with a dispatcher that
// records ATen ops, so the ATen graph says exactly what eager execution would have done.
// Inputs are renamed arg0_1, arg1_1 ... as in AOT graphs; every ATen node's provenance points
// at the captured node it came from.
#pragma once

#include "engine/ir/graph.h"

#include <map>
#include <utility>
#include <vector>

namespace kiln::passes {

// `resultOf` (when given) receives, per captured node with a tensor result, the ATen node that
// holds it (the studio shows a dynamic graph's captured sizes from the ATen graph's symbols).
//
// Functionalization: an op that updates a graph input in place (training batch_norm's running
// stats) makes the ATen graph return the input's final value after the captured outputs;
// `inputMutations` (when given) receives (input index, output index) for each, and whoever runs
// the graph copies those values back into the inputs (AOTAutograd's input mutations).
ir::Graph lowerToAten(const ir::Graph& captured, std::map<int, int>* resultOf = nullptr,
                      std::vector<std::pair<int, int>>* inputMutations = nullptr);

}  // namespace kiln::passes
