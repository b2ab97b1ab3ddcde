// Softmax, normalization, dropout and losses: _softmax/_log_softmax, native_layer_norm,
// batch norm (eval, training with in-place running-stat updates, and the functional form),
// native_dropout, nll_loss_forward, gelu, clamp. Eager kernels compute per row in double;
// decompositions are the ones Inductor applies by default (softmax -> amax/sub/exp/sum/div,
// layer_norm -> var_mean/rsqrt/..., gelu -> erf form).
#include "engine/ops/op_table.h"
#include "engine/ops/shape_util.h"

#include <cmath>
#include <limits>

namespace kiln::ops {

using tensor::forEachIndex;
using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

namespace {

// Offsets of x split into rows along `dim`: for every other index, the base offset; the row
// elements are base + k * stride (k < len).
struct Rows {
  std::vector<int64_t> base;
  int64_t len = 1, stride = 0;
};

Rows rowsAlong(const Shape& sizes, const Shape& strides, int64_t dim) {
  Rows r;
  // An empty tensor has no row with elements (and its other dims may be huge: 2^62 rows, strides
  // that overflow int64); every caller's output is then empty or a per-channel 0/0.
  if (tensor::checkedNumel(sizes) == 0) return r;
  Shape os = sizes, ost = strides;
  if (!sizes.empty()) {
    r.len = sizes[dim];
    r.stride = strides[dim];
    os.erase(os.begin() + dim);
    ost.erase(ost.begin() + dim);
  }
  forEachIndex<1>(os, {&ost}, [&](const std::array<int64_t, 1>& o) { r.base.push_back(o[0]); });
  return r;
}

// softmax / log_softmax along dim into a new contiguous tensor of x's dtype.
Tensor softmax(const Tensor& xIn, int64_t dimIn, bool log) {
  if (!ir::isFloating(xIn.dtype()))
    throw TorchError("RuntimeError", std::string(log ? "log_softmax" : "softmax") + "_lastdim_kernel_impl\" not implemented for '" +
                                         (xIn.dtype() == ir::DType::Int64 ? "Long" : "Int") + "'");
  const Tensor x = xIn;
  int64_t dim = wrapDim(dimIn, x.dim());
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  Rows in = rowsAlong(x.sizes(), x.strides(), dim), outRows = rowsAlong(out.sizes(), out.strides(), dim);
  std::vector<double> buf(static_cast<size_t>(in.len));
  for (size_t r = 0; r < in.base.size(); ++r) {
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t k = 0; k < in.len; ++k) {
      buf[k] = x.loadAt(in.base[r] + k * in.stride);
      m = std::max(m, buf[k]);
    }
    double s = 0.0;
    for (int64_t k = 0; k < in.len; ++k) s += std::exp(buf[k] - m);
    double ls = std::log(s);
    for (int64_t k = 0; k < in.len; ++k)
      out.storeAt(outRows.base[r] + k * outRows.stride, log ? buf[k] - m - ls : std::exp(buf[k] - m) / s);
  }
  return out;
}

int64_t normAxis(const Val& x, const Val& normalizedShape) {
  Shape xs = sizesOf(x);
  std::vector<int64_t> ns = normalizedShape.ints();
  int64_t axis = static_cast<int64_t>(xs.size()) - static_cast<int64_t>(ns.size());
  bool ok = axis >= 0 && !ns.empty();
  for (size_t i = 0; ok && i < ns.size(); ++i) ok = xs[axis + i] == ns[i];
  if (!ok) {
    std::string nstr = "[";
    for (size_t i = 0; i < ns.size(); ++i) nstr += (i ? ", " : "") + std::to_string(ns[i]);
    nstr += ns.size() == 1 ? ",]" : "]";
    std::string xstr = "[";
    for (size_t i = 0; i < xs.size(); ++i) xstr += (i ? ", " : "") + std::to_string(xs[i]);
    xstr += "]";
    throw TorchError("RuntimeError", "Given normalized_shape=" + nstr + ", expected input with shape [*, " +
                                         nstr.substr(1, nstr.size() - (ns.size() == 1 ? 3 : 2)) + "], but got input of size" + xstr);
  }
  return axis;
}

ir::TensorType statType(const Val& x, int64_t axis) {
  Shape s = sizesOf(x);
  for (size_t i = static_cast<size_t>(axis); i < s.size(); ++i) s[i] = 1;
  return contiguousType(s, x.tensorType().dtype);
}

// Per-channel (dim 1) batch statistics of x: mean and biased variance, in double.
void channelStats(const Tensor& x, std::vector<double>& mean, std::vector<double>& var) {
  int64_t C = x.dim() > 1 ? x.sizes()[1] : 1;
  mean.assign(static_cast<size_t>(C), 0.0);
  var.assign(static_cast<size_t>(C), 0.0);
  Rows r = rowsAlong(x.sizes(), x.strides(), 1);  // rows along C: one per (n, spatial) position
  const double cnt = double(r.base.size());
  for (int64_t c = 0; c < C; ++c) {
    double s = 0.0;
    for (int64_t b : r.base) s += x.loadAt(b + c * r.stride);
    double m = s / cnt, ss = 0.0;
    for (int64_t b : r.base) {
      double d = x.loadAt(b + c * r.stride) - m;
      ss += d * d;
    }
    mean[c] = m;
    var[c] = ss / cnt;
  }
}

// out = (x - mean[c]) * invstd[c] * w[c] + b[c] over channel dim 1.
Tensor normalizeChannels(const Tensor& x, const std::vector<double>& mean, const std::vector<double>& invstd, const Val& w, const Val& b) {
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  Rows in = rowsAlong(x.sizes(), x.strides(), 1), o = rowsAlong(out.sizes(), out.strides(), 1);
  for (int64_t c = 0; c < static_cast<int64_t>(mean.size()); ++c) {
    double scale = invstd[c] * (w.isNone() ? 1.0 : w.t.loadAt(c * w.t.strides()[0]));
    double shift = b.isNone() ? 0.0 : b.t.loadAt(c * b.t.strides()[0]);
    for (size_t r = 0; r < in.base.size(); ++r)
      out.storeAt(o.base[r] + c * o.stride, (x.loadAt(in.base[r] + c * in.stride) - mean[c]) * scale + shift);
  }
  return out;
}

Tensor vecOf(const std::vector<double>& v, ir::DType dt) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, dt);
  for (size_t i = 0; i < v.size(); ++i) t.storeAt(static_cast<int64_t>(i), v[i]);
  return t;
}

