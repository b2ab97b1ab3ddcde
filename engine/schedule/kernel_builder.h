// Lowers the fused graph to kernel IR and an execution order: one kir::Kernel per fused
// group, extern steps (eager kernels) for every other op, ordered so each step's inputs are
// ready (a topological order over kernels and externs).
#pragma once

#include "engine/ir/graph.h"
#include "engine/kir/kernel_ir.h"

#include <vector>

namespace kiln::schedule {

struct Step {
  enum class Kind { Kernel, Extern };
  Kind kind = Kind::Extern;
  int kernel = -1;              // index into ScheduledGraph::kernels
  int node = -1;                // Extern: the node to run eagerly
  std::vector<int> inputNodes;  // Kernel: node ids bound to the kernel's input buffers, in order
  // Kernel: per input, the element strides its loads assume (a view is read in place with the
  // strides its type records; anything else contiguously). The runtime re-lays an input out
  // when its actual strides differ.
  std::vector<std::vector<int64_t>> inputStrides;
  std::vector<int> outputNodes;  // Kernel: node ids its output buffers produce, in order
  // Kernel: (output node, input node) pairs where the output overwrites the input's buffer,
  // an `inout` buffer of the kernel (in_place.h); the output is not in outputNodes.
  std::vector<std::pair<int, int>> inPlace;
  // Extern: the implementation mode="max-autotune" pinned to this matrix product
  // (ops/gemm_algos.h) and what it measured, for the wrapper; both "" otherwise.
  std::string algo;
  std::string algoNote;
};

struct ScheduledGraph {
  std::vector<kir::Kernel> kernels;
  std::vector<Step> steps;
  int generatedNodes = 0;  // call nodes inside kernels
  int externNodes = 0;     // call nodes run as extern (eager) kernels
};

ScheduledGraph scheduleGraph(const ir::Graph& fused);

}  // namespace kiln::schedule
