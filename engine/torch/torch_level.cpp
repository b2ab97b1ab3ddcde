// The frontend's side of passes::TorchLevel: lowering to ATen and eager runs of captured graphs
// (layers below the frontend) call the torch-level functions through it.
#include "engine/torch/torch_level.h"

#include "engine/passes/torch_level.h"
#include "engine/torch/torch_functions.h"

namespace kiln::torchapi {

namespace {

class Definitions final : public passes::TorchLevel {
 public:
  bool defined(const ir::Node& n) const override { return findTorchFn(n.target, n.kind) != nullptr; }
  ops::Val call(const ir::Node& n, ops::Dispatcher& d, std::vector<ops::Val> args,
                std::vector<std::pair<std::string, ops::Val>> kwargs) const override {
    const TorchFn* fn = findTorchFn(n.target, n.kind);
    if (!fn) throw std::logic_error("no torch-level definition of captured op " + n.target);
    TArgs ta;
    ta.args = std::move(args);
    ta.kwargs = std::move(kwargs);
    return fn->impl(d, ta);
  }
  bool isInplace(const ir::Node& n) const override { return isInplaceNode(n); }
  std::vector<tensor::Tensor> applyAutogradFunction(const ir::Node& n, const std::vector<tensor::Tensor>& inputs,
                                                    const std::vector<tensor::Tensor>& outputs,
                                                    const std::vector<tensor::Tensor>& saved) const override {
    return applyCapturedFunction(n, inputs, outputs, saved);
  }
};

}  // namespace

void installTorchLevel() {
  static const Definitions definitions;
  passes::setTorchLevel(&definitions);
}

}  // namespace kiln::torchapi
