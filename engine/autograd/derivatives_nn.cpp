// Derivatives of the neural-network ops: softmax, layer and batch norm, nll_loss, gelu,
// clamp, convolution, pooling, padding, and the remaining unary math.
#include "engine/autograd/derivative_util.h"

#include <cmath>

namespace kiln::autograd::dv {

namespace {

int64_t wrapDim(int64_t d, size_t nd) { return d < 0 ? d + static_cast<int64_t>(nd) : d; }

Val sumDims(Dispatcher& d, const Val& x, const std::vector<int64_t>& dims, bool keep) {
  std::vector<Val> ds;
  for (auto v : dims) ds.push_back(Val::integer(v));
  return d.call("aten.sum.dim_IntList", {x, Val::listOf(ds), Val::boolean(keep)});
}

// [1, C, 1, ...]: a per-channel vector shaped to broadcast against x (channel dim 1).
Shape channelShape(const Shape& xs) {
  Shape s(xs.size(), 1);
  if (xs.size() > 1) s[1] = xs[1];
  else if (!xs.empty()) s[0] = xs[0];
  return s;
}

std::vector<int64_t> allBut(size_t nd, int64_t keep) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < nd; ++i)
    if (int64_t(i) != keep) out.push_back(int64_t(i));
  return out;
}

const Val& listItem(const Val& v, size_t i) {
  static const Val none;
  return v.kind == Val::Kind::List && i < v.list.size() ? v.list[i] : none;
}

// batch_norm_backward in training mode (statistics of this batch):
// dx = (dy - mean(dy) - (x - mean) * sum((x - mean) * dy) * invstd^2 / N) * invstd * w
std::vector<Val> batchNormTrainGrad(Dispatcher& d, const GradContext& c, const Val& mean, const Val& invstd) {
  const Val& x = c.inputs[0];
  const Val& w = c.inputs.at(1);
  const Val& g = c.gradOutput.list.at(0);
  if (g.isNone()) return {};
  Shape xs = sizesOf(x), cs = channelShape(xs);
  auto red = allBut(xs.size(), 1);
  double n = 1;
  for (auto r : red) n *= double(xs[size_t(r)]);
  Val meanB = viewAs(d, mean, cs), invB = viewAs(d, invstd, cs);
  Val centered = sub(d, x, meanB);
  Val sumDy = sumDims(d, g, red, false);
  Val dotp = sumDims(d, mul(d, centered, g), red, false);
  Val gx = Val::none(), gw = Val::none(), gb = Val::none();
  if (c.needs(0)) {
    Val k = div(d, mul(d, dotp, mul(d, invstd, invstd)), num(n));
    Val t = sub(d, sub(d, g, viewAs(d, div(d, sumDy, num(n)), cs)), mul(d, centered, viewAs(d, k, cs)));
    Val scale = w.isNone() ? invB : mul(d, invB, viewAs(d, w, cs));
    gx = mul(d, t, scale);
  }
  if (c.needs(1)) gw = mul(d, dotp, invstd);
  if (c.needs(2)) gb = sumDy;
  return {gx, gw, gb};
}

// Eval mode: the running statistics are constants.
std::vector<Val> batchNormEvalGrad(Dispatcher& d, const GradContext& c, const Val& rm, const Val& rv, double eps) {
  const Val& x = c.inputs[0];
  const Val& w = c.inputs.at(1);
  const Val& g = c.gradOutput.list.at(0);
  if (g.isNone()) return {};
  Shape xs = sizesOf(x), cs = channelShape(xs);
  auto red = allBut(xs.size(), 1);
  Val invstd = un(d, "rsqrt", add(d, rv, num(eps)));
  Val invB = viewAs(d, invstd, cs);
  Val gx = Val::none(), gw = Val::none(), gb = Val::none();
  if (c.needs(0)) gx = mul(d, g, w.isNone() ? invB : mul(d, invB, viewAs(d, w, cs)));
  if (c.needs(1)) gw = sumDims(d, mul(d, g, mul(d, sub(d, x, viewAs(d, rm, cs)), invB)), red, false);
  if (c.needs(2)) gb = sumDims(d, g, red, false);
  return {gx, gw, gb};
}

Val pairList(const Val& v, size_t n, int64_t dflt) {
  std::vector<Val> out;
  std::vector<int64_t> xs = v.isNone() ? std::vector<int64_t>{} : v.ints();
  for (size_t i = 0; i < n; ++i) out.push_back(Val::integer(xs.empty() ? dflt : xs.size() == 1 ? xs[0] : xs[i]));
  return Val::listOf(out);
}

