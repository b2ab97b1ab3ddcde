// Dynamic shapes through the fused graph. Kiln captures and lowers a graph at the concrete
// shape it was called with; for a dynamic entry the placeholders' types then carry size symbols
// (s0, s1, ... with their hints) and this analysis gives every other node its size expressions
// (and a view its stride expressions), by one rule per kind of op: broadcasting for pointwise
// ops, the reduced dims for reductions, each view op's own rule (reshape groups, permute,
// expand, slice ...), the matmul family's output dims. The kernel builder then writes loops,
// strides and element counts over those expressions, and one compiled module serves every shape.
//
// Kiln's graphs hold no SymInts: a size taken from a Python int (arange(x.shape[0]) captured as
// arange(7)) that equals a symbol's value is guessed to be that symbol; the caller reuses code
// for another shape only when that shape's own capture gives the same kernels, so a wrong guess
// costs a compile, never a wrong result.
//
// Where no rule can say what a node's sizes are in terms of the symbols (an op without a rule
// that reads symbolic inputs, a slice that cuts a symbolic dim), the analysis fails with the
// reason and the graph keeps its concrete types: its kernels are then compiled for each shape.
#pragma once

#include "engine/ir/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::schedule {

// "" when every node got its symbolic type (written into g); otherwise why not (g unchanged).
std::string symbolizeShapes(ir::Graph& g);

// The value of every symbol the placeholders' types name, indexed by symbol number (s<N> at
// N; unused numbers are 0). Throws std::runtime_error when one symbol has two values.
std::vector<int64_t> symbolValues(const ir::Graph& g);

}  // namespace kiln::schedule
