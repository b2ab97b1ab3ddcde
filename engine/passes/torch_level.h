// How a captured (torch-level) node runs: torch.cos, Tensor.add_, x * 2, a
// torch.autograd.Function call. The definitions are the frontend's (engine/torch/
// torch_functions.h), a layer above passes and runtime; lowering to ATen (lower_to_aten.cpp) and
// running a captured graph eagerly (runtime::runTorchGraph) reach them through this interface,
// which engine/torch installs when it is linked in (engine/torch/torch_level.cpp).
#pragma once

#include "engine/ir/graph.h"
#include "engine/ops/op_table.h"

#include <string>
#include <utility>
#include <vector>

namespace kiln::passes {

// The captured node of a torch.autograd.Function call: autograd_function_apply(inputs, outputs,
// saved, ...) (engine/torch/autograd_function.cpp records it).
inline constexpr const char* kAutogradFunctionApply = "torch.ops.higher_order.autograd_function_apply";

class TorchLevel {
 public:
  virtual ~TorchLevel() = default;
  // Whether node n (its target and kind) has a torch-level definition.
  virtual bool defined(const ir::Node& n) const = 0;
  // Runs n's definition against `d` (eager, meta or graph-recording); n must be defined().
  virtual ops::Val call(const ir::Node& n, ops::Dispatcher& d, std::vector<ops::Val> args,
                        std::vector<std::pair<std::string, ops::Val>> kwargs) const = 0;
  // Whether n updates its first argument in place (an in-place method or x op= y).
  virtual bool isInplace(const ir::Node& n) const = 0;
  // The eager run of a kAutogradFunctionApply node (one input per Function argument).
  virtual std::vector<tensor::Tensor> applyAutogradFunction(const ir::Node& n, const std::vector<tensor::Tensor>& inputs,
                                                            const std::vector<tensor::Tensor>& outputs,
                                                            const std::vector<tensor::Tensor>& saved) const = 0;
};

// Installs the definitions (engine/torch does, at start-up); null uninstalls.
void setTorchLevel(const TorchLevel* impl);
// The installed definitions; throws std::logic_error when none are (engine/torch not linked in).
const TorchLevel& torchLevel();

}  // namespace kiln::passes