// The input gradient of the convolution x * w -> g: the transposed convolution of g with w,
// padded out to x's size (xs).
Val convInputGrad(Dispatcher& d, const Val& g, const Val& w, const Shape& xs, const Val& stride, const Val& padding, const Val& dilation,
                  int64_t groups) {
  Shape ws = sizesOf(w), gs = sizesOf(g);
  std::vector<Val> outPad;
  for (size_t i = 0; i + 2 < xs.size(); ++i) {
    int64_t s = stride.list[i].i, p = padding.list[i].i, dl = dilation.list[i].i, k = ws[2 + i];
    outPad.push_back(Val::integer(xs[2 + i] - ((gs[2 + i] - 1) * s - 2 * p + dl * (k - 1) + 1)));
  }
  return d.call("aten.convolution.default",
                {g, w, Val::none(), stride, padding, dilation, Val::boolean(true), Val::listOf(outPad), Val::integer(groups)});
}

// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
std::vector<Val> convolutionGrad(Dispatcher& d, const GradContext& c) {
  const Val& x = c.inputs[0];
  const Val& w = c.inputs[1];
  const Val& g = c.gradOutput;
  if (arg(c, 6).kind == Val::Kind::Bool && arg(c, 6).b)
    throw tensor::TorchError("NotImplementedError", "the derivative of a transposed convolution is not implemented in Kiln yet");
  Shape xs = sizesOf(x), ws = sizesOf(w), gs = sizesOf(g);
  size_t sp = xs.size() - 2;  // spatial dims
  Val stride = pairList(arg(c, 3), sp, 1), padding = pairList(arg(c, 4), sp, 0), dilation = pairList(arg(c, 5), sp, 1);
  int64_t groups = arg(c, 8).isNone() ? 1 : arg(c, 8).i;
  Val gx = Val::none(), gw = Val::none(), gb = Val::none();
  if (c.needs(0)) gx = convInputGrad(d, g, w, xs, stride, padding, dilation, groups);
  // One weight-gradient op, as PyTorch's convolution_backward: oneDNN's backward weights on the
  // CPU (f32; im2col for f64), cuDNN's backward filter on CUDA (runtime/cuda_conv.cpp).
  if (c.needs(1)) gw = d.call("kiln.convolution_weight_grad.default", {g, x, intList(ws), stride, padding, dilation, Val::integer(groups)});
  if (c.needs(2)) gb = sumDims(d, g, allBut(gs.size(), 1), false);
  return {gx, gw, gb};
}

// kiln.convolution_weight_grad(grad_output, input, weight_size, stride, padding, dilation,
// groups) is bilinear in grad_output and input: given its gradient gw (a weight), grad_output's
// is the convolution of input with gw and input's the transposed convolution of grad_output
// with gw (double backward through a convolution).
std::vector<Val> convolutionWeightGradGrad(Dispatcher& d, const GradContext& c) {
  const Val& g = c.inputs[0];
  const Val& x = c.inputs[1];
  const Val& gw = c.gradOutput;
  Shape xs = sizesOf(x);
  size_t sp = xs.size() - 2;
  Val stride = pairList(arg(c, 3), sp, 1), padding = pairList(arg(c, 4), sp, 0), dilation = pairList(arg(c, 5), sp, 1);
  int64_t groups = arg(c, 6).isNone() ? 1 : arg(c, 6).i;
  Val gg = Val::none(), gx = Val::none();
  if (c.needs(0))
    gg = d.call("aten.convolution.default", {x, gw, Val::none(), stride, padding, dilation, Val::boolean(false),
                                             Val::listOf(std::vector<Val>(sp, Val::integer(0))), Val::integer(groups)});
  if (c.needs(1)) gx = convInputGrad(d, g, gw, xs, stride, padding, dilation, groups);
  return {gg, gx};
}

