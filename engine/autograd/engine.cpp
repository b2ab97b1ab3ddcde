#include "engine/autograd/engine.h"

#include "engine/autograd/derivative_util.h"
#include "engine/autograd/grad_mode.h"
#include "engine/autograd/node.h"

#include <limits>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace kiln::autograd {

using ops::Val;
using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

namespace {

// The virtual node that feeds the roots' gradients into the graph (PyTorch's GraphRoot).
class GraphRoot : public Node {
 public:
  GraphRoot(std::vector<Edge> edges, std::vector<Tensor> grads) : grads_(std::move(grads)) { next_ = std::move(edges); }
  std::vector<Tensor> apply(std::vector<Tensor>&&) override { return grads_; }
  std::string name() const override { return "GraphRoot"; }
  size_t numOutputs() const override { return 0; }

 private:
  std::vector<Tensor> grads_;
};

bool expandableTo(const Shape& from, const Shape& to) {
  // `to` broadcast to `from`?
  if (to.size() > from.size()) return false;
  size_t lead = from.size() - to.size();
  for (size_t i = 0; i < to.size(); ++i)
    if (to[i] != 1 && to[i] != from[lead + i]) return false;
  return true;
}

Tensor add(const Tensor& a, const Tensor& b) {
  ops::EagerDispatcher d;
  return d.call("aten.add.Tensor", {Val::of(a), Val::of(b)}).t;
}

// Checks and adapts a gradient to the input it is for (engine.cpp validate_outputs).
Tensor validate(const Node& fn, size_t index, Tensor g, const InputMeta& meta) {
  if (g.sizes() != meta.sizes) {
    if (!expandableTo(g.sizes(), meta.sizes))
      throw TorchError("RuntimeError", "Function " + fn.name() + " returned an invalid gradient at index " + std::to_string(index) +
                                           " - got " + tensor::shapeStr(g.sizes()) + " but expected shape compatible with " +
                                           tensor::shapeStr(meta.sizes));
    ops::EagerDispatcher d;
    g = dv::sumTo(d, Val::of(g), meta.sizes).t;
  }
  ops::EagerDispatcher d;
  return dv::toDType(d, Val::of(g), meta.dtype).t;
}

}  // namespace

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads, bool retainGraph, bool createGraph) {
  GradModeGuard mode(createGraph);
  std::vector<Edge> rootEdges;
  std::vector<Tensor> rootGrads;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    if (!r.requiresGrad())
      throw TorchError("RuntimeError", "element " + std::to_string(i) + " of tensors does not require grad and does not have a grad_fn");
    Tensor g = i < grads.size() ? grads[i] : Tensor();
    if (!g.defined()) {
      if (r.numel() != 1) throw TorchError("RuntimeError", "grad can be implicitly created only for scalar outputs");
      g = Tensor::full(r.sizes(), 1.0, r.dtype());
      if (!r.isCpu()) g = g.toDevice(r.device());  // ones_like(output): on the output's device
    } else if (g.sizes() != r.sizes()) {
      throw TorchError("RuntimeError", "Mismatch in shape: grad_output[" + std::to_string(i) + "] has a shape of " +
                                           tensor::shapeStr(g.sizes()) + " and output[" + std::to_string(i) + "] has a shape of " +
                                           tensor::shapeStr(r.sizes()) + ".");
    }
    rootEdges.push_back(gradientEdge(r));
    rootGrads.push_back(g);
  }
  auto root = std::make_shared<GraphRoot>(rootEdges, rootGrads);

  // Dependencies: how many edges lead into each node reachable from the root.
  std::unordered_map<Node*, int> deps;
  {
    std::vector<Node*> stack{root.get()};
    std::unordered_set<Node*> seen{root.get()};
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      for (const auto& e : n->next()) {
        if (!e.valid()) continue;
        deps[e.fn.get()]++;
        if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
      }
    }
  }

  auto later = [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) {
    // AccumulateGrad runs as soon as it is ready (PyTorch gives it the highest priority).
    auto prio = [](const Node& n) {
      return dynamic_cast<const AccumulateGrad*>(&n) ? std::numeric_limits<uint64_t>::max() : n.sequenceNr();
    };
    return prio(*a) < prio(*b);
  };
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, decltype(later)> ready(later);
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  ready.push(root);
  while (!ready.empty()) {
    std::shared_ptr<Node> fn = ready.top();
    ready.pop();
    std::vector<Tensor> in = std::move(buffers[fn.get()]);
    buffers.erase(fn.get());
    in.resize(fn->numOutputs());
    // Results of this node that asked for retain_grad() get their gradient now.
    for (size_t k = 0; k < fn->outputs.size() && k < in.size(); ++k) {
      auto m = fn->outputs[k].lock();
      if (!m || !m->retainsGrad || !in[k].defined()) continue;
      m->grad = m->grad.defined() ? add(m->grad, in[k]) : in[k].detach().clone();
    }
    // A multi-result node may get no gradient for some results: zeros, as PyTorch materializes.
    if (fn->numOutputs() == 1 && !in[0].defined() && !fn->outputMeta.empty())
      in[0] = Tensor::zeros(fn->outputMeta[0].sizes, fn->outputMeta[0].dtype).toDevice(fn->outputMeta[0].device);
    std::vector<Tensor> out;
    try {
      out = fn->apply(std::move(in));
    } catch (const TorchError& e) {
      // Which backward node lacked a kernel (a device tensor without a CUDA kernel, most often).
      if (std::string(e.type()) != "NotImplementedError" || std::string(e.what()).find(" (in ") != std::string::npos) throw;
      throw TorchError(e.type(), std::string(e.what()) + " (in " + fn->name() + ")");
    }
    if (auto* acc = dynamic_cast<AccumulateGrad*>(fn.get())) {
      // Copied first: a hook may register or remove hooks.
      auto hooks = acc->leaf()->postAccumulateGradHooks;
      for (const auto& h : hooks) h();
    }
    if (!retainGraph) fn->release();
    const auto& edges = fn->next();
    for (size_t k = 0; k < edges.size(); ++k) {
      const Edge& e = edges[k];
      if (!e.valid()) continue;
      if (k < out.size() && out[k].defined()) {
        Tensor g = fn.get() == root.get() ? out[k] : validate(*fn, k, out[k], fn->inputMeta()[k]);
        auto& buf = buffers[e.fn.get()];
        if (buf.size() < e.fn->numOutputs()) buf.resize(e.fn->numOutputs());
        Tensor& slot = buf[static_cast<size_t>(e.inputNr)];
        slot = slot.defined() ? add(slot, g) : g;
      }
      if (--deps[e.fn.get()] == 0) ready.push(e.fn);
    }
  }
}

}  // namespace kiln::autograd
