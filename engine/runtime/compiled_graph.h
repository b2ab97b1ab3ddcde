// A compiled graph: the wrapper Inductor calls output_code. An ordered list of kernel launches
// (generated code) and extern calls (eager kernels) over buffers; printable as text.
#pragma once

#include "engine/codegen/kernel_compiler.h"
#include "engine/ir/graph.h"
#include "engine/runtime/memory_plan.h"
#include "engine/schedule/kernel_builder.h"
#include "engine/tensor/tensor.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::runtime {

class CompiledGraph {
 public:
  CompiledGraph(ir::Graph fused, schedule::ScheduledGraph sched, std::shared_ptr<codegen::CompiledModule> module);
  // Runs on real tensors (one per graph input, in order); returns the graph outputs. With
  // `stepMs`, also the wall time of every step (schedule().steps order), for kiln bench.
  std::vector<tensor::Tensor> run(const std::vector<tensor::Tensor>& inputs, std::vector<double>* stepMs = nullptr) const;
  // The new values of mutated inputs, (input index, graph output index) as the functional graph
  // returns them, written straight into the inputs where the kernel making them may
  // (runtime/reinplace.h; checked again at each call). Returns output node -> input index.
  const std::map<int, size_t>& writeMutationsInPlace(const std::vector<std::pair<int, int>>& mutations);
  // The wrapper as Python-like text (def call(args): ... kernel launches ... return (...)).
  std::string wrapperText() const;
  const schedule::ScheduledGraph& schedule() const { return sched_; }
  const ir::Graph& graph() const { return g_; }

 private:
  std::string sizeListOrArg(const ir::Node& n, size_t i) const;
  ir::Graph g_;
  schedule::ScheduledGraph sched_;
  std::shared_ptr<codegen::CompiledModule> module_;
  MemoryPlan plan_;
  // Dynamic shapes: the values of the size symbols of the graph's placeholders (s<N> at N), the
  // array symbolic kernels read after their buffers. The graph's types are the shape it runs at.
  std::vector<int64_t> sizes_;
  // Slot storage, allocated on first use and kept across runs (intermediates only: graph
  // outputs are fresh tensors every run, so callers may keep them).
  mutable std::vector<tensor::Tensor> slots_;
  std::map<int, size_t> writeInto_;  // output node -> the input it is written into (writeMutationsInPlace)
};

// Runs a graph op by op with eager kernels: the aot_eager backend (ATen graphs) and the
// eager backend (captured graphs, through their torch-level definitions). A captured graph's
// in-place ops update the real tensors (inputs and their views see it, as in the program)
// unless `functional`: then they only make new values (a recomputation for autograd must not
// update the inputs a second time).
std::vector<tensor::Tensor> runAtenGraph(const ir::Graph& g, const std::vector<tensor::Tensor>& inputs);
std::vector<tensor::Tensor> runTorchGraph(const ir::Graph& g, const std::vector<tensor::Tensor>& inputs, bool functional = false);

}  // namespace kiln::runtime