// Max pooling: the gradient goes to the position each window's maximum came from
// (indices are flat h * W + w within each plane).
Val maxPoolGrad(Dispatcher& d, const Val& g, const Val& x, const Val& indices) {
  Shape xs = sizesOf(x), gs = sizesOf(g);
  // Products wrap (tensor::sizeMul): only an empty input's can overflow, a wrapped product of
  // dims that include its 0 is still 0, and the result is viewed back to xs.
  int64_t planes = 1;
  for (size_t i = 0; i + 2 < xs.size(); ++i) planes = tensor::sizeMul(planes, xs[i]);
  const int64_t gPlane = tensor::sizeMul(gs[gs.size() - 2], gs.back()), xPlane = tensor::sizeMul(xs[xs.size() - 2], xs.back());
  Val flatG = viewAs(d, g, {planes, gPlane});
  Val flatI = viewAs(d, indices, {planes, gPlane});
  // full makes a CPU tensor: on x's device (a CUDA input's gradient is scattered there).
  Val zeros =
      onDeviceOf(d, d.call("aten.full.default", {intList({planes, xPlane}), Val::real(0.0), Val::dtypeVal(x.tensorType().dtype)}), x);
  return viewAs(d, d.call("aten.scatter_add.default", {zeros, Val::integer(1), flatI, flatG}), xs);
}

}  // namespace