void checkChannels(const Val& x, const Val& v, const char* what) {
  Shape xs = sizesOf(x);
  // Channels are dim 1: an input without one (x.size(1) in PyTorch's words) has no channels to
  // normalize, and the kernels would read a stride it does not have.
  if (xs.size() < 2)
    throw TorchError("IndexError", "Dimension out of range (expected to be in range of [" +
                                       std::to_string(-std::max<int64_t>(xs.size(), 1)) + ", " +
                                       std::to_string(std::max<int64_t>(xs.size(), 1) - 1) + "], but got 1)");
  if (v.isNone()) return;
  int64_t C = xs.size() > 1 ? xs[1] : 1;
  Shape s = sizesOf(v);
  if (s.size() != 1 || s[0] != C)
    throw TorchError("RuntimeError",
                     std::string(what) + " should contain " + std::to_string(C) + " elements not " + std::to_string(s.empty() ? 1 : s[0]));
}

// Batch-norm training step: normalized output, batch mean, invstd, and the running stats
// after the momentum update (unbiased variance), as PyTorch computes them.
struct BnTrain {
  Tensor out, mean, invstd;
  std::vector<double> newMean, newVar;
};

BnTrain bnTrain(const std::vector<Val>& a, double momentum, double eps) {
  const Tensor& x = a.at(0).t;
  std::vector<double> mean, var;
  channelStats(x, mean, var);
  std::vector<double> invstd(mean.size());
  for (size_t c = 0; c < mean.size(); ++c) invstd[c] = 1.0 / std::sqrt(var[c] + eps);
  BnTrain r;
  r.out = normalizeChannels(x, mean, invstd, a.at(1), a.at(2));
  r.mean = vecOf(mean, x.dtype());
  r.invstd = vecOf(invstd, x.dtype());
  const double n = double(x.numel()) / double(std::max<size_t>(mean.size(), 1));
  const Val& rm = a.at(3);
  const Val& rv = a.at(4);
  if (!rm.isNone()) {
    r.newMean.resize(mean.size());
    for (size_t c = 0; c < mean.size(); ++c)
      r.newMean[c] = (1 - momentum) * rm.t.loadAt(int64_t(c) * rm.t.strides()[0]) + momentum * mean[c];
  }
  if (!rv.isNone()) {
    r.newVar.resize(var.size());
    for (size_t c = 0; c < var.size(); ++c)
      r.newVar[c] = (1 - momentum) * rv.t.loadAt(int64_t(c) * rv.t.strides()[0]) + momentum * var[c] * n / std::max(n - 1, 1.0);
  }
  return r;
}

