#include "engine/autograd/node.h"

#include "engine/autograd/grad_mode.h"
#include "engine/ops/index_ops.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <limits>

namespace kiln::autograd {

using ops::Val;
using tensor::TorchError;

TorchError secondBackwardError() {
  return TorchError("RuntimeError",
                    "Trying to backward through the graph a second time (or directly access saved tensors after they "
                    "have already been freed). Saved intermediate values of the graph are freed when you call "
                    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                    "graph a second time or if you need to access saved tensors after calling backward.");
}

namespace {
std::atomic<uint64_t> nextSequenceNr{0};

InputMeta metaOf(const Tensor& t) { return {t.sizes(), t.dtype(), t.device()}; }

// A formula must not read saved tensors of a node whose saved tensors were freed; the
// released node hands formulas type-only values, and this dispatcher turns a use of one into
// PyTorch's error.
class BackwardDispatcher : public ops::Dispatcher {
 public:
  using Dispatcher::call;
  bool multiOutput() const override { return true; }
  Val call(const ops::OpDef& op, const std::vector<Val>& args) override {
    for (const auto& a : args) {
      bool freed = a.kind == Val::Kind::Sym;
      for (const auto& x : a.list) freed = freed || x.kind == Val::Kind::Sym;
      if (freed) throw secondBackwardError();
    }
    return eager_.call(op, args);
  }