void registerNnDerivatives(std::vector<ops::OpDef>& t) {
  // _softmax_backward_data: y * (g - sum(g * y, dim))
  def(t, "aten._softmax.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& y = c.output;
    std::vector<int64_t> dim{wrapDim(c.inputs.at(1).i, sizesOf(y).size())};
    if (sizesOf(y).empty()) return {mul(d, c.gradOutput, num(0))};
    Val gy = mul(d, c.gradOutput, y);
    return {sub(d, gy, mul(d, y, sumDims(d, gy, dim, true)))};
  });
  // _log_softmax_backward_data: g - exp(y) * sum(g, dim)
  def(t, "aten._log_softmax.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& y = c.output;
    if (sizesOf(y).empty()) return {mul(d, c.gradOutput, num(0))};
    std::vector<int64_t> dim{wrapDim(c.inputs.at(1).i, sizesOf(y).size())};
    return {sub(d, c.gradOutput, mul(d, un(d, "exp", y), sumDims(d, c.gradOutput, dim, true)))};
  });
  // native_layer_norm(x, normalized_shape, weight, bias, eps) -> (out, mean, rstd)
  def(t, "aten.native_layer_norm.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& g = c.gradOutput.list.at(0);
    if (g.isNone()) return {};
    const Val& x = c.inputs[0];
    const Val& w = c.inputs.at(2);
    Shape xs = sizesOf(x);
    size_t axis = xs.size() - c.inputs.at(1).ints().size();
    std::vector<int64_t> inner, outer;
    double n = 1;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (i >= axis) {
        inner.push_back(int64_t(i));
        n *= double(xs[i]);
      } else outer.push_back(int64_t(i));
    }
    Shape statShape(xs.begin(), xs.begin() + int64_t(axis));
    statShape.resize(xs.size(), 1);
    Val mean = viewAs(d, c.output.list.at(1), statShape), rstd = viewAs(d, c.output.list.at(2), statShape);
    Val xhat = mul(d, sub(d, x, mean), rstd);
    Val gx = Val::none(), gw = Val::none(), gb = Val::none();
    if (c.needs(0)) {
      Val gxhat = w.isNone() ? g : mul(d, g, w);
      // rstd / N * (N * gxhat - sum(gxhat) - xhat * sum(gxhat * xhat))
      Val inside =
          sub(d, sub(d, mul(d, gxhat, num(n)), sumDims(d, gxhat, inner, true)), mul(d, xhat, sumDims(d, mul(d, gxhat, xhat), inner, true)));
      gx = mul(d, div(d, rstd, num(n)), inside);
    }
    if (c.needs(2)) gw = outer.empty() ? mul(d, g, xhat) : sumDims(d, mul(d, g, xhat), outer, false);
    if (c.needs(3)) gb = outer.empty() ? g : sumDims(d, g, outer, false);
    return {gx, Val::none(), gw, gb};
  });
  // (x, weight, bias, running_mean, running_var, training, momentum, eps) -> (out, save_mean, save_invstd)
  for (const char* n : {"aten._native_batch_norm_legit.default", "aten._native_batch_norm_legit_functional.default"})
    def(
        t, n,
        [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
          bool training = arg(c, 5).kind != Val::Kind::Bool || arg(c, 5).b;
          if (!training) return batchNormEvalGrad(d, c, arg(c, 3), arg(c, 4), arg(c, 7).number());
          return batchNormTrainGrad(d, c, c.output.list.at(1), c.output.list.at(2));
        },
        "NativeBatchNormBackward0");
  // (x, weight, bias, running_mean, running_var, momentum, eps)
  def(
      t, "aten._native_batch_norm_legit_no_training.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
        return batchNormEvalGrad(d, c, arg(c, 3), arg(c, 4), arg(c, 6).number());
      },
      "NativeBatchNormBackward0");
  // nll_loss_forward(self, target, weight, reduction, ignore_index) -> (output, total_weight):
  // -weight[target] * grad at each target position (divided by total_weight for 'mean').
  def(
      t, "aten.nll_loss_forward.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
        const Val& g = c.gradOutput.list.at(0);
        if (g.isNone()) return {};
        const Val& x = c.inputs[0];
        const Val& target = c.inputs.at(1);
        const Val& weight = arg(c, 2);
        int64_t reduction = arg(c, 3).isNone() ? 1 : arg(c, 3).i;
        int64_t ignore = arg(c, 4).isNone() ? -100 : arg(c, 4).i;
        Shape xs = sizesOf(x);
        size_t cdim = xs.size() >= 2 ? 1 : 0;
        Shape cs(xs.size(), 1);
        cs[cdim] = xs[cdim];
        Val classes = viewAs(
            d,
            d.call("aten.arange.start_step", {Val::integer(0), Val::integer(xs[cdim]), Val::integer(1), Val::dtypeVal(ir::DType::Int64)}),
            cs);
        classes = onDeviceOf(d, classes, target);  // arange makes a CPU tensor
        Shape ts = xs;
        ts[cdim] = 1;
        Val tgt = viewAs(d, target, ts);
        Val hit = mul(d, cmp(d, "eq", classes, tgt), cmp(d, "ne", tgt, Val::integer(ignore)));
        Val coef = d.call("prims.convert_element_type.default", {hit, Val::dtypeVal(x.tensorType().dtype)});
        if (!weight.isNone()) coef = mul(d, coef, viewAs(d, weight, cs));
        Val scale = g;
        if (reduction == 0) scale = viewAs(d, g, ts);
        else if (reduction == 1) scale = div(d, g, listItem(c.output, 1));
        return {mul(d, neg(d, coef), scale)};
      },
      "NllLossBackward0");
  def(t, "aten.gelu.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& x = c.inputs[0];
    const Val& g = c.gradOutput;
    bool tanhApprox = arg(c, 1).kind == Val::Kind::String && arg(c, 1).s == "tanh";
    if (!tanhApprox) {
      // cdf + x * pdf
      Val cdf = mul(d, add(d, un(d, "erf", mul(d, x, num(M_SQRT1_2))), num(1)), num(0.5));
      Val pdf = mul(d, un(d, "exp", mul(d, mul(d, x, x), num(-0.5))), num(0.5 * M_2_SQRTPI * M_SQRT1_2));
      return {mul(d, g, add(d, cdf, mul(d, x, pdf)))};
    }
    const double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5, kKappa = 0.044715;
    Val xsq = mul(d, x, x);
    Val inner = mul(d, add(d, x, mul(d, mul(d, xsq, x), num(kKappa))), num(kBeta));
    Val th = un(d, "tanh", inner);
    Val left = mul(d, x, num(0.5));
    Val leftD = mul(d, add(d, th, num(1)), num(0.5));
    Val rightD = mul(d, mul(d, left, sub(d, num(1), mul(d, th, th))), mul(d, add(d, mul(d, xsq, num(3 * kKappa)), num(1)), num(kBeta)));
    return {mul(d, g, add(d, leftD, rightD))};
  });
  // clamp: the gradient passes where min <= x <= max.
  auto clampGrad = [](Dispatcher& d, const GradContext& c, const Val& lo, const Val& hi) -> std::vector<Val> {
    const Val& x = c.inputs[0];
    Val pass = Val::none();
    auto both = [&](const Val& m) { pass = pass.isNone() ? m : mul(d, pass, m); };
    if (!lo.isNone()) both(cmp(d, "ge", x, lo));
    if (!hi.isNone()) both(cmp(d, "le", x, hi));
    if (pass.isNone()) return {c.gradOutput};
    return {where(d, pass, c.gradOutput, num(0))};
  };
  def(t, "aten.clamp.default", [clampGrad](Dispatcher& d, const GradContext& c) { return clampGrad(d, c, arg(c, 1), arg(c, 2)); });
  def(t, "aten.clamp_min.default", [clampGrad](Dispatcher& d, const GradContext& c) { return clampGrad(d, c, arg(c, 1), Val::none()); });
  def(t, "aten.clamp_max.default", [clampGrad](Dispatcher& d, const GradContext& c) { return clampGrad(d, c, Val::none(), arg(c, 1)); });
  def(t, "aten.convolution.default", convolutionGrad);
  def(t, "kiln.convolution_weight_grad.default", convolutionWeightGradGrad);
  def(
      t, "aten.max_pool2d_with_indices.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
        const Val& g = c.gradOutput.list.at(0);
        if (g.isNone()) return {};
        return {maxPoolGrad(d, g, c.inputs[0], c.output.list.at(1))};
      },
      "MaxPool2DWithIndicesBackward0");
  def(
      t, "aten.max_pool2d.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
        // A graph-recording dispatcher has no multi-result nodes: the indices alone.
        const Val indices = d.multiOutput() ? d.call("aten.max_pool2d_with_indices.default", c.inputs).list.at(1)
                                            : d.call("kiln.max_pool2d_indices.default", c.inputs);
        return {maxPoolGrad(d, c.gradOutput, c.inputs[0], indices)};
      },
      "MaxPool2DWithIndicesBackward0");
  def(t, "aten.avg_pool2d.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    std::vector<Val> args{c.gradOutput};
    args.insert(args.end(), c.inputs.begin(), c.inputs.end());
    return {d.call("aten.avg_pool2d_backward.default", args)};
  });
  def(t, "aten._adaptive_avg_pool2d.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    return {d.call("aten._adaptive_avg_pool2d_backward.default", {c.gradOutput, c.inputs[0]})};
  });
  // constant_pad_nd(x, pad, value): the gradient is the unpadded part (negative pads crop,
  // so their gradient is padded with zeros instead).
  def(t, "aten.constant_pad_nd.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    std::vector<int64_t> pad = c.inputs.at(1).ints();
    std::vector<Val> neg;
    for (auto p : pad) neg.push_back(Val::integer(-p));
    return {d.call("aten.constant_pad_nd.default", {c.gradOutput, Val::listOf(neg), Val::real(0.0)})};
  });
  // pow(x, scalar): exponent * x^(exponent - 1), zero when the exponent is 0.
  def(t, "aten.pow.Tensor_Scalar", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val& e = c.inputs.at(1);
    if (e.number() == 0) return {mul(d, c.gradOutput, num(0))};
    Val p = d.call("aten.pow.Tensor_Scalar", {c.inputs[0], Val::real(e.number() - 1)});
    return {mul(d, mul(d, c.gradOutput, e), p)};
  });
  def(t, "aten.expm1.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> { return {mul(d, c.gradOutput, add(d, c.output, num(1)))}; });
  def(t, "aten.log1p.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> { return {div(d, c.gradOutput, add(d, c.inputs[0], num(1)))}; });
  def(t, "aten.log2.default",
      [](Dispatcher& d, const GradContext& c) -> std::vector<Val> { return {div(d, c.gradOutput, mul(d, c.inputs[0], num(M_LN2)))}; });
  def(t, "aten.tan.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    return {mul(d, c.gradOutput, add(d, mul(d, c.output, c.output), num(1)))};
  });
  def(t, "aten.atan.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    return {div(d, c.gradOutput, add(d, mul(d, c.inputs[0], c.inputs[0]), num(1)))};
  });
  // atan2(self, other): other / (self^2 + other^2), -self / (self^2 + other^2)
  def(t, "aten.atan2.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    const Val &y = c.inputs[0], &x = c.inputs[1];
    Val r = add(d, mul(d, x, x), mul(d, y, y));
    return {c.needs(0) ? sumTo(d, div(d, mul(d, c.gradOutput, x), r), sizesOf(y)) : Val::none(),
            c.needs(1) ? sumTo(d, div(d, mul(d, c.gradOutput, neg(d, y)), r), sizesOf(x)) : Val::none()};
  });
  for (const char* n : {"aten.round.default", "aten.sign.default", "aten.trunc.default"})
    def(t, n, [](Dispatcher& d, const GradContext& c) -> std::vector<Val> { return {mul(d, c.gradOutput, num(0))}; });
  def(t, "aten.floor_divide.default", [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    return {c.inputs[0].isTensor() ? mul(d, zerosLike(d, c.inputs[0]), num(0)) : Val::none(), Val::none()};
  });
}

}  // namespace kiln::autograd::dv