// Shape [1, C, 1, ...] for broadcasting a per-channel vector in decompositions.
Val channelView(Dispatcher& d, const Val& v, int64_t nd) {
  Val r = v;
  for (int64_t i = 2; i < nd; ++i) r = d.call("aten.unsqueeze.default", {r, Val::integer(-1)});
  return r;
}

double gelu(double x, bool tanhApprox) {
  if (!tanhApprox) return 0.5 * x * (1.0 + std::erf(x * M_SQRT1_2));
  const double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5;
  return 0.5 * x * (1.0 + std::tanh(kBeta * (x + 0.044715 * x * x * x)));
}

bool tanhApproximate(const std::vector<Val>& a) {
  if (a.size() < 2 || a[1].isNone()) return false;
  if (a[1].kind != Val::Kind::String || (a[1].s != "none" && a[1].s != "tanh"))
    throw TorchError("RuntimeError", "approximate argument must be either none or tanh.");
  return a[1].s == "tanh";
}

}  // namespace

void registerNormOps(std::vector<OpDef>& t) {
  for (bool log : {false, true}) {
    OpDef d;  // _softmax / _log_softmax(x, dim, half_to_float)
    d.name = log ? "aten._log_softmax.default" : "aten._softmax.default";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) {
      wrapDim(a.at(1).i, static_cast<int64_t>(a[0].tensorType().sizes.size()));
      return plainType(a[0]);
    };
    d.eager = [log](const std::vector<Val>& a) { return softmax(a.at(0).t, a.at(1).i, log); };
    d.decompose = [log](Dispatcher& disp, const std::vector<Val>& a) {
      Val dims = Val::listOf({a.at(1)});
      Val m = disp.call("aten.amax.default", {a[0], dims, Val::boolean(true)});
      Val sh = disp.call("aten.sub.Tensor", {a[0], m});
      Val e = disp.call("aten.exp.default", {sh});
      Val s = disp.call("aten.sum.dim_IntList", {e, dims, Val::boolean(true)});
      if (!log) return disp.call("aten.div.Tensor", {e, s});
      Val l = disp.call("aten.log.default", {s});
      return disp.call("aten.sub.Tensor", {sh, l});
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // native_layer_norm(x, normalized_shape, weight, bias, eps) -> (out, mean, rstd)
    d.name = "aten.native_layer_norm.default";
    d.kind = OpKind::Extern;
    d.metaMulti = [](const std::vector<Val>& a) {
      int64_t axis = normAxis(a.at(0), a.at(1));
      return std::vector<ir::TensorType>{plainType(a[0]), statType(a[0], axis), statType(a[0], axis)};
    };
    d.meta = [mm = d.metaMulti](const std::vector<Val>& a) { return mm(a)[0]; };
    d.eagerMulti = [](const std::vector<Val>& a) {
      const Tensor& x = a.at(0).t;
      int64_t axis = normAxis(a[0], a.at(1));
      const Val& w = a.at(2);
      const Val& b = a.at(3);
      double eps = a.at(4).number();
      Shape inner(x.sizes().begin() + axis, x.sizes().end()), innerStr(x.strides().begin() + axis, x.strides().end());
      Shape outer(x.sizes().begin(), x.sizes().begin() + axis), outerStr(x.strides().begin(), x.strides().begin() + axis);
      std::vector<int64_t> innerOff, outerOff;
      // One offset per row and per row element: an empty x's other dims may be huge.
      checkOffsetsFit(tensor::checkedNumel(outer));
      checkOffsetsFit(tensor::checkedNumel(inner));
      forEachIndex<1>(inner, {&innerStr}, [&](const std::array<int64_t, 1>& o) { innerOff.push_back(o[0]); });
      forEachIndex<1>(outer, {&outerStr}, [&](const std::array<int64_t, 1>& o) { outerOff.push_back(o[0]); });
      // weight/bias have the normalized shape: element k of a row is their k-th element.
      auto perElem = [&](const Val& v) {
        std::vector<double> out;
        if (v.isNone()) return out;
        Shape vs = v.t.strides();
        forEachIndex<1>(v.t.sizes(), {&vs}, [&](const std::array<int64_t, 1>& o) { out.push_back(v.t.loadAt(o[0])); });
        return out;
      };
      std::vector<double> wv = perElem(w), bv = perElem(b);
      if (!w.isNone() && wv.size() != innerOff.size()) throw TorchError("RuntimeError", "weight must match normalized_shape");
      if (!b.isNone() && bv.size() != innerOff.size()) throw TorchError("RuntimeError", "bias must match normalized_shape");
      Tensor out = Tensor::empty(x.sizes(), x.dtype());
      Shape statShape = x.sizes();
      for (size_t i = static_cast<size_t>(axis); i < statShape.size(); ++i) statShape[i] = 1;
      Tensor mean = Tensor::empty(statShape, x.dtype()), rstd = Tensor::empty(statShape, x.dtype());
      const double n = double(innerOff.size());
      std::vector<double> row(innerOff.size());
      for (size_t r = 0; r < outerOff.size(); ++r) {
        double s = 0.0;
        for (size_t k = 0; k < innerOff.size(); ++k) s += row[k] = x.loadAt(outerOff[r] + innerOff[k]);
        double m = s / n, ss = 0.0;
        for (double v : row) ss += (v - m) * (v - m);
        double rs = 1.0 / std::sqrt(ss / n + eps);
        for (size_t k = 0; k < innerOff.size(); ++k) {
          double v = (row[k] - m) * rs;
          if (!wv.empty()) v *= wv[k];
          if (!bv.empty()) v += bv[k];
          out.storeAt(static_cast<int64_t>(r * innerOff.size() + k), v);
        }
        mean.storeAt(static_cast<int64_t>(r), m);
        rstd.storeAt(static_cast<int64_t>(r), rs);
      }
      return std::vector<Tensor>{out, mean, rstd};
    };
    d.decompose = [](Dispatcher& disp, const std::vector<Val>& a) {
      int64_t axis = normAxis(a.at(0), a.at(1));
      int64_t nd = static_cast<int64_t>(a[0].tensorType().sizes.size());
      std::vector<int64_t> dims;
      for (int64_t i = axis; i < nd; ++i) dims.push_back(i);
      Val var, mean;
      if (disp.multiOutput()) {
        Val vm = disp.call("aten.var_mean.correction", {a[0], intList(dims), Val::integer(0), Val::boolean(true)});
        var = vm.list.at(0);
        mean = vm.list.at(1);
      } else {  // a dispatcher without multi-output nodes: the two reductions separately
        var = disp.call("aten.var.correction", {a[0], intList(dims), Val::integer(0), Val::boolean(true)});
        mean = disp.call("aten.mean.dim", {a[0], intList(dims), Val::boolean(true)});
      }
      Val rstd = disp.call("aten.rsqrt.default", {disp.call("aten.add.Tensor", {var, a.at(4)})});
      Val out = disp.call("aten.mul.Tensor", {disp.call("aten.sub.Tensor", {a[0], mean}), rstd});
      if (!a.at(2).isNone()) out = disp.call("aten.mul.Tensor", {out, a[2]});
      if (!a.at(3).isNone()) out = disp.call("aten.add.Tensor", {out, a[3]});
      return Val::listOf({out, mean, rstd});
    };
    t.push_back(std::move(d));
  }
  {
    // Eval batch norm: (x, weight, bias, running_mean, running_var, momentum, eps) -> (out, [0], [0])
    OpDef d;
    d.name = "aten._native_batch_norm_legit_no_training.default";
    d.kind = OpKind::Extern;
    d.metaMulti = [](const std::vector<Val>& a) {
      checkChannels(a.at(0), a.at(1), "weight");
      checkChannels(a[0], a.at(2), "bias");
      checkChannels(a[0], a.at(3), "running_mean");
      checkChannels(a[0], a.at(4), "running_var");
      ir::TensorType empty = contiguousType({0}, a[0].tensorType().dtype);
      return std::vector<ir::TensorType>{plainType(a[0]), empty, empty};
    };
    d.meta = [mm = d.metaMulti](const std::vector<Val>& a) { return mm(a)[0]; };
    d.eagerMulti = [mm = d.metaMulti](const std::vector<Val>& a) {
      mm(a);
      const Tensor& x = a.at(0).t;
      const Tensor& rm = a.at(3).t;
      const Tensor& rv = a.at(4).t;
      double eps = a.at(6).number();
      int64_t C = x.dim() > 1 ? x.sizes()[1] : 1;
      std::vector<double> mean(static_cast<size_t>(C)), invstd(static_cast<size_t>(C));
      for (int64_t c = 0; c < C; ++c) {
        mean[c] = rm.loadAt(c * rm.strides()[0]);
        invstd[c] = 1.0 / std::sqrt(rv.loadAt(c * rv.strides()[0]) + eps);
      }
      return std::vector<Tensor>{normalizeChannels(x, mean, invstd, a.at(1), a.at(2)), Tensor::empty({0}, x.dtype()),
                                 Tensor::empty({0}, x.dtype())};
    };
    d.decompose = [](Dispatcher& disp, const std::vector<Val>& a) {
      int64_t nd = static_cast<int64_t>(a.at(0).tensorType().sizes.size());
      Val rm = channelView(disp, a.at(3), nd), rv = channelView(disp, a.at(4), nd);
      Val inv = disp.call("aten.reciprocal.default", {disp.call("aten.sqrt.default", {disp.call("aten.add.Tensor", {rv, a.at(6)})})});
      Val out = disp.call("aten.mul.Tensor", {disp.call("aten.sub.Tensor", {a[0], rm}), inv});
      if (!a.at(1).isNone()) out = disp.call("aten.mul.Tensor", {out, channelView(disp, a[1], nd)});
      if (!a.at(2).isNone()) out = disp.call("aten.add.Tensor", {out, channelView(disp, a[2], nd)});
      ir::DType dt = a[0].tensorType().dtype;
      Val empty = disp.call("aten.full.default", {intList({0}), Val::real(0.0), Val::dtypeVal(dt)});
      return Val::listOf({out, empty, empty});
    };
    t.push_back(std::move(d));
  }
  {
    // Training batch norm as eager PyTorch runs it: (x, weight, bias, running_mean, running_var,
    // training, momentum, eps) -> (out, save_mean, save_invstd); running stats updated in place.
    OpDef d;
    d.name = "aten._native_batch_norm_legit.default";
    d.kind = OpKind::Extern;
    d.metaMulti = [](const std::vector<Val>& a) {
      checkChannels(a.at(0), a.at(1), "weight");
      checkChannels(a[0], a.at(2), "bias");
      checkChannels(a[0], a.at(3), "running_mean");
      checkChannels(a[0], a.at(4), "running_var");
      Shape s = sizesOf(a[0]);
      ir::TensorType stat = contiguousType({s.size() > 1 ? s[1] : 1}, a[0].tensorType().dtype);
      return std::vector<ir::TensorType>{plainType(a[0]), stat, stat};
    };
    d.meta = [mm = d.metaMulti](const std::vector<Val>& a) { return mm(a)[0]; };
    d.eagerMulti = [mm = d.metaMulti](const std::vector<Val>& a) {
      mm(a);
      BnTrain r = bnTrain(a, a.at(6).number(), a.at(7).number());
      // In place, as eager PyTorch does: every alias of the buffers (the module's) sees it.
      if (!a.at(3).isNone()) {
        Tensor rm = a[3].t;
        for (size_t c = 0; c < r.newMean.size(); ++c) rm.storeAt(int64_t(c) * rm.strides()[0], r.newMean[c]);
      }
      if (!a.at(4).isNone()) {
        Tensor rv = a[4].t;
        for (size_t c = 0; c < r.newVar.size(); ++c) rv.storeAt(int64_t(c) * rv.strides()[0], r.newVar[c]);
      }
      return std::vector<Tensor>{r.out, r.mean, r.invstd};
    };
    // For graphs (Inductor's decomposition): batch statistics over every dim but the channels,
    // the normalized output, and the running stats' momentum update as input mutations.
    d.decompose = [](Dispatcher& disp, const std::vector<Val>& a) {
      const Val& x = a.at(0);
      const Shape s = sizesOf(x);
      const int64_t nd = static_cast<int64_t>(s.size());
      std::vector<int64_t> dims;
      int64_t n = 1;
      for (int64_t i = 0; i < nd; ++i)
        if (i != 1) dims.push_back(i), n = tensor::sizeMul(n, s[static_cast<size_t>(i)]);
      Val var = disp.call("aten.var.correction", {x, intList(dims), Val::integer(0), Val::boolean(true)});
      Val mean = disp.call("aten.mean.dim", {x, intList(dims), Val::boolean(true)});
      Val invstd = disp.call("aten.rsqrt.default", {disp.call("aten.add.Tensor", {var, a.at(7)})});
      Val out = disp.call("aten.mul.Tensor", {disp.call("aten.sub.Tensor", {x, mean}), invstd});
      if (!a.at(1).isNone()) out = disp.call("aten.mul.Tensor", {out, channelView(disp, a[1], nd)});
      if (!a.at(2).isNone()) out = disp.call("aten.add.Tensor", {out, channelView(disp, a[2], nd)});
      const Shape c = {s.size() > 1 ? s[1] : 1};
      Val meanC = disp.call("aten.view.default", {mean, intList(c)});
      Val varC = disp.call("aten.view.default", {var, intList(c)});
      const double m = a.at(6).number();
      if (!a.at(3).isNone())
        disp.mutateInput(a[3], disp.call("aten.add.Tensor", {disp.call("aten.mul.Tensor", {a[3], Val::real(1 - m)}),
                                                             disp.call("aten.mul.Tensor", {meanC, Val::real(m)})}));
      if (!a.at(4).isNone()) {
        const double unbias = static_cast<double>(n) / std::max<double>(static_cast<double>(n - 1), 1.0);
        disp.mutateInput(a[4], disp.call("aten.add.Tensor", {disp.call("aten.mul.Tensor", {a[4], Val::real(1 - m)}),
                                                             disp.call("aten.mul.Tensor", {varC, Val::real(m * unbias)})}));
      }
      return Val::listOf({out, meanC, disp.call("aten.view.default", {invstd, intList(c)})});
    };
    t.push_back(std::move(d));
  }
  {
    // Functionalized training batch norm (what AOTAutograd records): the updated running stats
    // are extra results. (x, weight, bias, running_mean, running_var, training, momentum, eps)
    OpDef d;
    d.name = "aten._native_batch_norm_legit_functional.default";
    d.kind = OpKind::Extern;
    d.metaMulti = [](const std::vector<Val>& a) {
      checkChannels(a.at(0), a.at(1), "weight");
      checkChannels(a[0], a.at(2), "bias");
      checkChannels(a[0], a.at(3), "running_mean");
      checkChannels(a[0], a.at(4), "running_var");
      Shape s = sizesOf(a[0]);
      ir::TensorType stat = contiguousType({s.size() > 1 ? s[1] : 1}, a[0].tensorType().dtype);
      return std::vector<ir::TensorType>{plainType(a[0]), stat, stat, plainType(a.at(3)), plainType(a.at(4))};
    };
    d.meta = [mm = d.metaMulti](const std::vector<Val>& a) { return mm(a)[0]; };
    d.eagerMulti = [mm = d.metaMulti](const std::vector<Val>& a) {
      mm(a);
      BnTrain r = bnTrain(a, a.at(6).number(), a.at(7).number());
      return std::vector<Tensor>{r.out, r.mean, r.invstd, vecOf(r.newMean, a[3].t.dtype()), vecOf(r.newVar, a[4].t.dtype())};
    };
    t.push_back(std::move(d));
  }
  {
    // native_dropout(x, p, train) -> (out, mask): mask = rand_like(x) > p, out = x * mask / (1 - p).
    // The random numbers come from the RNG's aten.rand_like.default.
    OpDef d;
    d.name = "aten.native_dropout.default";
    d.kind = OpKind::Extern;
    d.metaMulti = [](const std::vector<Val>& a) {
      ir::TensorType m = plainType(a.at(0));
      m.dtype = ir::DType::Bool;
      return std::vector<ir::TensorType>{plainType(a[0]), m};
    };
    d.meta = [mm = d.metaMulti](const std::vector<Val>& a) { return mm(a)[0]; };
    d.decompose = [](Dispatcher& disp, const std::vector<Val>& a) {
      double p = a.at(1).number();
      if (!disp.multiOutput())
        throw TorchError("NotImplementedError", "training-mode dropout in a captured graph is not supported by Kiln yet");
      Val r = disp.call("aten.rand_like.default", {a[0]});
      Val mask = disp.call("aten.gt.Tensor", {r, Val::real(p)});
      Val kept = disp.call("aten.mul.Tensor", {mask, a[0]});
      Val out = disp.call("aten.mul.Tensor", {kept, Val::real(p >= 1.0 ? 0.0 : 1.0 / (1.0 - p))});
      return Val::listOf({out, mask});
    };
    t.push_back(std::move(d));
  }
  {
    // nll_loss_forward(self, target, weight, reduction, ignore_index) -> (output, total_weight)
    OpDef d;
    d.name = "aten.nll_loss_forward.default";
    d.kind = OpKind::Extern;
    auto check = [](const std::vector<Val>& a) {
      Shape xs = sizesOf(a.at(0)), ts = sizesOf(a.at(1));
      if (xs.empty()) throw TorchError("ValueError", "Expected 1 or more dimensions (got 0)");
      if (ir::isFloating(a[1].tensorType().dtype) || a[1].tensorType().dtype == ir::DType::Bool)
        throw TorchError("RuntimeError",
                         "expected scalar type Long but found " + std::string(ir::torchName(a[1].tensorType().dtype)).substr(6));
      if (xs.size() >= 2 && (ts.empty() || ts[0] != xs[0]))
        throw TorchError("ValueError", "Expected input batch_size (" + std::to_string(xs[0]) + ") to match target batch_size (" +
                                           std::to_string(ts.empty() ? 0 : ts[0]) + ").");
      // The kernel reads one target per (n, spatial) position and weight[c] per class: both
      // must have exactly those shapes, or it reads past them.
      if (xs.size() <= 2 && (ts.size() > 1 || (xs.size() == 1 && tensor::checkedNumel(ts) != 1)))
        throw TorchError("RuntimeError", "0D or 1D target tensor expected, multi-target not supported");
      if (xs.size() > 2) {
        Shape want = {xs[0]};
        want.insert(want.end(), xs.begin() + 2, xs.end());
        if (ts != want)
          throw TorchError("RuntimeError", "Expected target size " + tensor::shapeStr(want) + ", got " + tensor::shapeStr(ts));
      }
      const int64_t classes = xs.size() >= 2 ? xs[1] : xs[0];
      if (!a.at(2).isNone()) {
        Shape ws = sizesOf(a[2]);
        if (ws.size() != 1 || ws[0] != classes)
          throw TorchError("RuntimeError", "weight tensor should be defined either for all " + std::to_string(classes) +
                                               " classes or no classes but got weight tensor of shape: " + tensor::shapeStr(ws));
      }
      return xs;
    };
    d.metaMulti = [check](const std::vector<Val>& a) {
      Shape xs = check(a);
      int64_t red = a.at(3).i;
      ir::DType dt = a[0].tensorType().dtype;
      Shape outShape;
      if (red == 0 && xs.size() >= 2) {
        outShape.push_back(xs[0]);
        outShape.insert(outShape.end(), xs.begin() + 2, xs.end());
      }
      return std::vector<ir::TensorType>{contiguousType(outShape, dt), contiguousType({}, dt)};
    };
    d.meta = [mm = d.metaMulti](const std::vector<Val>& a) { return mm(a)[0]; };
    d.eagerMulti = [check](const std::vector<Val>& a) {
      check(a);
      const Tensor& x = a[0].t;
      const Tensor& tg = a[1].t;
      const Val& w = a.at(2);
      int64_t red = a.at(3).i, ignore = a.at(4).i;
      // View input as [N, C, S] and target as [N, S].
      const bool batched = x.dim() >= 2;
      const int64_t N = batched ? x.sizes()[0] : 1, C = batched ? x.sizes()[1] : x.sizes()[0];
      int64_t S = 1;
      for (int64_t i = 2; i < x.dim(); ++i) S = tensor::sizeMul(S, x.sizes()[i]);
      Tensor xc = x.contiguous(), tc = tg.contiguous();
      Shape perSizes = tg.sizes();
      Tensor per = Tensor::empty(red == 0 && batched ? perSizes : Shape{}, x.dtype());
      double total = 0.0, wsum = 0.0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t s = 0; s < S; ++s) {
          int64_t cls = tc.loadIntAt(n * S + s);
          double loss = 0.0;
          if (cls != ignore) {
            if (cls < 0 || cls >= C) throw TorchError("IndexError", "Target " + std::to_string(cls) + " is out of bounds.");
            double wc = w.isNone() ? 1.0 : w.t.loadAt(cls * w.t.strides()[0]);
            loss = -xc.loadAt((n * C + cls) * S + s) * wc;
            wsum += wc;
          }
          total += loss;
          if (red == 0 && batched) per.storeAt(n * S + s, loss);
        }
      if (red == 0 && batched) return std::vector<Tensor>{per, Tensor::scalar(0.0, x.dtype())};
      double v = red == 1 ? total / wsum : total;  // mean over the weights of non-ignored targets
      return std::vector<Tensor>{Tensor::scalar(v, x.dtype()), Tensor::scalar(wsum, x.dtype())};
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // gelu(x, approximate='none'); Inductor (2.11, CPU) decomposes it
    d.name = "aten.gelu.default";
    d.kind = OpKind::Pointwise;
    d.meta = [](const std::vector<Val>& a) {
      tanhApproximate(a);
      return plainType(a.at(0));
    };
    d.eager = [](const std::vector<Val>& a) {
      bool th = tanhApproximate(a);
      const Tensor& x = a.at(0).t;
      if (!ir::isFloating(x.dtype())) throw TorchError("RuntimeError", "\"GeluKernelImpl\" not implemented for 'Long'");
      Tensor out = Tensor::empty(x.sizes(), x.dtype());
      Shape os = out.strides();
      if (x.dtype() == ir::DType::Float32) {
        float* op = out.ptr<float>();
        const float* xp = x.ptr<float>();
        forEachIndex<2>(x.sizes(), {&os, &x.strides()},
                        [&](const std::array<int64_t, 2>& o) { op[o[0]] = static_cast<float>(gelu(xp[o[1]], th)); });
      } else {
        forEachIndex<2>(x.sizes(), {&os, &x.strides()},
                        [&](const std::array<int64_t, 2>& o) { out.storeAt(o[0], gelu(x.loadAt(o[1]), th)); });
      }
      return out;
    };
    d.decompose = [](Dispatcher& disp, const std::vector<Val>& a) {
      const Val& x = a.at(0);
      if (!tanhApproximate(a)) {
        Val half = disp.call("aten.mul.Tensor", {x, Val::real(0.5)});
        Val scaled = disp.call("aten.mul.Tensor", {x, Val::real(M_SQRT1_2)});
        Val e = disp.call("aten.erf.default", {scaled});
        Val one = disp.call("aten.add.Tensor", {e, Val::integer(1)});
        return disp.call("aten.mul.Tensor", {half, one});
      }
      const double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5;
      Val cube = disp.call("aten.pow.Tensor_Scalar", {x, Val::integer(3)});
      Val inner = disp.call("aten.add.Tensor", {x, disp.call("aten.mul.Tensor", {cube, Val::real(0.044715)})});
      Val th = disp.call("aten.tanh.default", {disp.call("aten.mul.Tensor", {inner, Val::real(kBeta)})});
      Val one = disp.call("aten.add.Tensor", {th, Val::integer(1)});
      return disp.call("aten.mul.Tensor", {disp.call("aten.mul.Tensor", {x, Val::real(0.5)}), one});
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // clamp(x, min=None, max=None); Inductor: clamp_min + clamp_max
    d.name = "aten.clamp.default";
    d.kind = OpKind::Pointwise;
    auto outType = [](const std::vector<Val>& a) {
      ir::DType dt = a.at(0).tensorType().dtype;
      for (size_t i = 1; i < 3 && i < a.size(); ++i)
        if (!a[i].isNone()) dt = promoteTypes(Val::sym(contiguousType({1}, dt)), a[i]);
      return dt;
    };
    d.meta = [outType](const std::vector<Val>& a) {
      if ((a.size() < 2 || a[1].isNone()) && (a.size() < 3 || a[2].isNone()))
        throw TorchError("RuntimeError", "torch.clamp: At least one of 'min' or 'max' must not be None");
      ir::TensorType t = plainType(a[0]);
      t.dtype = outType(a);
      return t;
    };
    d.decompose = [outType](Dispatcher& disp, const std::vector<Val>& a) {
      if ((a.size() < 2 || a[1].isNone()) && (a.size() < 3 || a[2].isNone()))
        throw TorchError("RuntimeError", "torch.clamp: At least one of 'min' or 'max' must not be None");
      Val r = a.at(0);
      if (a.size() > 1 && !a[1].isNone()) r = disp.call("aten.clamp_min.default", {r, a[1]});
      if (a.size() > 2 && !a[2].isNone()) r = disp.call("aten.clamp_max.default", {r, a[2]});
      ir::DType dt = outType(a);
      if (r.tensorType().dtype != dt) r = disp.call("prims.convert_element_type.default", {r, Val::dtypeVal(dt)});
      return r;
    };
    t.push_back(std::move(d));
  }
}

}  // namespace kiln::ops
