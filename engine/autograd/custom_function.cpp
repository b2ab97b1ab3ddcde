#include "engine/autograd/custom_function.h"

namespace kiln::autograd {

namespace {

class CustomFunctionNode : public Node {
 public:
  explicit CustomFunctionNode(CustomFunctionSpec spec) : spec_(std::move(spec)) {
    for (const auto& t : spec_.inputs) {
      next_.push_back(t.defined() && t.requiresGrad() ? gradientEdge(t) : Edge{});
      inputMeta_.push_back(t.defined() ? InputMeta{t.sizes(), t.dtype(), t.device()} : InputMeta{});
    }
  }

  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    if (!spec_.backward) throw secondBackwardError();
    for (size_t i = 0; i < grads.size() && i < outputMeta.size(); ++i)
      if (!grads[i].defined() && spec_.materializeGrads)
        grads[i] = Tensor::zeros(outputMeta[i].sizes, outputMeta[i].dtype).toDevice(outputMeta[i].device);
    std::vector<Tensor> out = spec_.backward(std::move(grads));
    const size_t n = spec_.inputs.size();
    // More gradients than arguments are allowed only when the extra ones are None.
    bool extra = out.size() < n;
    for (size_t i = n; i < out.size(); ++i) extra = extra || out[i].defined();
    if (extra)
      throw tensor::TorchError("RuntimeError", "function " + spec_.name + " returned an incorrect number of gradients (expected " +
                                                   std::to_string(n) + ", got " + std::to_string(out.size()) + ")");
    out.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (!next_[i].valid()) {
        out[i] = Tensor();
        continue;
      }
      if (!out[i].defined()) continue;
      if (out[i].sizes() != inputMeta_[i].sizes)
        throw tensor::TorchError("RuntimeError", "Function " + spec_.name + " returned an invalid gradient at index " + std::to_string(i) +
                                                     " - got " + tensor::shapeStr(out[i].sizes()) + " but expected shape compatible with " +
                                                     tensor::shapeStr(inputMeta_[i].sizes));
      if (out[i].dtype() != inputMeta_[i].dtype) out[i] = out[i].to(inputMeta_[i].dtype);
    }
    return out;
  }

  // After a backward without retain_graph: the user's backward (and through it ctx and its
  // saved tensors, whose grad_fn may be this node) is dropped, which also breaks that cycle.
  void release() override { spec_.backward = nullptr; }
  std::string name() const override { return spec_.name; }
  size_t numOutputs() const override { return outputMeta.size(); }

 private:
  CustomFunctionSpec spec_;
};

}  // namespace

void attachCustomFunction(CustomFunctionSpec spec, const std::vector<Tensor*>& outputs, const std::vector<bool>& differentiable) {
  auto node = std::make_shared<CustomFunctionNode>(std::move(spec));
  node->outputs.resize(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& t = *outputs[i];
    node->outputMeta.push_back(InputMeta{t.sizes(), t.dtype(), t.device()});
    if (i >= differentiable.size() || !differentiable[i] || !ir::isFloating(t.dtype())) continue;
    auto m = std::make_shared<tensor::AutogradMeta>();
    m->requiresGrad = true;
    m->gradFn = node;
    m->outputNr = static_cast<int>(i);
    t.setAutograd(m);
    node->outputs[i] = m;
  }
}

}  // namespace kiln::autograd
