// Torch-level matrix products, linear, convolution, pooling, embedding and padding. Each one
// decomposes into ATen ops the way ATen's CompositeImplicitAutograd kernels do (so the ATen
// graph matches what AOTAutograd records): torch.matmul follows at::_matmul_impl (dot / mv /
// mm / folding into mm / expand + reshape + bmm), F.linear follows at::linear (t + addmm, the
// flattened N-D path, or matmul + add), conv2d batchifies and calls aten.convolution.
#include "engine/ops/shape_util.h"
#include "engine/torch/torch_functions.h"

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;
using tensor::Shape;
using tensor::TorchError;

namespace {

int64_t ndim(const Val& v) { return static_cast<int64_t>(v.tensorType().sizes.size()); }
Val integer(int64_t i) { return Val::integer(i); }
int64_t prod(const Shape& s) {
  int64_t p = 1;
  for (auto x : s) p = tensor::sizeMul(p, x);  // 0 for an empty shape, whatever its other dims
  return p;
}

// Concrete sizes; the decompositions below compute shapes, so symbolic dims stop here.
Shape sizes(const Val& v, const char* fn) {
  for (const auto& d : v.tensorType().sizes)
    if (d.symbolic())
      throw TorchError("NotImplementedError", std::string(fn) + " with symbolic sizes in this form is not supported by Kiln yet");
  return ops::sizesOf(v);
}

bool contiguous(const Val& v) {
  ops::Geom g = ops::geomOf(v);
  return ops::isContiguousGeom(g.sizes, g.strides);
}

// Tensor.reshape as ATen decomposes it: a view when the strides allow, else clone + _unsafe_view.
Val reshape(Dispatcher& d, const Val& x, const Shape& shape) {
  if (ops::viewable(x, shape)) return d.call("aten.view.default", {x, ops::intList(shape)});
  Val c = d.call("aten.clone.default", {x});
  return d.call("aten._unsafe_view.default", {c, ops::intList(shape)});
}

// x.mT: the last two dims swapped.
Val mT(Dispatcher& d, const Val& x) { return d.call("aten.transpose.int", {x, integer(-2), integer(-1)}); }

// at::_matmul_impl's should_fold: whether the larger operand can be folded into a matrix and
// multiplied with mm/mv instead of bmm (without a copy, or when it requires grad).
bool shouldFold(const Val& a, const Val& b) {
  const int64_t da = ndim(a), db = ndim(b);
  const bool aLarger = da >= db;
  const int64_t dimT1 = aLarger ? da : db, dimT2 = aLarger ? db : da;
  if (!(dimT1 >= 3 && dimT2 <= 2)) return false;
  const Val& larger = aLarger ? a : b;
  if (larger.tensorType().requiresGrad) return true;
  if (da == 2) return false;  // folding 2-D @ N-D would need a transposed copy of the result
  ops::Geom g = ops::geomOf(larger);
  if (!aLarger) {  // t1 = b.mT()
    std::swap(g.sizes[dimT1 - 1], g.sizes[dimT1 - 2]);
    std::swap(g.strides[dimT1 - 1], g.strides[dimT1 - 2]);
  }
  if (prod(g.sizes) == 0) return true;
  for (int64_t i = 0; i < dimT1 - 2; ++i)
    if (g.strides[i] != g.strides[i + 1] * g.sizes[i + 1]) return false;
  return true;
}

Val matmul(Dispatcher& d, const Val& a, const Val& b) {
  if (!a.isTensor() || !b.isTensor()) throw TorchError("TypeError", "matmul(): argument 'other' (position 1) must be Tensor");
  const int64_t da = ndim(a), db = ndim(b);
  if (da == 0 || db == 0)
    throw TorchError("RuntimeError", "both arguments to matmul need to be at least 1D, but they are " + std::to_string(da) + "D and " +
                                         std::to_string(db) + "D");
  if (da == 1 && db == 1) return d.call("aten.dot.default", {a, b});
  if (da == 2 && db == 1) return d.call("aten.mv.default", {a, b});
  if (da == 1 && db == 2) {
    Val r = d.call("aten.mm.default", {d.call("aten.unsqueeze.default", {a, integer(0)}), b});
    return d.call("aten.squeeze.dim", {r, integer(0)});
  }
  if (da == 2 && db == 2) return d.call("aten.mm.default", {a, b});
  if (shouldFold(a, b)) {
    // Fold the batch dims of the larger operand into the rows of one mm (or mv).
    const bool transpose = db > da;
    Val t1 = transpose ? mT(d, b) : a;
    Val t2 = !transpose ? b : da == 2 ? d.call("aten.t.default", {a}) : a;
    Shape s1 = sizes(t1, "matmul");
    Shape out(s1.begin(), s1.end() - 1);
    const int64_t folded = prod(out);
    const bool t2Matrix = ndim(t2) == 2;
    if (t2Matrix) out.push_back(sizes(t2, "matmul")[1]);
    Val t1f = reshape(d, t1, {folded, s1.back()});
    if (!t2Matrix) return d.call("aten._unsafe_view.default", {d.call("aten.mv.default", {t1f, t2}), ops::intList(out)});
    Val r = d.call("aten._unsafe_view.default", {d.call("aten.mm.default", {t1f, t2}), ops::intList(out)});
    if (!transpose) return r;
    Val rt = mT(d, r);
    return contiguous(rt) ? rt : d.call("aten.clone.default", {rt});
  }
  // Batched: broadcast the batch dims, flatten them, one bmm, view back.
  Shape sa = sizes(a, "matmul"), sb = sizes(b, "matmul");
  const int64_t n = da > 1 ? sa[da - 2] : 1, m1 = sa.back();
  const int64_t m2 = db > 1 ? sb[db - 2] : sb[0], p = db > 1 ? sb.back() : 1;
  Shape batchA(sa.begin(), sa.begin() + std::max<int64_t>(da - 2, 0));
  Shape batchB(sb.begin(), sb.begin() + std::max<int64_t>(db - 2, 0));
  Shape batch = tensor::broadcastShapes(batchA, batchB);
  const int64_t bprod = prod(batch);
  Shape ea = batch, eb = batch;
  ea.insert(ea.end(), {n, m1});
  const bool vectorRhs = db == 1;
  if (vectorRhs) eb.push_back(m2);
  else eb.insert(eb.end(), {m2, p});
  Val ta = reshape(d, d.call("aten.expand.default", {a, ops::intList(ea)}), {bprod, n, m1});
  Val tb = d.call("aten.expand.default", {b, ops::intList(eb)});
  tb = vectorRhs ? d.call("aten.unsqueeze.default", {reshape(d, tb, {bprod, m2}), integer(2)}) : reshape(d, tb, {bprod, m2, p});
  Shape out = batch;
  if (da > 1) out.push_back(n);
  if (db > 1) out.push_back(p);
  Val r = d.call("aten.bmm.default", {ta, tb});
  if (vectorRhs) r = d.call("aten.squeeze.dim", {r, integer(-1)});
  return d.call("aten._unsafe_view.default", {r, ops::intList(out)});
}

const Val* optTensor(const TArgs& a, size_t i, const std::string& name) {
  const Val* v = a.get(i, name);
  return v && v->isTensor() ? v : nullptr;
}

// at::linear: 2-D input with bias -> addmm(bias, x, w.t()); contiguous input with a 1-D bias
// (or 3-D input) -> view to 2-D + addmm + view back; otherwise matmul(x, w.t()) (+ bias).
Val linear(Dispatcher& d, const TArgs& a) {
  const Val& x = tensorArg(a, 0, "input", "linear");
  const Val& w = tensorArg(a, 1, "weight", "linear");
  const Val* bias = optTensor(a, 2, "bias");
  const int64_t dx = ndim(x), dw = ndim(w);
  if (dx == 0 || dw == 0)
    throw TorchError("RuntimeError", "both arguments to linear need to be at least 1D, but they are " + std::to_string(dx) + "D and " +
                                         std::to_string(dw) + "D");
  if (dx == 2 && bias) return d.call("aten.addmm.default", {*bias, x, d.call("aten.t.default", {w})});
  if (bias && contiguous(x) && (dx == 3 || ndim(*bias) == 1)) {
    Shape s = sizes(x, "linear");
    Shape lead(s.begin(), s.end() - 1);
    Val flat = reshape(d, x, {prod(lead), s.back()});
    Val r = d.call("aten.addmm.default", {*bias, flat, d.call("aten.t.default", {w})});
    lead.push_back(sizes(r, "linear")[1]);
    return d.call("aten.view.default", {r, ops::intList(lead)});
  }
  Val out = matmul(d, x, d.call("aten.t.default", {w}));
  if (bias) out = d.call("aten.add.Tensor", {out, *bias});
  return out;
}

// An int or a sequence of ints as `n` ints (PyTorch's int[n] arguments).
Shape intList(const Val& v, size_t n, const std::string& fn, const std::string& name) {
  if (v.kind == Val::Kind::Int) return Shape(n, v.i);
  if (v.kind != Val::Kind::List) throw TorchError("TypeError", fn + "(): argument '" + name + "' must be tuple of ints");
  Shape s = v.ints();
  if (s.size() == 1) return Shape(n, s[0]);
  if (s.size() != n)
    throw TorchError("RuntimeError", fn + "(): argument '" + name + "' must be an int or a tuple of " + std::to_string(n) + " ints");
  return s;
}

Shape intArg(const TArgs& a, size_t i, const std::string& name, size_t n, int64_t dflt, const std::string& fn) {
  const Val* v = a.get(i, name);
  if (!v || v->isNone()) return Shape(n, dflt);
  return intList(*v, n, fn, name);
}

int64_t scalarInt(const TArgs& a, size_t i, const std::string& name, int64_t dflt) {
  const Val* v = a.get(i, name);
  return v && !v->isNone() ? static_cast<int64_t>(v->number()) : dflt;
}

bool flag(const TArgs& a, size_t i, const std::string& name, bool dflt) {
  const Val* v = a.get(i, name);
  return v && !v->isNone() ? v->number() != 0 : dflt;
}

// conv1d/conv2d and their transposes: batchify (an unbatched input gains a batch dim of 1),
// resolve padding='same'/'valid', then aten.convolution.
Val conv(Dispatcher& d, const TArgs& a, size_t spatial, bool transposed) {
  const std::string fn = std::string(transposed ? "conv_transpose" : "conv") + std::to_string(spatial) + "d";
  const Val& input = tensorArg(a, 0, "input", fn);
  const Val& weight = tensorArg(a, 1, "weight", fn);
  const Val* bias = optTensor(a, 2, "bias");
  const int64_t di = ndim(input);
  if (di != int64_t(spatial) + 1 && di != int64_t(spatial) + 2) {
    std::string s = "[";
    for (size_t i = 0; i < input.tensorType().sizes.size(); ++i) s += (i ? ", " : "") + input.tensorType().sizes[i].str();
    throw TorchError("RuntimeError", "Expected " + std::to_string(spatial + 1) + "D (unbatched) or " + std::to_string(spatial + 2) +
                                         "D (batched) input to " + fn + ", but got input of size: " + s + "]");
  }
  const bool unbatched = di == int64_t(spatial) + 1;
  Val x = unbatched ? d.call("aten.unsqueeze.default", {input, integer(0)}) : input;
  Shape stride = intArg(a, 3, "stride", spatial, 1, fn);
  Shape padding, outputPadding(spatial, 0), dilation;
  int64_t groups;
  if (transposed) {  // (input, weight, bias, stride, padding, output_padding, groups, dilation)
    padding = intArg(a, 4, "padding", spatial, 0, fn);
    outputPadding = intArg(a, 5, "output_padding", spatial, 0, fn);
    groups = scalarInt(a, 6, "groups", 1);
    dilation = intArg(a, 7, "dilation", spatial, 1, fn);
  } else {  // (input, weight, bias, stride, padding, dilation, groups)
    dilation = intArg(a, 5, "dilation", spatial, 1, fn);
    groups = scalarInt(a, 6, "groups", 1);
    const Val* pv = a.get(4, "padding");
    if (pv && pv->kind == Val::Kind::String) {
      if (pv->s == "valid") {
        padding = Shape(spatial, 0);
      } else if (pv->s == "same") {
        for (auto s : stride)
          if (s != 1) throw TorchError("RuntimeError", "padding='same' is not supported for strided convolutions");
        // at::_convolution_mode: symmetric padding when the total is even; otherwise pad the
        // input by the difference first (constant_pad_nd) and keep the symmetric part.
        Shape w = sizes(weight, fn.c_str());
        Shape left(spatial), right(spatial);
        bool symmetric = true;
        for (size_t i = 0; i < spatial; ++i) {
          int64_t total = dilation[i] * (w[i + 2] - 1);
          left[i] = total / 2;
          right[i] = total - left[i];
          symmetric = symmetric && left[i] == right[i];
        }
        if (!symmetric) {
          Shape padNd(2 * spatial, 0);
          for (size_t i = 0; i < spatial; ++i) {
            int64_t delta = right[i] - left[i];
            size_t at = 2 * (spatial - 1 - i);
            if (delta > 0) padNd[at + 1] = delta;
            else {
              padNd[at] = delta;
              left[i] = right[i];
            }
          }
          x = d.call("aten.constant_pad_nd.default", {x, ops::intList(padNd), integer(0)});
        }
        padding = left;
      } else {
        throw TorchError("RuntimeError", "Invalid padding string: '" + pv->s + "'");
      }
    } else {
      padding = intArg(a, 4, "padding", spatial, 0, fn);
    }
  }
  Val out =
      d.call("aten.convolution.default", {x, weight, bias ? *bias : Val::none(), ops::intList(stride), ops::intList(padding),
                                          ops::intList(dilation), Val::boolean(transposed), ops::intList(outputPadding), integer(groups)});
  return unbatched ? d.call("aten.squeeze.dim", {out, integer(0)}) : out;
}

// Pooling arguments: the ATen call lists every argument up to the last non-default one, as
// the ATen graphs show them (max_pool2d_with_indices(x, [2, 2], [2, 2])).
std::vector<Val> trimDefaults(std::vector<Val> args, const std::vector<Val>& defaults, size_t required) {
  auto same = [](const Val& x, const Val& y) {
    if (x.kind != y.kind) return false;
    if (x.kind == Val::Kind::List) return x.ints() == y.ints();
    if (x.kind == Val::Kind::None) return true;
    return x.number() == y.number();
  };
  while (args.size() > required && same(args.back(), defaults[args.size() - required - 1])) args.pop_back();
  return args;
}

Val maxPool2d(Dispatcher& d, const TArgs& a) {
  const Val& x = tensorArg(a, 0, "input", "max_pool2d");
  const Val* k = a.get(1, "kernel_size");
  if (!k) throw TorchError("TypeError", "max_pool2d() missing required argument 'kernel_size' (pos 2)");
  Shape kernel = intList(*k, 2, "max_pool2d", "kernel_size");
  const Val* sv = a.get(2, "stride");
  Shape stride =
      !sv || sv->isNone() || (sv->kind == Val::Kind::List && sv->list.empty()) ? kernel : intList(*sv, 2, "max_pool2d", "stride");
  Shape padding = intArg(a, 3, "padding", 2, 0, "max_pool2d");
  Shape dilation = intArg(a, 4, "dilation", 2, 1, "max_pool2d");
  const bool ceil = flag(a, 5, "ceil_mode", false);
  const bool withIndices = flag(a, 6, "return_indices", false);
  std::vector<Val> args =
      trimDefaults({x, ops::intList(kernel), ops::intList(stride), ops::intList(padding), ops::intList(dilation), Val::boolean(ceil)},
                   {ops::intList({0, 0}), ops::intList({1, 1}), Val::boolean(false)}, 3);
  // F.max_pool2d(return_indices=True) returns (values, indices); without it Kiln records the
  // single-result aten.max_pool2d (see conv_ops.cpp).
  if (withIndices) return d.call("aten.max_pool2d_with_indices.default", args);
  return d.call("aten.max_pool2d.default", args);
}

Val avgPool2d(Dispatcher& d, const TArgs& a) {
  const Val& x = tensorArg(a, 0, "input", "avg_pool2d");
  const Val* k = a.get(1, "kernel_size");
  if (!k) throw TorchError("TypeError", "avg_pool2d() missing required argument 'kernel_size' (pos 2)");
  Shape kernel = intList(*k, 2, "avg_pool2d", "kernel_size");
  const Val* sv = a.get(2, "stride");
  Shape stride =
      !sv || sv->isNone() || (sv->kind == Val::Kind::List && sv->list.empty()) ? kernel : intList(*sv, 2, "avg_pool2d", "stride");
  Shape padding = intArg(a, 3, "padding", 2, 0, "avg_pool2d");
  const Val* div = a.get(6, "divisor_override");
  std::vector<Val> args =
      trimDefaults({x, ops::intList(kernel), ops::intList(stride), ops::intList(padding), Val::boolean(flag(a, 4, "ceil_mode", false)),
                    Val::boolean(flag(a, 5, "count_include_pad", true)), div && !div->isNone() ? *div : Val::none()},
                   {ops::intList({0, 0}), Val::boolean(false), Val::boolean(true), Val::none()}, 3);
  return d.call("aten.avg_pool2d.default", args);
}

// F.adaptive_avg_pool2d: None entries of output_size keep the input's size; a 1x1 output is
// a mean over H and W (at::adaptive_avg_pool2d does this), otherwise _adaptive_avg_pool2d.
Val adaptiveAvgPool2d(Dispatcher& d, const TArgs& a) {
  const Val& x = tensorArg(a, 0, "input", "adaptive_avg_pool2d");
  const Val& os = needArg(a, 1, "output_size", "adaptive_avg_pool2d");
  Shape in = ops::sizesOf(x);
  Shape out;
  if (os.kind == Val::Kind::Int) {
    out = {os.i, os.i};
  } else {
    if (os.kind != Val::Kind::List) throw TorchError("TypeError", "adaptive_avg_pool2d(): argument 'output_size' must be tuple of ints");
    if (in.size() <= os.list.size())
      throw TorchError("ValueError", "Input dimension should be at least " + std::to_string(os.list.size() + 1));
    for (size_t i = 0; i < os.list.size(); ++i) {
      const Val& v = os.list[i];
      if (!v.isNone() && v.kind != Val::Kind::Int)  // a float size is PyTorch's TypeError (and may not fit an int64)
        throw TorchError("TypeError",
                         "adaptive_avg_pool2d(): argument 'output_size' must be tuple of ints, but found element of "
                         "type " +
                             std::string(v.kind == Val::Kind::Float ? "float" : "another type") + " at pos " + std::to_string(i));
      out.push_back(v.isNone() ? in[in.size() - os.list.size() + i] : v.i);
    }
  }
  if (out.size() == 2 && out[0] == 1 && out[1] == 1 && (in.size() == 3 || in.size() == 4))
    return d.call("aten.mean.dim", {x, ops::intList({-1, -2}), Val::boolean(true)});
  return d.call("aten._adaptive_avg_pool2d.default", {x, ops::intList(out)});
}

// F.embedding(input, weight, padding_idx=None, max_norm=None, ...) -> aten.embedding(weight, input, padding_idx).
Val embedding(Dispatcher& d, const TArgs& a) {
  const Val& input = tensorArg(a, 0, "input", "embedding");
  const Val& weight = tensorArg(a, 1, "weight", "embedding");
  int64_t paddingIdx = -1;
  if (const Val* p = a.get(2, "padding_idx"); p && !p->isNone()) {
    const int64_t rows = ops::sizesOf(weight).at(0);
    paddingIdx = p->i;
    if (paddingIdx > 0 && paddingIdx >= rows) throw TorchError("AssertionError", "Padding_idx must be within num_embeddings");
    if (paddingIdx < 0) {
      if (paddingIdx < -rows) throw TorchError("AssertionError", "Padding_idx must be within num_embeddings");
      paddingIdx += rows;
    }
  }
  if (const Val* m = a.get(3, "max_norm"); m && !m->isNone())
    throw TorchError("NotImplementedError",
                     "F.embedding with max_norm (an in-place renormalization of the weight) is not supported by Kiln yet");
  if (paddingIdx == -1) return d.call("aten.embedding.default", {weight, input});
  return d.call("aten.embedding.default", {weight, input, integer(paddingIdx)});
}

// F.pad(input, pad, mode='constant', value=None): constant mode is aten.constant_pad_nd.
Val pad(Dispatcher& d, const TArgs& a) {
  const Val& x = tensorArg(a, 0, "input", "pad");
  const Val& pv = needArg(a, 1, "pad", "pad");
  Shape p = pv.ints();
  const Val* modeV = a.get(2, "mode");
  const std::string mode = modeV && modeV->kind == Val::Kind::String ? modeV->s : "constant";
  const Val* value = a.get(3, "value");
  const bool hasValue = value && !value->isNone();
  if (mode != "constant" && mode != "reflect" && mode != "replicate" && mode != "circular")
    throw TorchError("NotImplementedError", "Unrecognised padding mode " + mode);
  if (mode != "constant" && hasValue) throw TorchError("RuntimeError", "Padding mode \"" + mode + "\" doesn't take in value argument");
  if (p.size() % 2 != 0) throw TorchError("RuntimeError", "Padding length must be divisible by 2");
  if (static_cast<int64_t>(p.size()) > 2 * ndim(x))
    throw TorchError("RuntimeError",
                     "Padding length should be less than or equal to two times the input dimension but got padding length " +
                         std::to_string(p.size()) + " and input of dimension " + std::to_string(ndim(x)));
  if (mode != "constant") throw TorchError("NotImplementedError", "F.pad with mode='" + mode + "' is not supported by Kiln yet");
  return d.call("aten.constant_pad_nd.default", {x, ops::intList(p), hasValue ? *value : integer(0)});
}

Val binaryTensors(Dispatcher& d, const TArgs& a, const char* op, const char* fn, const char* second) {
  return d.call(op, {tensorArg(a, 0, "input", fn), tensorArg(a, 1, second, fn)});
}

}  // namespace

