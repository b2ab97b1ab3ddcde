#include "engine/autograd/compiled_function.h"

#include "engine/autograd/engine.h"
#include "engine/autograd/grad_mode.h"

namespace kiln::autograd {

namespace {

class CompiledFunctionNode : public Node {
 public:
  CompiledFunctionNode(GraphFn forward, BackwardFn compiled, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs)
      : forward_(std::move(forward)), compiled_(std::move(compiled)) {
    for (const auto& t : inputs) {
      next_.push_back(t.requiresGrad() ? gradientEdge(t) : Edge{});
      inputMeta_.push_back(InputMeta{t.sizes(), t.dtype(), t.device()});
      saved_.push_back(t.detach());
    }
    for (const auto& t : outputs) outputMeta.push_back(InputMeta{t.sizes(), t.dtype(), t.device()});
  }

  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    if (released_) throw secondBackwardError();
    if (compiled_ && !isGradEnabled()) {  // grad mode is on in backward only with create_graph=True
      if (std::optional<std::vector<Tensor>> out = compiled_(saved_, grads)) {
        for (size_t i = 0; i < out->size(); ++i)
          if (!next_[i].valid()) (*out)[i] = Tensor();
        return std::move(*out);
      }
    }
    std::vector<Tensor> leaves;
    {
      GradModeGuard on(true);
      for (size_t i = 0; i < saved_.size(); ++i) {
        if (next_[i].valid()) {
          Tensor leaf = saved_[i].detach();
          leaf.setRequiresGrad(true);
          leaves.push_back(leaf);
        } else {
          // A copy: the eager forward may update buffers in place (batch-norm running stats),
          // which the compiled forward already did once.
          leaves.push_back(saved_[i].clone());
        }
      }
      std::vector<Tensor> outs = forward_(leaves);
      std::vector<Tensor> roots, rootGrads;
      for (size_t j = 0; j < outs.size() && j < grads.size(); ++j)
        if (grads[j].defined() && outs[j].requiresGrad()) roots.push_back(outs[j]), rootGrads.push_back(grads[j]);
      if (!roots.empty()) backward(roots, rootGrads, /*retainGraph=*/false, /*createGraph=*/false);
    }
    std::vector<Tensor> out(saved_.size());
    for (size_t i = 0; i < saved_.size(); ++i)
      if (next_[i].valid() && leaves[i].autograd()) out[i] = leaves[i].autograd()->grad;
    return out;
  }

  void release() override {
    released_ = true;
    saved_.clear();
    compiled_ = nullptr;  // with a partitioned backward it holds the forward's saved activations
  }
  std::string name() const override { return "CompiledFunctionBackward"; }
  size_t numOutputs() const override { return outputMeta.size(); }

 private:
  GraphFn forward_;
  BackwardFn compiled_;
  std::vector<Tensor> saved_;
  bool released_ = false;
};

}  // namespace

void attachCompiledFunction(GraphFn eagerForward, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                            const std::vector<bool>& differentiable, BackwardFn compiledBackward) {
  auto node = std::make_shared<CompiledFunctionNode>(std::move(eagerForward), std::move(compiledBackward), inputs, outputs);
  node->outputs.resize(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (i >= differentiable.size() || !differentiable[i] || !ir::isFloating(outputs[i].dtype())) continue;
    auto m = std::make_shared<tensor::AutogradMeta>();
    m->requiresGrad = true;
    m->gradFn = node;
    m->outputNr = static_cast<int>(i);
    outputs[i].setAutograd(m);
    node->outputs[i] = m;
  }
}

}  // namespace kiln::autograd
