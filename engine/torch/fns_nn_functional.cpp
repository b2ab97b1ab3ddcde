// Torch-level torch.nn.functional functions (and their torch.* / Tensor-method spellings):
// softmax/log_softmax, layer_norm, batch_norm, dropout, gelu, losses (mse, nll, cross_entropy).
// Each lowers the way AOTAutograd does: F.softmax -> aten._softmax, F.layer_norm ->
// native_layer_norm[0], eval dropout -> clone, cross_entropy -> _log_softmax + nll_loss_forward.
#include "engine/ops/shape_util.h"
#include "engine/torch/torch_functions.h"

#include <limits>
#include <sstream>

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;
using tensor::TorchError;

namespace {

int64_t ndim(const Val& v) { return static_cast<int64_t>(v.tensorType().sizes.size()); }

// PyTorch's implicit softmax dim (deprecated, but still what dim=None means).
int64_t softmaxDim(const Val& x, const Val& dim) {
  if (!dim.isNone()) {
    if (dim.kind != Val::Kind::Int) throw TorchError("TypeError", "softmax(): argument 'dim' must be int");
    return dim.i;
  }
  int64_t nd = ndim(x);
  return (nd == 0 || nd == 1 || nd == 3) ? 0 : 1;
}

Val softmaxLike(Dispatcher& d, const TArgs& a, bool log, size_t dtypeAt) {
  const std::string fn = log ? "log_softmax" : "softmax";
  Val x = tensorArg(a, 0, "input", fn);
  int64_t dim = softmaxDim(x, opt(a, 1, "dim"));
  const Val& dtype = opt(a, dtypeAt, "dtype");
  if (dtype.kind == Val::Kind::DType && dtype.dtype != x.tensorType().dtype) x = d.call("prims.convert_element_type.default", {x, dtype});
  return d.call(log ? "aten._log_softmax.default" : "aten._softmax.default", {x, Val::integer(dim), Val::boolean(false)});
}

int64_t reductionCode(const Val& r, const std::string& fn) {
  if (r.isNone()) return 1;
  if (r.kind != Val::Kind::String) throw TorchError("TypeError", fn + "(): argument 'reduction' must be str");
  if (r.s == "none") return 0;
  if (r.s == "mean") return 1;
  if (r.s == "sum") return 2;
  throw TorchError("ValueError", r.s + " is not a valid value for reduction");
}

// nll_loss from single-output ops (core ATen's decomposition): gather the target's log
// probability, mask ignored targets, weight, reduce.
Val nllLossDecomposed(Dispatcher& d, const Val& logpIn, const Val& targetIn, const Val& weight, int64_t reduction, int64_t ignoreIndex) {
  Val logp = logpIn, target = targetIn;
  bool unbatched = ndim(logp) == 1;
  if (unbatched) {
    logp = d.call("aten.unsqueeze.default", {logp, Val::integer(0)});
    target = d.call("aten.unsqueeze.default", {target, Val::integer(0)});
  }
  Val mask = d.call("aten.ne.Tensor", {target, Val::integer(ignoreIndex)});
  Val safe = d.call("aten.where.self", {mask, target, Val::integer(0)});
  Val picked = d.call("aten.gather.default", {logp, Val::integer(1), d.call("aten.unsqueeze.default", {safe, Val::integer(1)})});
  Val loss = d.call("aten.neg.default", {d.call("aten.squeeze.dim", {picked, Val::integer(1)})});
  ir::DType dt = logp.tensorType().dtype;
  Val w = d.call("prims.convert_element_type.default", {mask, Val::dtypeVal(dt)});
  if (!weight.isNone()) {
    std::vector<Val> shape;
    for (auto s : ops::sizesOf(safe)) shape.push_back(Val::integer(s));
    Val flat = d.call("aten.view.default", {d.call("aten.clone.default", {safe}), Val::listOf({Val::integer(-1)})});
    Val wt = d.call("aten.view.default", {d.call("aten.index_select.default", {weight, Val::integer(0), flat}), Val::listOf(shape)});
    w = d.call("aten.mul.Tensor", {wt, w});
  }
  loss = d.call("aten.mul.Tensor", {loss, w});
  if (reduction == 0) return unbatched ? d.call("aten.squeeze.dim", {loss, Val::integer(0)}) : loss;
  Val total = d.call("aten.sum.default", {loss});
  if (reduction == 2) return total;
  return d.call("aten.div.Tensor", {total, d.call("aten.sum.default", {w})});
}

Val nllLoss(Dispatcher& d, const Val& logp, const Val& target, const Val& weight, int64_t reduction, int64_t ignoreIndex) {
  if (!d.multiOutput()) return nllLossDecomposed(d, logp, target, weight, reduction, ignoreIndex);
  Val r = d.call("aten.nll_loss_forward.default", {logp, target, weight, Val::integer(reduction), Val::integer(ignoreIndex)});
  return r.list.at(0);
}

Val applyReduction(Dispatcher& d, const Val& loss, int64_t reduction) {
  if (reduction == 0) return loss;
  return d.call(reduction == 1 ? "aten.mean.default" : "aten.sum.default", {loss});
}

// cross_entropy with class-index targets and label_smoothing > 0, as ATen's
// cross_entropy_loss_label_smoothing: (1 - ls) * nll_loss + ls / n_classes * the smoothing
// loss (minus the log probabilities summed over classes, weighted, 0 at ignored targets).
Val labelSmoothedNll(Dispatcher& d, const Val& logp, const Val& target, const Val& weight, int64_t reduction, int64_t ignoreIndex,
                     double ls, int64_t classDim, const tensor::Shape& inputSizes) {
  Val nll = nllLoss(d, logp, target, weight, reduction, ignoreIndex);
  Val ignoreMask = d.call("aten.eq.Tensor", {target, Val::integer(ignoreIndex)});
  const Val classes = Val::listOf({Val::integer(classDim)});
  Val smooth;
  if (!weight.isNone()) {
    std::vector<Val> shape(inputSizes.size(), Val::integer(1));
    shape[static_cast<size_t>(classDim)] = Val::integer(inputSizes[static_cast<size_t>(classDim)]);
    Val w = d.call("aten.view.default", {weight, Val::listOf(shape)});
    smooth = d.call("aten.sum.dim_IntList", {d.call("aten.mul.Tensor", {logp, w}), classes, Val::boolean(false)});
  } else {
    smooth = d.call("aten.sum.dim_IntList", {logp, classes, Val::boolean(false)});
  }
  smooth = d.call("aten.neg.default", {smooth});
  smooth = d.call("aten.masked_fill.Scalar", {smooth, ignoreMask, Val::real(0.0)});
  Val ret = smooth;
  if (reduction == 2) {
    ret = d.call("aten.sum.default", {smooth});
  } else if (reduction == 1) {
    Val total = d.call("aten.sum.default", {smooth});
    Val denominator;
    if (!weight.isNone()) {
      // weight.gather(0, target[~ignore]).sum(): the weights of the targets that count.
      Val safe = d.call("aten.masked_fill.Scalar", {target, ignoreMask, Val::integer(0)});
      Val flat = d.call("aten.view.default", {safe, Val::listOf({Val::integer(-1)})});
      Val w = d.call("aten.index_select.default", {weight, Val::integer(0), flat});
      Val keep = d.call("aten.view.default", {ignoreMask, Val::listOf({Val::integer(-1)})});
      denominator = d.call("aten.sum.default", {d.call("aten.masked_fill.Scalar", {w, keep, Val::real(0.0)})});
    } else {
      denominator = d.call("aten.sum.default", {d.call("aten.logical_not.default", {ignoreMask})});
    }
    ret = d.call("aten.div.Tensor", {total, denominator});
  }
  Val a = d.call("aten.mul.Tensor", {nll, Val::real(1.0 - ls)});
  Val b = d.call("aten.mul.Tensor", {ret, Val::real(ls / static_cast<double>(inputSizes.at(static_cast<size_t>(classDim))))});
  return d.call("aten.add.Tensor", {a, b});
}

}  // namespace