void registerLinalgFns(std::vector<TorchFn>& t) {
  auto mm = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "matmul");
    return matmul(d, x, tensorArg(a, 1, "other", "matmul"));
  };
  t.push_back({"torch.matmul", ir::NodeKind::CallFunction, mm});
  t.push_back({"matmul", ir::NodeKind::CallMethod, mm});
  t.push_back({"_operator.matmul", ir::NodeKind::CallFunction,
               [](Dispatcher& d, const TArgs& a) { return matmul(d, a.args.at(0), a.args.at(1)); }});
  for (auto [name, op, second] : {std::tuple{"mm", "aten.mm.default", "mat2"},
                                  {"bmm", "aten.bmm.default", "mat2"},
                                  {"mv", "aten.mv.default", "vec"},
                                  {"dot", "aten.dot.default", "tensor"}}) {
    std::string fn = name, aten = op, other = second;
    auto impl = [aten, fn, other](Dispatcher& d, const TArgs& a) { return binaryTensors(d, a, aten.c_str(), fn.c_str(), other.c_str()); };
    t.push_back({"torch." + fn, ir::NodeKind::CallFunction, impl});
    t.push_back({fn, ir::NodeKind::CallMethod, impl});
  }
  auto addmm = [](Dispatcher& d, const TArgs& a) {
    std::vector<Val> args{tensorArg(a, 0, "input", "addmm"), tensorArg(a, 1, "mat1", "addmm"), tensorArg(a, 2, "mat2", "addmm")};
    const Val* beta = a.kw("beta");
    const Val* alpha = a.kw("alpha");
    if (beta || alpha) {
      args.push_back(beta ? *beta : integer(1));
      if (alpha) args.push_back(*alpha);
    }
    return d.call("aten.addmm.default", args);
  };
  t.push_back({"torch.addmm", ir::NodeKind::CallFunction, addmm});
  t.push_back({"addmm", ir::NodeKind::CallMethod, addmm});
  t.push_back({"torch._C._nn.linear", ir::NodeKind::CallFunction, linear});
  t.push_back({"torch.conv1d", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) { return conv(d, a, 1, false); }});
  t.push_back({"torch.conv2d", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) { return conv(d, a, 2, false); }});
  t.push_back({"torch.conv_transpose1d", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) { return conv(d, a, 1, true); }});
  t.push_back({"torch.conv_transpose2d", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) { return conv(d, a, 2, true); }});
  t.push_back({"torch.nn.functional.max_pool2d", ir::NodeKind::CallFunction, maxPool2d});
  t.push_back({"torch._C._nn.avg_pool2d", ir::NodeKind::CallFunction, avgPool2d});
  t.push_back({"torch.nn.functional.adaptive_avg_pool2d", ir::NodeKind::CallFunction, adaptiveAvgPool2d});
  t.push_back({"torch.nn.functional.embedding", ir::NodeKind::CallFunction, embedding});
  t.push_back({"torch.nn.functional.pad", ir::NodeKind::CallFunction, pad});
}

}  // namespace kiln::torchapi