 private:
  ops::EagerDispatcher eager_;
};

Val detached(const Val& v) {
  Val out = v;
  if (out.kind == Val::Kind::Tensor) out.t = out.t.detach();
  for (auto& x : out.list) x = detached(x);
  return out;
}

// After release: keep only types (shapes, dtypes) so shape-only formulas still work.
Val typeOnly(const Val& v) {
  if (v.kind == Val::Kind::Tensor) return Val::sym(v.t.type());
  Val out = v;
  for (auto& x : out.list) x = typeOnly(x);
  return out;
}

}  // namespace

Node::Node() : seq_(nextSequenceNr++) {}

AccumulateGrad::AccumulateGrad(std::shared_ptr<tensor::AutogradMeta> leaf, InputMeta meta) : leaf_(std::move(leaf)) {
  inputMeta_.push_back(meta);
  outputMeta.push_back(std::move(meta));
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grads) {
  Tensor g = grads.at(0);
  if (!g.defined()) return {};
  Tensor& dst = leaf_->grad;
  if (!dst.defined()) {
    // A fresh tensor, so later in-place updates of .grad never write into a graph buffer. As
    // PyTorch's AccumulateGrad, a gradient nothing else holds is kept as it is (no copy of a
    // weight-sized buffer per step): a dense, contiguous tensor over all of its storage, whose
    // storage only `g` and the incoming list refer to.
    if (isGradEnabled()) dst = g;
    else if (const auto& st = g.storage(); st && st.use_count() <= 2 && g.isContiguous() && g.offset() == 0 &&
                                           st->bytes() == static_cast<size_t>(g.numel()) * ir::itemSize(g.dtype()))
      dst = g.detach();
    else dst = g.detach().clone();
    return {};
  }
  if (isGradEnabled()) {  // create_graph: the sum is itself differentiable
    ops::EagerDispatcher d;
    dst = d.call("aten.add.Tensor", {Val::of(dst), Val::of(g)}).t;
    return {};
  }
  // grad += new_grad in place, as PyTorch does when grad mode is off: the eager add (typed and
  // split over the pool on the CPU, a kernel on a device: the host never reads device memory),
  // then a copy into .grad, so every tensor sharing .grad sees the sum.
  ops::EagerDispatcher d;
  Tensor sum = d.call("aten.add.Tensor", {Val::of(dst), Val::of(g)}).t;
  ops::copyInto(dst, sum);
  return {};
}

OpNode::OpNode(const ops::OpDef& op, const std::vector<Val>& args, const Val& result) : op_(op) {
  for (size_t i = 0; i < args.size(); ++i) {
    const Val& a = args[i];
    auto addEdge = [&](const Val& v, int listIdx) {
      if (v.kind != Val::Kind::Tensor) return;
      next_.push_back(v.t.requiresGrad() ? gradientEdge(v.t) : Edge{});
      inputMeta_.push_back(metaOf(v.t));
      edgeArg_.emplace_back(i, listIdx);
    };
    if (a.kind == Val::Kind::List)
      for (size_t j = 0; j < a.list.size(); ++j) addEdge(a.list[j], static_cast<int>(j));
    else addEdge(a, -1);
    saved_.push_back(detached(a));
  }
  savedResult_ = detached(result);
  if (result.kind == Val::Kind::List) {
    for (const auto& r : result.list) outputMeta.push_back(r.kind == Val::Kind::Tensor ? metaOf(r.t) : InputMeta{});
  } else {
    outputMeta.push_back(metaOf(result.t));
  }
}

void OpNode::release() {
  if (released_) return;
  released_ = true;
  for (auto& v : saved_) v = typeOnly(v);
  // PyTorch wraps a Python number operand of a pointwise op (x * 2) into a saved tensor,
  // so a second backward through such a node fails too; alpha stays an attribute.
  if (op_.kind == ops::OpKind::Pointwise)
    for (size_t i = 0; i < saved_.size() && i < 3; ++i)
      if (saved_[i].isScalar() && !(i == 2 && (op_.name == "aten.add.Tensor" || op_.name == "aten.sub.Tensor")))
        saved_[i] = Val::sym(ir::TensorType{});
  savedResult_ = typeOnly(savedResult_);
}

std::string OpNode::name() const { return backwardName(op_); }

std::vector<Tensor> OpNode::apply(std::vector<Tensor>&& grads) {
  if (!op_.backward) throw TorchError("RuntimeError", "the derivative for '" + op_.name + "' is not implemented in Kiln yet");
  Val gradOut;
  if (savedResult_.kind == Val::Kind::List) {
    std::vector<Val> gs;
    for (auto& g : grads) gs.push_back(g.defined() ? Val::of(g) : Val::none());
    gradOut = Val::listOf(std::move(gs));
  } else {
    gradOut = Val::of(grads.at(0));
  }
  ops::GradContext ctx{saved_, savedResult_, gradOut, std::vector<bool>(saved_.size(), false)};
  for (size_t k = 0; k < next_.size(); ++k)
    if (next_[k].valid()) ctx.needsGrad[edgeArg_[k].first] = true;
  std::vector<Tensor> out(next_.size());
  if (onlyEmptyInputsNeedGrad()) {
    // The gradient of an empty tensor is empty: the formula is not run, as ATen's backward
    // kernels return at once for an empty tensor. It could make a full-size intermediate of
    // the other dims (softmax's sum over dim 1 of a [2^40, 0] is 2^40 values).
    for (size_t k = 0; k < next_.size(); ++k) {
      if (!next_[k].valid()) continue;
      auto [arg, idx] = edgeArg_[k];
      const Val& in = idx < 0 ? saved_.at(arg) : saved_.at(arg).list.at(static_cast<size_t>(idx));
      const tensor::Device dev = in.kind == Val::Kind::Tensor && in.t.defined() ? in.t.device() : tensor::Device::cpu();
      out[k] = Tensor::empty(inputMeta_[k].sizes, inputMeta_[k].dtype, dev);
    }
    return out;
  }
  BackwardDispatcher d;
  std::vector<Val> argGrads = op_.backward(d, ctx);
  for (size_t k = 0; k < next_.size(); ++k) {
    if (!next_[k].valid()) continue;
    auto [arg, idx] = edgeArg_[k];
    if (arg >= argGrads.size()) continue;
    const Val& g = idx < 0 ? argGrads[arg]
                           : (argGrads[arg].kind == Val::Kind::List && size_t(idx) < argGrads[arg].list.size() ? argGrads[arg].list[idx]
                                                                                                               : Val::none());
    if (g.kind == Val::Kind::Tensor) out[k] = g.t;
  }
  return out;
}

bool OpNode::onlyEmptyInputsNeedGrad() const {
  bool any = false;
  for (size_t k = 0; k < next_.size(); ++k) {
    if (!next_[k].valid()) continue;
    const tensor::Shape& s = inputMeta_[k].sizes;
    if (std::find(s.begin(), s.end(), 0) == s.end()) return false;
    any = true;
  }
  return any;
}

Edge gradientEdge(const Tensor& t) {
  const auto& m = t.autograd();
  if (!m || !m->requiresGrad) return {};
  if (m->gradFn) return {m->gradFn, m->outputNr};
  std::shared_ptr<Node> acc = m->gradAccumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(m, InputMeta{t.sizes(), t.dtype(), t.device()});
    m->gradAccumulator = acc;
  }
  return {acc, 0};
}

std::string backwardName(const ops::OpDef& op) {
  if (!op.backwardName.empty()) return op.backwardName;
  // aten.native_layer_norm.default -> NativeLayerNormBackward0
  std::string base = op.name.substr(op.name.find('.') + 1);
  base = base.substr(0, base.find('.'));
  std::string out;
  bool up = true;
  for (char c : base) {
    if (c == '_') {
      up = true;
      continue;
    }
    out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return out + "Backward0";
}

}  // namespace kiln::autograd