void registerNnFunctionalFns(std::vector<TorchFn>& t) {
  // softmax(input, dim=None, _stacklevel=3, dtype=None) / Tensor.softmax(dim, dtype=None)
  for (bool log : {false, true}) {
    std::string name = log ? "log_softmax" : "softmax";
    t.push_back({"torch.nn.functional." + name, ir::NodeKind::CallFunction,
                 [log](Dispatcher& d, const TArgs& a) { return softmaxLike(d, a, log, 3); }});
    t.push_back({"torch." + name, ir::NodeKind::CallFunction, [log](Dispatcher& d, const TArgs& a) { return softmaxLike(d, a, log, 2); }});
    t.push_back({name, ir::NodeKind::CallMethod, [log](Dispatcher& d, const TArgs& a) { return softmaxLike(d, a, log, 2); }});
  }
  // layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)
  t.push_back({"torch.nn.functional.layer_norm", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = tensorArg(a, 0, "input", "layer_norm");
                 Val shape = needArg(a, 1, "normalized_shape", "layer_norm");
                 if (shape.kind == Val::Kind::Int) shape = Val::listOf({shape});
                 const Val& eps = opt(a, 4, "eps");
                 // weight and bias are tensors or None (the kernel reads their elements).
                 for (auto [i, name] : {std::pair<size_t, const char*>{2, "weight"}, {3, "bias"}})
                   if (!opt(a, i, name).isNone()) tensorArg(a, i, name, "layer_norm");
                 std::vector<Val> args = {x, shape, opt(a, 2, "weight"), opt(a, 3, "bias"), eps.isNone() ? Val::real(1e-5) : eps};
                 // Without multi-output nodes the decomposition is recorded directly.
                 if (!d.multiOutput()) return ops::op("aten.native_layer_norm.default").decompose(d, args).list.at(0);
                 return d.call("aten.native_layer_norm.default", args).list.at(0);
               }});
  // batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05)
  t.push_back({"torch.nn.functional.batch_norm", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = tensorArg(a, 0, "input", "batch_norm");
                 const Val& rm = opt(a, 1, "running_mean");
                 const Val& rv = opt(a, 2, "running_var");
                 const Val& w = opt(a, 3, "weight");
                 const Val& b = opt(a, 4, "bias");
                 const Val* tr = a.get(5, "training");
                 bool training = tr && tr->kind == Val::Kind::Bool && tr->b;
                 const Val& mom = opt(a, 6, "momentum");
                 const Val& epsV = opt(a, 7, "eps");
                 Val momentum = mom.isNone() ? Val::real(0.1) : mom;
                 Val eps = epsV.isNone() ? Val::real(1e-5) : epsV;
                 tensor::Shape s = ops::sizesOf(x);
                 if (training) {
                   int64_t perChannel = 1;
                   for (size_t i = 0; i < s.size(); ++i)
                     if (i != 1) perChannel = tensor::sizeMul(perChannel, s[i]);
                   if (perChannel == 1) {
                     std::string sz = "torch.Size([";
                     for (size_t i = 0; i < s.size(); ++i) sz += (i ? ", " : "") + std::to_string(s[i]);
                     throw TorchError("ValueError", "Expected more than 1 value per channel when training, got input size " + sz + "])");
                   }
                   std::vector<Val> args = {x, w, b, rm, rv, Val::boolean(true), momentum, eps};
                   // In a graph: the decomposition, whose running-stat updates are input mutations.
                   if (!d.multiOutput()) return ops::op("aten._native_batch_norm_legit.default").decompose(d, args).list.at(0);
                   return d.call("aten._native_batch_norm_legit.default", args).list.at(0);
                 }
                 if (rm.isNone() || rv.isNone())
                   throw TorchError("ValueError", "running_mean and running_var must be defined in evaluation mode");
                 std::vector<Val> args = {x, w, b, rm, rv, momentum, eps};
                 if (!d.multiOutput()) return ops::op("aten._native_batch_norm_legit_no_training.default").decompose(d, args).list.at(0);
                 return d.call("aten._native_batch_norm_legit_no_training.default", args).list.at(0);
               }});
  // dropout(input, p=0.5, training=True, inplace=False): the identity copy unless training.
  auto dropout = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "dropout");
    const Val& pv = opt(a, 1, "p");
    double p = pv.isNone() ? 0.5 : pv.number();
    if (p < 0.0 || p > 1.0) throw TorchError("ValueError", "dropout probability has to be between 0 and 1, but got " + std::to_string(p));
    const Val* tr = a.get(2, "training");
    bool training = !tr || tr->isNone() || (tr->kind == Val::Kind::Bool && tr->b);
    if (!training || p == 0.0) return d.call("aten.clone.default", {x});
    if (!d.multiOutput()) throw TorchError("NotImplementedError", "training-mode dropout in a captured graph is not supported by Kiln yet");
    return d.call("aten.native_dropout.default", {x, Val::real(p), Val::boolean(true)}).list.at(0);
  };
  t.push_back({"torch.nn.functional.dropout", ir::NodeKind::CallFunction, dropout});
  t.push_back({"torch.dropout", ir::NodeKind::CallFunction, dropout});
  // gelu(input, approximate='none'): Dynamo records torch._C._nn.gelu; F.gelu is the same function.
  auto gelu = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "gelu");
    const Val& approx = opt(a, 1, "approximate");
    if (approx.isNone() || (approx.kind == Val::Kind::String && approx.s == "none")) return d.call("aten.gelu.default", {x});
    return d.call("aten.gelu.default", {x, approx});
  };
  t.push_back({"torch._C._nn.gelu", ir::NodeKind::CallFunction, gelu});
  t.push_back({"torch.nn.functional.gelu", ir::NodeKind::CallFunction, gelu});
  t.push_back({"gelu", ir::NodeKind::CallMethod, gelu});
  // mse_loss(input, target, size_average=None, reduce=None, reduction='mean'): core ATen
  // decomposes it to sub, pow 2, mean/sum.
  t.push_back({"torch.nn.functional.mse_loss", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = tensorArg(a, 0, "input", "mse_loss");
                 const Val& y = tensorArg(a, 1, "target", "mse_loss");
                 int64_t red = reductionCode(opt(a, 4, "reduction"), "mse_loss");
                 Val diff = d.call("aten.sub.Tensor", {x, y});
                 Val sq = d.call("aten.pow.Tensor_Scalar", {diff, Val::integer(2)});
                 return applyReduction(d, sq, red);
               }});
  // nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean')
  t.push_back({"torch.nn.functional.nll_loss", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = tensorArg(a, 0, "input", "nll_loss");
                 const Val& y = tensorArg(a, 1, "target", "nll_loss");
                 const Val& ig = opt(a, 4, "ignore_index");
                 return nllLoss(d, x, y, opt(a, 2, "weight"), reductionCode(opt(a, 6, "reduction"), "nll_loss"), ig.isNone() ? -100 : ig.i);
               }});
  // cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
  // reduction='mean', label_smoothing=0.0): log_softmax over the class dim + nll_loss; float
  // targets of the input's shape are class probabilities.
  t.push_back({"torch.nn.functional.cross_entropy", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = tensorArg(a, 0, "input", "cross_entropy");
                 const Val& y = tensorArg(a, 1, "target", "cross_entropy");
                 const Val& ig = opt(a, 4, "ignore_index");
                 int64_t red = reductionCode(opt(a, 6, "reduction"), "cross_entropy");
                 const Val& lsv = opt(a, 7, "label_smoothing");
                 const double ls = lsv.isNone() ? 0.0 : lsv.number();
                 if (ls < 0.0 || ls > 1.0) {
                   std::ostringstream msg;
                   msg << "label_smoothing must be between 0.0 and 1.0. Got: " << ls;
                   throw TorchError("RuntimeError", msg.str());
                 }
                 int64_t classDim = ndim(x) == 1 ? 0 : 1;
                 Val logp = d.call("aten._log_softmax.default", {x, Val::integer(classDim), Val::boolean(false)});
                 const Val& weight = opt(a, 2, "weight");
                 const int64_t ignoreIndex = ig.isNone() ? -100 : ig.i;
                 if (ls > 0.0 && !ir::isFloating(y.tensorType().dtype))
                   return labelSmoothedNll(d, logp, y, weight, red, ignoreIndex, ls, classDim, ops::sizesOf(x));
                 if (ir::isFloating(y.tensorType().dtype)) {
                   // Smoothed probabilities: target * (1 - ls) + ls / n_classes.
                   Val target = y;
                   if (ls > 0.0) {
                     Val scaled = d.call("aten.mul.Tensor", {y, Val::real(1.0 - ls)});
                     target = d.call("aten.add.Tensor",
                                     {scaled, Val::real(ls / static_cast<double>(ops::sizesOf(x).at(static_cast<size_t>(classDim))))});
                   }
                   if (!opt(a, 2, "weight").isNone())
                     throw TorchError("NotImplementedError",
                                      "cross_entropy with probability targets and weight is not supported by Kiln yet");
                   Val prod = d.call("aten.mul.Tensor", {logp, target});
                   Val s = d.call("aten.sum.dim_IntList", {prod, Val::listOf({Val::integer(classDim)}), Val::boolean(false)});
                   Val loss = d.call("aten.neg.default", {s});
                   if (red == 1) {
                     // mean over the batch (every non-class element), as PyTorch divides by N.
                     tensor::Shape xs = ops::sizesOf(x);
                     int64_t n = 1;
                     for (size_t i = 0; i < xs.size(); ++i)
                       if (static_cast<int64_t>(i) != classDim) n = tensor::sizeMul(n, xs[i]);
                     Val total = d.call("aten.sum.default", {loss});
                     return d.call("aten.div.Tensor", {total, Val::integer(n)});
                   }
                   return applyReduction(d, loss, red);
                 }
                 return nllLoss(d, logp, y, weight, red, ignoreIndex);
               }});
  // leaky_relu(input, negative_slope=0.01, inplace=False): x > 0 ? x : x * negative_slope.
  t.push_back({"torch.nn.functional.leaky_relu", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = tensorArg(a, 0, "input", "leaky_relu");
                 const Val& slope = opt(a, 1, "negative_slope");
                 const Val& inplace = opt(a, 2, "inplace");
                 if (inplace.kind == Val::Kind::Bool && inplace.b)
                   throw TorchError("NotImplementedError", "leaky_relu(inplace=True) is not supported by Kiln yet");
                 Val positive = d.call("aten.gt.Tensor", {x, Val::integer(0)});
                 Val scaled = d.call("aten.mul.Tensor", {x, slope.isNone() ? Val::real(0.01) : slope});
                 return d.call("aten.where.self", {positive, x, scaled});
               }});
  // mish(input, inplace=False): x * tanh(softplus(x)), softplus(x) = log1p(exp(x)) as ATen's CPU kernel.
  t.push_back({"torch.nn.functional.mish", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = tensorArg(a, 0, "input", "mish");
                 const Val& inplace = opt(a, 1, "inplace");
                 if (inplace.kind == Val::Kind::Bool && inplace.b)
                   throw TorchError("NotImplementedError", "mish(inplace=True) is not supported by Kiln yet");
                 Val softplus = d.call("aten.log1p.default", {d.call("aten.exp.default", {x})});
                 return d.call("aten.mul.Tensor", {x, d.call("aten.tanh.default", {softplus})});
               }});
  // smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', beta=1.0):
  // |d| < beta ? 0.5 * d * d / beta : |d| - 0.5 * beta (beta == 0: the L1 loss).
  t.push_back({"torch.nn.functional.smooth_l1_loss", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = tensorArg(a, 0, "input", "smooth_l1_loss");
                 const Val& y = tensorArg(a, 1, "target", "smooth_l1_loss");
                 int64_t red = reductionCode(opt(a, 4, "reduction"), "smooth_l1_loss");
                 const Val& betaV = opt(a, 5, "beta");
                 double beta = betaV.isNone() ? 1.0 : betaV.number();
                 if (beta < 0) throw TorchError("RuntimeError", "smooth_l1_loss does not support negative values for beta.");
                 Val z = d.call("aten.abs.default", {d.call("aten.sub.Tensor", {x, y})});
                 if (beta == 0.0) return applyReduction(d, z, red);
                 Val quadratic = d.call("aten.div.Tensor",
                                        {d.call("aten.mul.Tensor", {d.call("aten.mul.Tensor", {z, Val::real(0.5)}), z}), Val::real(beta)});
                 Val linear = d.call("aten.sub.Tensor", {z, Val::real(0.5 * beta)});
                 Val small = d.call("aten.lt.Tensor", {z, Val::real(beta)});
                 return applyReduction(d, d.call("aten.where.self", {small, quadratic, linear}), red);
               }});
  // rms_norm(input, normalized_shape, weight=None, eps=None): ATen's composite kernel,
  // x * rsqrt(mean(x^2 over the normalized dims) + eps) * weight; eps defaults to the dtype's.
  t.push_back({"torch.nn.functional.rms_norm", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = tensorArg(a, 0, "input", "rms_norm");
                 Val shape = needArg(a, 1, "normalized_shape", "rms_norm");
                 if (shape.kind == Val::Kind::Int) shape = Val::listOf({shape});
                 const Val& weight = opt(a, 2, "weight");
                 const Val& epsV = opt(a, 3, "eps");
                 tensor::Shape xs = ops::sizesOf(x);
                 const size_t n = shape.list.size();
                 bool fits = n <= xs.size();
                 for (size_t i = 0; fits && i < n; ++i) fits = shape.list[i].i == xs[xs.size() - n + i];
                 if (!fits) {
                   std::string want = "[", got = "[";
                   for (size_t i = 0; i < n; ++i) want += (i ? ", " : "") + std::to_string(shape.list[i].i);
                   for (size_t i = 0; i < xs.size(); ++i) got += (i ? ", " : "") + std::to_string(xs[i]);
                   throw TorchError("RuntimeError", "Given normalized_shape=" + want + "], expected input with shape [*, " +
                                                        want.substr(1) + "], but got input of size" + got + "]");
                 }
                 std::vector<Val> dims;
                 for (size_t i = 0; i < n; ++i) dims.push_back(Val::integer(static_cast<int64_t>(xs.size() - n + i)));
                 const bool dbl = x.tensorType().dtype == ir::DType::Float64;
                 Val eps =
                     epsV.isNone() ? Val::real(dbl ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon()) : epsV;
                 Val sq = d.call("aten.pow.Tensor_Scalar", {x, Val::integer(2)});
                 Val ms = d.call("aten.mean.dim", {sq, Val::listOf(dims), Val::boolean(true)});
                 Val r = d.call("aten.rsqrt.default", {d.call("aten.add.Tensor", {ms, eps})});
                 Val out = d.call("aten.mul.Tensor", {x, r});
                 return weight.isNone() ? out : d.call("aten.mul.Tensor", {out, weight});
               }});
  // normalize(input, p=2.0, dim=1, eps=1e-12): x / max(norm, eps)
  t.push_back({"torch.nn.functional.normalize", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& x = tensorArg(a, 0, "input", "normalize");
                 const Val& p = opt(a, 1, "p");
                 const Val& dim = opt(a, 2, "dim");
                 const Val& eps = opt(a, 3, "eps");
                 Val n = d.call("aten.linalg_vector_norm.default",
                                {x, p.isNone() ? Val::real(2.0) : p, Val::listOf({dim.isNone() ? Val::integer(1) : dim}),
                                 Val::boolean(true), Val::none()});
                 Val den = d.call("aten.clamp_min.default", {n, eps.isNone() ? Val::real(1e-12) : eps});
                 Val e = d.call("aten.expand.default", {den, [&] {
                                                          std::vector<Val> v;
                                                          for (auto s : ops::sizesOf(x)) v.push_back(Val::integer(s));
                                                          return Val::listOf(v);
                                                        }()});
                 return d.call("aten.div.Tensor", {x, e});
               }});
}

}  // namespace kiln::torchapi
