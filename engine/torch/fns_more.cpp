// More torch-level functions, each decomposed the way ATen's composite kernels do:
// scaled_dot_product_attention (the math kernel: scaled q @ k^T + mask, _safe_softmax, @ v),
// outer, equal / isclose / allclose, isnan / isinf / isfinite, one_hot, sort / argsort / topk
// (indices from the sort ops, values gathered), new_ones / new_zeros / new_full / new_empty,
// repeat_interleave, addcmul / addcdiv, diagonal, index_copy / index_add / index_put.
#include "engine/ops/shape_util.h"
#include "engine/torch/torch_functions.h"

#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;
using tensor::Shape;
using tensor::TorchError;

namespace {

int64_t ndim(const Val& v) { return static_cast<int64_t>(v.tensorType().sizes.size()); }
Val integer(int64_t i) { return Val::integer(i); }

bool flagArg(const TArgs& a, size_t i, const std::string& name, bool dflt) {
  const Val* v = a.get(i, name);
  if (!v || v->isNone()) return dflt;
  if (v->kind == Val::Kind::Bool) return v->b;
  return v->number() != 0;
}

double floatArg(const TArgs& a, size_t i, const std::string& name, double dflt) {
  const Val* v = a.get(i, name);
  return v && !v->isNone() ? v->number() : dflt;
}

const char* typeName(ir::DType d) { return ir::scalarTypeName(d); }

// A double as C++ streams print it (1.5, -1, 1e-05), as ATen's messages show numbers.
std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// Sizes as c10 prints a DimVector in some messages: "2 4".
std::string spaced(const Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? " " : "") + std::to_string(s[i]);
  return out;
}

// The common-case reshape: a view when the strides allow, else clone + _unsafe_view.
Val reshape(Dispatcher& d, const Val& x, const Shape& shape) {
  if (ops::viewable(x, shape)) return d.call("aten.view.default", {x, ops::intList(shape)});
  return d.call("aten._unsafe_view.default", {d.call("aten.clone.default", {x}), ops::intList(shape)});
}

Val callFn(Dispatcher& d, const std::string& target, std::vector<Val> args) {
  TArgs ta;
  ta.args = std::move(args);
  return findTorchFn(target, ir::NodeKind::CallFunction)->impl(d, ta);
}

Val matmul(Dispatcher& d, const Val& a, const Val& b) { return callFn(d, "torch.matmul", {a, b}); }

// ---- outer ------------------------------------------------------------------------------

// at::outer: self.reshape({n, 1}) * vec2.
Val outer(Dispatcher& d, const TArgs& a, const std::string& fn) {
  const Val& x = tensorArg(a, 0, "input", fn);
  const Val& y = tensorArg(a, 1, "vec2", fn);
  if (ndim(x) != 1) throw TorchError("RuntimeError", "outer: Expected 1-D argument self, but got " + std::to_string(ndim(x)) + "-D");
  if (ndim(y) != 1) throw TorchError("RuntimeError", "outer: Expected 1-D argument vec2, but got " + std::to_string(ndim(y)) + "-D");
  return d.call("aten.mul.Tensor", {reshape(d, x, {ops::sizesOf(x)[0], 1}), y});
}

// ---- isnan / isinf / isfinite -------------------------------------------------------------

Val boolLike(Dispatcher& d, const Val& x, bool v) {
  return d.call("aten.full.default", {ops::intList(ops::sizesOf(x)), Val::boolean(v), Val::dtypeVal(ir::DType::Bool)});
}

Val isnan(Dispatcher& d, const Val& x) { return d.call("aten.ne.Tensor", {x, x}); }

Val isinf(Dispatcher& d, const Val& x) {
  if (!ir::isFloating(x.tensorType().dtype)) return boolLike(d, x, false);
  return d.call("aten.eq.Tensor", {d.call("aten.abs.default", {x}), Val::real(INFINITY)});
}

Val isfinite(Dispatcher& d, const Val& x) {
  if (!ir::isFloating(x.tensorType().dtype)) return boolLike(d, x, true);
  return d.call("aten.logical_and.default",
                {d.call("aten.eq.Tensor", {x, x}), d.call("aten.ne.Tensor", {d.call("aten.abs.default", {x}), Val::real(INFINITY)})});
}

// ---- equal / isclose / allclose ---------------------------------------------------------

// at::isclose: equality, NaN == NaN with equal_nan, then |a - b| <= atol + |rtol * b| where finite.
Val isclose(Dispatcher& d, const TArgs& a, const std::string& fn) {
  const Val& x = tensorArg(a, 0, "input", fn);
  const Val& y = tensorArg(a, 1, "other", fn);
  const double rtol = floatArg(a, 2, "rtol", 1e-05), atol = floatArg(a, 3, "atol", 1e-08);
  const bool equalNan = flagArg(a, 4, "equal_nan", false);
  ir::DType dx = x.tensorType().dtype, dy = y.tensorType().dtype;
  if (dx != dy) throw TorchError("RuntimeError", std::string(typeName(dx)) + " did not match " + typeName(dy));
  if (rtol < 0) throw TorchError("RuntimeError", "rtol must be greater than or equal to zero, but got " + num(rtol));
  if (atol < 0) throw TorchError("RuntimeError", "atol must be greater than or equal to zero, but got " + num(atol));
  Val close = d.call("aten.eq.Tensor", {x, y});
  if (equalNan && ir::isFloating(dx))
    close = d.call("aten.logical_or.default", {close, d.call("aten.logical_and.default", {isnan(d, x), isnan(d, y)})});
  if (rtol == 0 && atol == 0) return close;
  Val cx = x, cy = y;
  if (dx == ir::DType::Bool) {
    cx = d.call("prims.convert_element_type.default", {x, Val::dtypeVal(ir::DType::Float32)});
    cy = d.call("prims.convert_element_type.default", {y, Val::dtypeVal(ir::DType::Float32)});
  }
  Val allowed =
      d.call("aten.add.Tensor", {d.call("aten.abs.default", {d.call("aten.mul.Tensor", {cy, Val::real(rtol)})}), Val::real(atol)});
  Val actual = d.call("aten.abs.default", {d.call("aten.sub.Tensor", {cx, cy})});
  Val ok = d.call("aten.logical_and.default", {isfinite(d, actual), d.call("aten.le.Tensor", {actual, allowed})});
  return d.call("aten.logical_or.default", {close, ok});
}

// A bool computed from tensor data: only eager calls get here (capture breaks first, as
// Dynamo does for data-dependent operators).
bool truthOf(const Val& v, const std::string& fn) {
  if (v.kind != Val::Kind::Tensor)
    throw TorchError("NotImplementedError", fn + " of traced tensors (a data-dependent Python bool) cannot be captured");
  // A CUDA result is read back (one element: the synchronization PyTorch's bool() makes too).
  return (v.t.isCpu() ? v.t : v.t.toDevice(tensor::Device::cpu())).loadAt(0) != 0.0;
}

Val equal(Dispatcher& d, const TArgs& a) {
  const Val& x = tensorArg(a, 0, "input", "equal");
  const Val& y = tensorArg(a, 1, "other", "equal");
  if (ops::sizesOf(x) != ops::sizesOf(y)) return Val::boolean(false);
  return Val::boolean(truthOf(d.call("aten.all.default", {d.call("aten.eq.Tensor", {x, y})}), "equal"));
}

Val allclose(Dispatcher& d, const TArgs& a) {
  return Val::boolean(truthOf(d.call("aten.all.default", {isclose(d, a, "allclose")}), "allclose"));
}

// ---- sort / argsort / topk ----------------------------------------------------------------

Val argsortIdx(Dispatcher& d, const Val& x, int64_t dim, bool descending) {
  return d.call("aten.argsort.stable", {x, Val::boolean(true), integer(dim), Val::boolean(descending)});
}

// The values for indices along dim (0-d tensors index themselves).
Val gatherAlong(Dispatcher& d, const Val& x, int64_t dim, const Val& idx) {
  if (ndim(x) == 0) return d.call("aten.clone.default", {x});
  return d.call("aten.gather.default", {x, integer(dim), idx});
}

// sort(input, dim=-1, descending=False, *, stable=False) -> (values, indices)
Val sort(Dispatcher& d, const TArgs& a) {
  const Val& x = tensorArg(a, 0, "input", "sort");
  const Val* dimV = a.get(1, "dim");
  size_t descAt = 2;
  if (dimV && dimV->kind == Val::Kind::Bool && !a.kw("dim")) {  // sort(stable, dim, descending) overload
    dimV = a.get(2, "dim");
    descAt = 3;
  }
  int64_t dim = ops::wrapDim(dimV && !dimV->isNone() ? dimV->i : -1, ndim(x));
  bool descending = flagArg(a, descAt, "descending", false);
  Val idx = argsortIdx(d, x, dim, descending);
  return Val::listOf({gatherAlong(d, x, dim, idx), idx});
}

// argsort(input, dim=-1, descending=False, *, stable=False)
Val argsort(Dispatcher& d, const TArgs& a) {
  const Val& x = tensorArg(a, 0, "input", "argsort");
  int64_t dim = ops::wrapDim(intArg(a, 1, "dim", "argsort", -1), ndim(x));
  return argsortIdx(d, x, dim, flagArg(a, 2, "descending", false));
}

// topk(input, k, dim=-1, largest=True, sorted=True) -> (values, indices)
Val topk(Dispatcher& d, const TArgs& a) {
  const Val& x = tensorArg(a, 0, "input", "topk");
  const Val& kv = needArg(a, 1, "k", "topk");
  if (kv.kind != Val::Kind::Int)
    throw TorchError("TypeError",
                     std::string("topk(): argument 'k' (position 2) must be int, not ") + (kv.kind == Val::Kind::Float ? "float"
                                                                                           : kv.isTensor()             ? "Tensor"
                                                                                                                       : "object"));
  int64_t dim = ops::wrapDim(intArg(a, 2, "dim", "topk", -1), ndim(x));
  Val idx = d.call("kiln.topk_indices.default",
                   {x, kv, integer(dim), Val::boolean(flagArg(a, 3, "largest", true)), Val::boolean(flagArg(a, 4, "sorted", true))});
  return Val::listOf({gatherAlong(d, x, dim, idx), idx});
}

// ---- new_* ----------------------------------------------------------------------------------

// Sizes given as varargs (x.new_zeros(2, 3)), one sequence, or size=; from argument 1 on.
Val sizeList(const TArgs& a) {
  if (const Val* s = a.kw("size")) return s->kind == Val::Kind::List ? *s : Val::listOf({*s});
  if (a.args.size() == 2 && a.args[1].kind == Val::Kind::List) return a.args[1];
  std::vector<Val> dims(a.args.begin() + std::min<std::ptrdiff_t>(1, static_cast<std::ptrdiff_t>(a.args.size())), a.args.end());
  for (const auto& v : dims)
    if (v.kind != Val::Kind::Int) throw TorchError("TypeError", "new_*(): argument 'size' must be tuple of ints");
  return Val::listOf(dims);
}

void checkNoGradRequest(const TArgs& a, const std::string& fn) {
  if (const Val* rg = a.kw("requires_grad"); rg && rg->kind == Val::Kind::Bool && rg->b)
    throw TorchError("NotImplementedError", "Tensor." + fn + "(requires_grad=True) is not supported by Kiln yet");
}

Val newFilled(Dispatcher& d, const TArgs& a, const std::string& fn, const Val& value) {
  const Val& self = a.args.at(0);
  checkNoGradRequest(a, fn);
  const Val* dt = a.kw("dtype");
  ir::DType dtype = dt && dt->kind == Val::Kind::DType ? dt->dtype : self.tensorType().dtype;
  return d.call("aten.full.default", {sizeList(a), value, Val::dtypeVal(dtype)});
}

// ---- repeat_interleave ----------------------------------------------------------------------

// The index tensor repeat_interleave(repeats) gives: i repeated repeats[i] times (real tensors only).
Val repeatIndex(const Val& repeats) {
  if (repeats.kind != Val::Kind::Tensor)
    throw TorchError("NotImplementedError", "repeat_interleave with a traced repeats tensor cannot be captured by Kiln yet");
  const tensor::Tensor& r = repeats.t;
  if (r.dim() > 1) throw TorchError("RuntimeError", "repeats must be 0-dim or 1-dim tensor");
  if (ir::isFloating(r.dtype()) || r.dtype() == ir::DType::Bool) throw TorchError("RuntimeError", "repeats has to be Long or Int tensor");
  std::vector<int64_t> counts;
  tensor::Tensor rc = r.contiguous();
  for (int64_t i = 0; i < rc.numel(); ++i) counts.push_back(rc.loadIntAt(i));
  int64_t total = 0;
  for (auto c : counts) {
    if (c < 0) throw TorchError("RuntimeError", "repeats can not be negative");
    if (__builtin_add_overflow(total, c, &total))
      throw TorchError("RuntimeError", "Storage size calculation overflowed with sizes=[sum of repeats past int64]");
  }
  tensor::Tensor out = tensor::Tensor::empty({total}, ir::DType::Int64);
  int64_t k = 0;
  for (size_t i = 0; i < counts.size(); ++i)
    for (int64_t j = 0; j < counts[i]; ++j) out.storeIntAt(k++, static_cast<int64_t>(i));
  return Val::of(out);
}

// repeat_interleave(input, repeats, dim=None, *, output_size=None); repeat_interleave(repeats).
Val repeatInterleave(Dispatcher& d, const TArgs& a) {
  const Val& first = tensorArg(a, 0, "input", "repeat_interleave");
  const Val* repeats = a.get(1, "repeats");
  if (!repeats) return repeatIndex(first);  // torch.repeat_interleave(repeats)
  const Val* dimV = a.get(2, "dim");
  Val x = first;
  int64_t dim = 0;
  if (!dimV || dimV->isNone()) x = reshape(d, first, {-1});
  else dim = ops::wrapDim(dimV->i, ndim(first));
  if (ndim(x) == 0) x = reshape(d, x, {1});
  if (repeats->isTensor()) {
    // A single count is the int case; several go through index_select (data-dependent size).
    Shape rs = ops::sizesOf(*repeats);
    int64_t n = ops::sizesOf(x)[dim];
    if (repeats->kind == Val::Kind::Tensor && (rs.empty() || (rs.size() == 1 && rs[0] == 1))) {
      int64_t r = repeats->t.loadIntAt(0);
      if (ir::isFloating(repeats->t.dtype())) throw TorchError("RuntimeError", "repeats has to be Long or Int tensor");
      TArgs b = a;
      b.args = {first, integer(r)};
      if (dimV) b.args.push_back(*dimV);
      b.kwargs.clear();
      return repeatInterleave(d, b);
    }
    if (rs.size() == 1 && rs[0] != n)
      throw TorchError("RuntimeError", "repeats must have the same size as input along dim, but got repeats.size(0) = " +
                                           std::to_string(rs[0]) + " and input.size(" + std::to_string(dim) + ") = " + std::to_string(n));
    return d.call("aten.index_select.default", {x, integer(dim), repeatIndex(*repeats)});
  }
  if (repeats->kind != Val::Kind::Int) throw TorchError("TypeError", "repeat_interleave(): argument 'repeats' must be Tensor or int");
  const int64_t r = repeats->i;
  if (r < 0) throw TorchError("RuntimeError", "Repeats must be non-negative");
  // unsqueeze(dim + 1), expand that dim to r, then a contiguous copy flattened back.
  Shape s = ops::sizesOf(x);
  Val u = d.call("aten.unsqueeze.default", {x, integer(dim + 1)});
  Shape e = s;
  e.insert(e.begin() + dim + 1, r);
  Val ex = d.call("aten.expand.default", {u, ops::intList(e)});
  Shape out = s;
  out[dim] *= r;
  return d.call("aten.view.default", {d.call("aten.clone.default", {ex}), ops::intList(out)});
}

// ---- addcmul / addcdiv ----------------------------------------------------------------------

// self + value * tensor1 (* or /) tensor2, evaluated left to right as ATen's kernel does.
Val addc(Dispatcher& d, const TArgs& a, bool div) {
  const std::string fn = div ? "addcdiv" : "addcmul";
  const Val& self = tensorArg(a, 0, "input", fn);
  const Val& t1 = tensorArg(a, 1, "tensor1", fn);
  const Val& t2 = tensorArg(a, 2, "tensor2", fn);
  const Val* value = a.get(3, "value");
  if (div && !ir::isFloating(t1.tensorType().dtype) && !ir::isFloating(t2.tensorType().dtype))
    throw TorchError("RuntimeError",
                     "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
                     "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
                     "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
                     "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
                     "tensor2), for all dtypes.");
  const bool scale = value && !value->isNone() && (value->isTensor() || value->number() != 1.0);
  Val scaled = scale ? d.call("aten.mul.Tensor", {t1, *value}) : t1;
  Val term = d.call(div ? "aten.div.Tensor" : "aten.mul.Tensor", {scaled, t2});
  return d.call("aten.add.Tensor", {self, term});
}

// ---- index_copy / index_add / index_put ---------------------------------------------------

Val indexCopyLike(Dispatcher& d, const TArgs& a, bool add) {
  const std::string fn = add ? "index_add_" : "index_copy_";
  const Val& self = tensorArg(a, 0, "input", fn);
  const int64_t dim = ops::wrapDim(intArg(a, 1, "dim", fn, 0), ndim(self));
  const Val& index = tensorArg(a, 2, "index", fn);
  Val source = tensorArg(a, 3, "source", fn);
  ir::DType ds = self.tensorType().dtype, dsrc = source.tensorType().dtype, di = index.tensorType().dtype;
  if (add) {
    if (ndim(index) > 1)
      throw TorchError("IndexError", "index_add_(): Index is supposed to be a vector, but got dim: " + std::to_string(ndim(index)) +
                                         " with type: " + typeName(di) + " and size: " + tensor::shapeStr(ops::sizesOf(index)));
    if (di != ir::DType::Int64 && di != ir::DType::Int32)
      throw TorchError("RuntimeError", "index_add_(): Expected dtype int32/int64 for index but got: " + std::string(typeName(di)));
    if (ds != dsrc)
      throw TorchError("RuntimeError", "index_add_(): self (" + std::string(typeName(ds)) + ") and source (" + typeName(dsrc) +
                                           ") must have the same scalar type");
  } else {
    if (ndim(index) > 1)
      throw TorchError("IndexError", "index_copy_(): Index should have dimension 1 or 0 (got " + std::to_string(ndim(index)) + ")");
    if (di != ir::DType::Int64)
      throw TorchError("RuntimeError", "index_copy_(): Expected a long tensor for index, but got " + std::string(typeName(di)));
    if (ds != dsrc)
      throw TorchError("RuntimeError", "index_copy_(): self and source expected to have the same dtype, but got (self) " +
                                           std::string(typeName(ds)) + " and (source) " + typeName(dsrc));
  }
  Shape ss = ops::sizesOf(self), sr = ops::sizesOf(source);
  int64_t numIndices = 1;
  for (auto s : ops::sizesOf(index)) numIndices = tensor::sizeMul(numIndices, s);
  if (add && !sr.empty() && !ss.empty()) {
    Shape a1 = ss, b1 = sr;
    if (sr.size() == ss.size()) {
      a1.erase(a1.begin() + dim);
      b1.erase(b1.begin() + dim);
    }
    if (sr.size() != ss.size() || a1 != b1)
      throw TorchError("RuntimeError",
                       "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = " +
                           tensor::shapeStr(ss) + " source.shape = " + tensor::shapeStr(sr));
    if (numIndices != sr[dim])
      throw TorchError("RuntimeError", "index_add_(): Number of indices (" + std::to_string(numIndices) +
                                           ") should be equal to source.size(dim): (" + std::to_string(sr[dim]) +
                                           "), for dim: " + std::to_string(dim));
  } else if (!sr.empty() && !ss.empty()) {
    if (sr.size() != ss.size())
      throw TorchError("RuntimeError", fn +
                                           "(): When source and destination are not scalars, their dimensionality must match. Source "
                                           "dimensionality (" +
                                           std::to_string(sr.size()) + "), destination dimensionality (" + std::to_string(ss.size()) + ")");
    Shape a1 = ss, b1 = sr;
    a1.erase(a1.begin() + dim);
    b1.erase(b1.begin() + dim);
    if (a1 != b1)
      throw TorchError("RuntimeError",
                       fn + "(): Source/destination tensor must have same slice shapes. Destination slice shape: " + spaced(a1) +
                           " at dimension " + std::to_string(dim) + " and source slice shape: " + spaced(b1) + " at dimension 0.");
    if (numIndices != sr[dim])
      throw TorchError("IndexError", fn + "(): Number of indices (" + std::to_string(numIndices) +
                                         ") should be equal to source.size(dim) (" + std::to_string(sr[dim]) + ")");
  }
  if (add) {
    const Val* alpha = a.kw("alpha");
    if (alpha && !alpha->isNone() && alpha->number() != 1.0) source = d.call("aten.mul.Tensor", {source, *alpha});
  }
  if (ss.empty()) {  // a 0-dim self: index is [0] (or empty)
    Val v = ndim(source) == 0 ? source : reshape(d, source, {});
    if (numIndices == 0) return d.call("aten.clone.default", {self});
    return add ? d.call("aten.add.Tensor", {self, v}) : d.call("aten.clone.default", {v});
  }
  return d.call(add ? "aten.index_add.default" : "aten.index_copy.default", {self, integer(dim), index, source});
}

// index_put(input, indices, values, accumulate=False)
Val indexPut(Dispatcher& d, const TArgs& a) {
  const Val& self = tensorArg(a, 0, "input", "index_put_");
  const Val& indices = needArg(a, 1, "indices", "index_put_");
  const Val& values = tensorArg(a, 2, "values", "index_put_");
  if (indices.kind != Val::Kind::List)
    throw TorchError("TypeError", "index_put_(): argument 'indices' (position 1) must be tuple of Tensors, not Tensor");
  ir::DType ds = self.tensorType().dtype, dv = values.tensorType().dtype;
  if (ds != dv)
    throw TorchError("RuntimeError", "Index put requires the source and destination dtypes match, got " + std::string(typeName(ds)) +
                                         " for the destination and " + typeName(dv) + " for the source.");
  return d.call("aten.index_put.default", {self, indices, values, Val::boolean(flagArg(a, 3, "accumulate", false))});
}

// ---- scaled_dot_product_attention -------------------------------------------------------------

// convert_boolean_attn_mask: -inf where the mask is False, 0 where True, in the query's dtype.
Val boolMaskToFloat(Dispatcher& d, const Val& mask, ir::DType dt) {
  Val zero = d.call("aten.full.default", {Val::listOf({}), Val::real(0.0), Val::dtypeVal(dt)});
  return d.call("aten.where.self", {d.call("aten.logical_not.default", {mask}), Val::real(-INFINITY), zero});
}

// ATen's _scaled_dot_product_attention_math: q and k each scaled by sqrt(scale), the mask added,
// _safe_softmax (rows masked entirely give 0, as PyTorch's CPU kernel gives too), then @ v.
Val sdpa(Dispatcher& d, const TArgs& a) {
  const std::string fn = "scaled_dot_product_attention";
  const Val& q = tensorArg(a, 0, "query", fn);
  Val k = tensorArg(a, 1, "key", fn);
  Val v = tensorArg(a, 2, "value", fn);
  Val mask = opt(a, 3, "attn_mask");
  const double dropout = floatArg(a, 4, "dropout_p", 0.0);
  const bool causal = flagArg(a, 5, "is_causal", false);
  const Val& scaleV = opt(a, 6, "scale");
  const bool gqa = flagArg(a, 7, "enable_gqa", false);
  ir::DType dt = q.tensorType().dtype;
  if (k.tensorType().dtype != dt || v.tensorType().dtype != dt)
    throw TorchError("RuntimeError", std::string("Expected query, key, and value to have the same dtype, but got query.dtype: ") +
                                         ir::typeMetaName(dt) + " key.dtype: " + ir::typeMetaName(k.tensorType().dtype) +
                                         " and value.dtype: " + ir::typeMetaName(v.tensorType().dtype) + " instead.");
  if (ndim(q) < 2 || ndim(k) < 2 || ndim(v) < 2)
    throw TorchError("RuntimeError",
                     "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: " + std::to_string(ndim(q)) +
                         " key.dim: " + std::to_string(ndim(k)) + " and value.dim: " + std::to_string(ndim(v)) + " instead.");
  if (!ir::isFloating(dt)) throw TorchError("RuntimeError", "expected scalar type Float but found " + std::string(typeName(dt)));
  if (dropout < 0.0 || dropout > 1.0)
    throw TorchError("RuntimeError", "dropout probability has to be between 0 and 1, but got " + num(dropout));
  if (dropout > 0.0)
    throw TorchError("NotImplementedError", "scaled_dot_product_attention with dropout_p > 0 is not supported by Kiln yet");
  if (mask.isTensor()) {
    ir::DType mt = mask.tensorType().dtype;
    if (mt != ir::DType::Bool && mt != dt)
      throw TorchError("RuntimeError",
                       std::string("Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: ") +
                           ir::typeMetaName(mt) + " and  query.dtype: " + ir::typeMetaName(dt) + " instead.");
  } else if (!mask.isNone()) {
    throw TorchError("TypeError", "scaled_dot_product_attention(): argument 'attn_mask' must be Tensor, not " +
                                      std::string(mask.kind == Val::Kind::Float ? "float" : "int"));
  }
  if (mask.isTensor() && mask.tensorType().dtype == ir::DType::Bool) mask = boolMaskToFloat(d, mask, dt);
  const Shape qs = ops::sizesOf(q), ks = ops::sizesOf(k);
  if (causal) {
    // With an attn_mask too, PyTorch's CPU kernel (flash attention for CPU) applies both; the
    // math kernel would refuse, but CPU inputs do not reach it.
    for (const Val* t : std::initializer_list<const Val*>{&q, &k})
      for (size_t i = t->tensorType().sizes.size() - 2; i < t->tensorType().sizes.size(); ++i)
        if (t->tensorType().sizes[i].symbolic())
          throw TorchError("NotImplementedError",
                           "scaled_dot_product_attention(is_causal=True) with a symbolic sequence length is not supported by Kiln yet");
    const int64_t L = qs[qs.size() - 2], S = ks[ks.size() - 2];
    Val ones = d.call("aten.full.default", {ops::intList({L, S}), Val::boolean(true), Val::dtypeVal(ir::DType::Bool)});
    Val causalMask = boolMaskToFloat(d, d.call("aten.tril.default", {ones, integer(0)}), dt);
    mask = mask.isTensor() ? d.call("aten.add.Tensor", {mask, causalMask}) : causalMask;
  }
  if (gqa && qs.size() >= 3 && ks.size() >= 3) {
    const Shape vs = ops::sizesOf(v);
    const int64_t hq = qs[qs.size() - 3], hk = ks[ks.size() - 3], hv = vs.size() >= 3 ? vs[vs.size() - 3] : hk;
    if (hk == 0 || hv == 0 || hq % hk != 0 || hq % hv != 0)
      throw TorchError("RuntimeError", "Number of heads in key and value must divide the number of heads in ");  // sic
    auto rep = [&](const Val& t, int64_t heads) {
      if (heads == hq) return t;
      TArgs r;
      r.args = {t, integer(hq / heads), integer(-3)};
      return repeatInterleave(d, r);
    };
    k = rep(k, hk);
    v = rep(v, hv);
  }
  const double scale = scaleV.isNone() ? 1.0 / std::sqrt(static_cast<double>(qs.back())) : scaleV.number();
  const double factor = std::sqrt(std::fabs(scale));
  Val query = d.call("aten.mul.Tensor", {q, Val::real(scale < 0 ? -factor : factor)});
  Val keyT = d.call("aten.mul.Tensor", {d.call("aten.transpose.int", {k, integer(-2), integer(-1)}), Val::real(factor)});
  Val attn = matmul(d, query, keyT);
  if (mask.isTensor()) attn = d.call("aten.add.Tensor", {attn, mask});
  // _safe_softmax: softmax, with rows that are -inf throughout set to 0 instead of NaN.
  Val sm = d.call("aten._softmax.default", {attn, integer(-1), Val::boolean(false)});
  Val masked = d.call("aten.eq.Tensor", {attn, Val::real(-INFINITY)});
  Val rows = d.call("aten.all.dim", {masked, integer(-1), Val::boolean(true)});
  Val p = d.call("aten.where.self", {rows, Val::real(0.0), sm});
  return matmul(d, p, v);
}

// ---- einsum ------------------------------------------------------------------------------

// A tensor with one label per dim.
struct Labeled {
  Val t;
  std::string labels;
};

bool isLabel(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

Shape concreteSizes(const Val& v) {
  for (const auto& dim : v.tensorType().sizes)
    if (dim.symbolic()) throw TorchError("NotImplementedError", "einsum with symbolic sizes is not supported by Kiln yet");
  return ops::sizesOf(v);
}

// Sums out the labels of x that `keep` does not name.
Labeled sumOut(Dispatcher& d, Labeled x, const std::string& keep) {
  std::vector<Val> dims;
  std::string rest;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (keep.find(x.labels[i]) == std::string::npos) dims.push_back(integer(static_cast<int64_t>(i)));
    else rest += x.labels[i];
  }
  if (dims.empty()) return x;
  return {d.call("aten.sum.dim_IntList", {x.t, Val::listOf(dims), Val::boolean(false)}), rest};
}

Val permuteTo(Dispatcher& d, const Labeled& x, const std::string& order) {
  std::vector<Val> perm;
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) {
    size_t at = x.labels.find(order[i]);
    identity = identity && at == i;
    perm.push_back(integer(static_cast<int64_t>(at)));
  }
  return identity ? x.t : d.call("aten.permute.default", {x.t, Val::listOf(perm)});
}

// a and b contracted over their shared labels not in `needed`, with one bmm: [batch, left,
// contracted] @ [batch, contracted, right] (ATen's sumproduct_pair).
Labeled contractPair(Dispatcher& d, Labeled a, Labeled b, const std::string& needed) {
  std::string batch, contracted, left, right;
  for (char c : a.labels) {
    if (b.labels.find(c) != std::string::npos) (needed.find(c) != std::string::npos ? batch : contracted) += c;
    else left += c;
  }
  for (char c : b.labels)
    if (a.labels.find(c) == std::string::npos) right += c;
  // Shared labels broadcast (a size-1 dim takes the other operand's size).
  Shape as = concreteSizes(a.t), bs = concreteSizes(b.t);
  auto sizeOf = [](const Labeled& x, const Shape& s, char c) { return s[x.labels.find(c)]; };
  Shape ae = as, be = bs;
  bool expandA = false, expandB = false;
  for (char c : batch + contracted) {
    int64_t sa = sizeOf(a, as, c), sb = sizeOf(b, bs, c);
    if (sa == sb) continue;
    if (sa != 1 && sb != 1)
      throw TorchError("RuntimeError", std::string("einsum(): subscript ") + c + " has size " + std::to_string(sb) +
                                           " for operand 1 which does not broadcast with previously seen size " + std::to_string(sa));
    if (sa == 1) ae[a.labels.find(c)] = sb, expandA = true;
    else be[b.labels.find(c)] = sa, expandB = true;
  }
  if (expandA) a.t = d.call("aten.expand.default", {a.t, ops::intList(ae)});
  if (expandB) b.t = d.call("aten.expand.default", {b.t, ops::intList(be)});
  auto prod = [&](const Labeled& x, const Shape& s, const std::string& ls) {
    // A reshape target: a group of an empty operand's dims multiplying past int64 is refused.
    Shape group;
    for (char c : ls) group.push_back(s[x.labels.find(c)]);
    return tensor::checkedNumel(group);
  };
  const int64_t nb = prod(a, ae, batch), nl = prod(a, ae, left), nc = prod(a, ae, contracted), nr = prod(b, be, right);
  Val a3 = reshape(d, permuteTo(d, a, batch + left + contracted), {nb, nl, nc});
  Val b3 = reshape(d, permuteTo(d, b, batch + contracted + right), {nb, nc, nr});
  Val r = d.call("aten.bmm.default", {a3, b3});
  Shape out;
  for (char c : batch + left) out.push_back(ae[a.labels.find(c)]);
  for (char c : right) out.push_back(be[b.labels.find(c)]);
  return {reshape(d, r, out), batch + left + right};
}

// einsum(equation, *operands): operands contracted left to right (PyTorch's order without
// opt_einsum), labels no later operand or the output needs summed out first.
Val einsum(Dispatcher& d, const TArgs& a) {
  const Val& eqv = needArg(a, 0, "equation", "einsum");
  if (eqv.kind != Val::Kind::String) throw TorchError("TypeError", "einsum(): argument 'equation' (position 1) must be str");
  std::vector<Val> ops;
  if (a.args.size() == 2 && a.args[1].kind == Val::Kind::List) ops = a.args[1].list;
  else ops.assign(a.args.begin() + 1, a.args.end());
  for (const auto& o : ops)
    if (!o.isTensor()) throw TorchError("TypeError", "einsum(): expected every operand to be a Tensor");
  std::string eq;
  for (char c : eqv.s)
    if (c != ' ') eq += c;
  if (eq.find('.') != std::string::npos)
    throw TorchError("NotImplementedError", "einsum with an ellipsis ('...') is not supported by Kiln yet");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms{""};
  for (char c : lhs) {
    if (c == ',') terms.emplace_back();
    else terms.back() += c;
  }
  if (ops.empty()) throw TorchError("RuntimeError", "einsum(): must provide at least one operand");
  if (terms.size() < ops.size()) throw TorchError("RuntimeError", "einsum(): more operands were provided than specified in the equation");
  if (terms.size() > ops.size()) throw TorchError("RuntimeError", "einsum(): fewer operands were provided than specified in the equation");
  std::map<char, int> count;
  for (size_t i = 0; i < terms.size(); ++i) {
    for (size_t j = 0; j < terms[i].size(); ++j) {
      char c = terms[i][j];
      if (!isLabel(c))
        throw TorchError("RuntimeError", "einsum(): invalid subscript given at index " + std::to_string(j) +
                                             " in the equation string, subscripts must be in [a-zA-Z]");
      if (terms[i].find(c) != j)
        throw TorchError("NotImplementedError",
                         "einsum with a repeated subscript in one operand (a diagonal) is not supported by Kiln yet");
      ++count[c];
    }
    if (static_cast<int64_t>(terms[i].size()) != ndim(ops[i]))
      throw TorchError("RuntimeError", "einsum(): the number of subscripts in the equation (" + std::to_string(terms[i].size()) +
                                           ") does not match the number of dimensions (" + std::to_string(ndim(ops[i])) + ") for operand " +
                                           std::to_string(i) + " and no ellipsis was given");
  }
  std::string output;
  if (arrow != std::string::npos) {
    output = eq.substr(arrow + 2);
    for (size_t j = 0; j < output.size(); ++j) {
      char c = output[j];
      if (!isLabel(c))
        throw TorchError("RuntimeError", "einsum(): invalid subscript given at index " + std::to_string(arrow + 2 + j) +
                                             " in the equation string, subscripts must be in [a-zA-Z]");
      if (output.find(c) != j)
        throw TorchError("RuntimeError", std::string("einsum(): output subscript ") + c + " appears more than once in the output");
      if (!count.count(c))
        throw TorchError("RuntimeError",
                         std::string("einsum(): output subscript ") + c + " does not appear in the equation for any input operand");
    }
  } else {
    for (char c = 'A'; c <= 'Z'; ++c)  // labels used once, in PyTorch's order (upper case first)
      if (count.count(c) && count[c] == 1) output += c;
    for (char c = 'a'; c <= 'z'; ++c)
      if (count.count(c) && count[c] == 1) output += c;
  }
  auto neededAfter = [&](size_t i) {  // labels the output or operands after i use
    std::string n = output;
    for (size_t k = i + 1; k < terms.size(); ++k) n += terms[k];
    return n;
  };
  Labeled cur = sumOut(d, {ops[0], terms[0]}, neededAfter(0) + (terms.size() > 1 ? terms[1] : ""));
  for (size_t i = 1; i < ops.size(); ++i) {
    const std::string need = neededAfter(i);
    Labeled next = sumOut(d, {ops[i], terms[i]}, need + cur.labels);
    cur = sumOut(d, cur, need + next.labels);
    cur = contractPair(d, cur, next, need);
  }
  cur = sumOut(d, cur, output);
  Val r = permuteTo(d, cur, output);
  // An operand returned unchanged is still a new tensor object (a view of it, as ATen's is).
  for (const auto& o : ops)
    if (r.kind == o.kind && r.node == o.node &&
        (r.kind != Val::Kind::Tensor || (r.t.storage() == o.t.storage() && r.t.offset() == o.t.offset() && r.t.strides() == o.t.strides())))
      return d.call("aten.alias.default", {r});
  return r;
}

// scatter_add(input, dim, index, src)
Val scatterAdd(Dispatcher& d, const TArgs& a) {
  const Val& x = tensorArg(a, 0, "input", "scatter_add");
  const int64_t dim = ops::wrapDim(intArg(a, 1, "dim", "scatter_add", 0), ndim(x));
  const Val& index = tensorArg(a, 2, "index", "scatter_add");
  const Val& src = tensorArg(a, 3, "src", "scatter_add");
  if (index.tensorType().dtype != ir::DType::Int64 && index.tensorType().dtype != ir::DType::Int32)
    throw TorchError("RuntimeError", "scatter(): Expected dtype int32/int64 for index");
  if (src.tensorType().dtype != x.tensorType().dtype)
    throw TorchError("RuntimeError", "scatter(): Expected self.dtype to be equal to src.dtype");
  if (ndim(index) != ndim(x) || (ndim(src) != ndim(x) && ndim(index) > 0))
    throw TorchError("RuntimeError", "Index tensor must have the same number of dimensions as self tensor");
  Shape is = ops::sizesOf(index), xs = ops::sizesOf(x), ss = ops::sizesOf(src);
  // A 0-dim index holds one index, which reads src's first element: src needs one.
  if (is.empty() && tensor::checkedNumel(ss) == 0)
    throw TorchError("RuntimeError", "Expected index " + tensor::shapeStr(is) + " to be no larger than self " + tensor::shapeStr(xs) +
                                         " apart from dimension " + std::to_string(dim) + " and to be no larger size than src " +
                                         tensor::shapeStr(ss));
  for (size_t k = 0; k < is.size(); ++k) {
    if (is[k] > ss[k])
      throw TorchError("RuntimeError", "Expected index " + tensor::shapeStr(is) + " to be no larger than self " + tensor::shapeStr(xs) +
                                           " apart from dimension " + std::to_string(dim) + " and to be no larger size than src " +
                                           tensor::shapeStr(ss));
    if (static_cast<int64_t>(k) != dim && is[k] > xs[k])
      throw TorchError("RuntimeError", "Expected index " + tensor::shapeStr(is) + " to be no larger than self " + tensor::shapeStr(xs) +
                                           " apart from dimension " + std::to_string(dim) + " and to be no larger size than src " +
                                           tensor::shapeStr(ss));
  }
  return d.call("aten.scatter_add.default", {x, integer(dim), index, src});
}

void both(std::vector<TorchFn>& t, const std::string& name, std::function<Val(Dispatcher&, const TArgs&)> impl) {
  t.push_back({"torch." + name, ir::NodeKind::CallFunction, impl});
  t.push_back({name, ir::NodeKind::CallMethod, impl});
}

}  // namespace

void registerMoreFns(std::vector<TorchFn>& t) {
  // torch._assert_async(cond, msg): what Dynamo records for `assert tensor_cond, "msg"`. It runs
  // where the graph runs on real values (a failing check is a RuntimeError); there is no ATen
  // lowering, so a graph holding it runs as captured (backend compile fails over to that).
  t.push_back({"torch._assert_async", ir::NodeKind::CallFunction, [](Dispatcher&, const TArgs& a) -> Val {
                 const Val& c = tensorArg(a, 0, "input", "_assert_async");
                 if (c.kind != Val::Kind::Tensor)
                   throw TorchError("NotImplementedError", "torch._assert_async has no lowering in Kiln's backend");
                 if (c.t.numel() != 1)
                   throw TorchError("RuntimeError",
                                    "Expected Tensor with single nonzero value, but got " + std::to_string(c.t.numel()) + " elements");
                 if (c.t.loadAt(0) == 0.0) {
                   const bool hasMsg = a.args.size() > 1 && a.args[1].kind == Val::Kind::String;
                   throw TorchError("RuntimeError", hasMsg ? a.args[1].s : "Expected Tensor with single nonzero value, but got zero");
                 }
                 return Val::none();
               }});
  both(t, "outer", [](Dispatcher& d, const TArgs& a) { return outer(d, a, "outer"); });
  both(t, "ger", [](Dispatcher& d, const TArgs& a) { return outer(d, a, "ger"); });
  both(t, "isnan", [](Dispatcher& d, const TArgs& a) { return isnan(d, tensorArg(a, 0, "input", "isnan")); });
  both(t, "isinf", [](Dispatcher& d, const TArgs& a) { return isinf(d, tensorArg(a, 0, "input", "isinf")); });
  both(t, "isfinite", [](Dispatcher& d, const TArgs& a) { return isfinite(d, tensorArg(a, 0, "input", "isfinite")); });
  for (bool pos : {true, false}) {
    std::string name = pos ? "isposinf" : "isneginf";
    both(t, name, [pos, name](Dispatcher& d, const TArgs& a) {
      const Val& x = tensorArg(a, 0, "input", name);
      if (!ir::isFloating(x.tensorType().dtype)) return boolLike(d, x, false);
      return d.call("aten.eq.Tensor", {x, Val::real(pos ? INFINITY : -INFINITY)});
    });
  }
  both(t, "isclose", [](Dispatcher& d, const TArgs& a) { return isclose(d, a, "isclose"); });
  both(t, "allclose", allclose);
  both(t, "equal", equal);

  // one_hot: Dynamo records torch._C._nn.one_hot (F.one_hot is that builtin).
  auto oneHot = [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "tensor", "one_hot");
    return d.call("aten.one_hot.default", {x, integer(intArg(a, 1, "num_classes", "one_hot", -1))});
  };
  t.push_back({"torch._C._nn.one_hot", ir::NodeKind::CallFunction, oneHot});
  t.push_back({"torch.nn.functional.one_hot", ir::NodeKind::CallFunction, oneHot});

  both(t, "sort", sort);
  both(t, "argsort", argsort);
  both(t, "topk", topk);
  both(t, "msort", [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "msort");
    return gatherAlong(d, x, 0, argsortIdx(d, x, ops::wrapDim(0, ndim(x)), false));
  });

  t.push_back(
      {"new_zeros", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) { return newFilled(d, a, "new_zeros", Val::real(0.0)); }});
  t.push_back(
      {"new_ones", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) { return newFilled(d, a, "new_ones", Val::real(1.0)); }});
  t.push_back(
      {"new_empty", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) { return newFilled(d, a, "new_empty", Val::real(0.0)); }});
  t.push_back({"new_full", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 Val v = needArg(a, 2, "fill_value", "new_full");
                 if (v.kind == Val::Kind::Tensor && v.t.dim() == 0) {  // a 0-dim tensor is read as a Number
                   ir::DType vt = v.t.dtype();
                   v = vt == ir::DType::Bool ? Val::boolean(v.t.loadAt(0) != 0)
                       : ir::isFloating(vt)  ? Val::real(v.t.loadAt(0))
                                             : Val::integer(v.t.loadIntAt(0));
                 }
                 if (v.kind == Val::Kind::Sym && v.tensorType().sizes.empty())
                   throw TorchError("NotImplementedError", "new_full with a traced tensor fill_value is not supported by Kiln yet");
                 if (!v.isScalar())
                   throw TorchError("TypeError", std::string("new_full(): argument 'fill_value' (position 2) must be Number, not ") +
                                                     (v.isTensor() ? "Tensor" : "object"));
                 TArgs b = a;
                 if (b.args.size() > 2) b.args.erase(b.args.begin() + 2);
                 std::erase_if(b.kwargs, [](const auto& kv) { return kv.first == "fill_value"; });
                 return newFilled(d, b, "new_full", v);
               }});

  both(t, "repeat_interleave", repeatInterleave);
  both(t, "addcmul", [](Dispatcher& d, const TArgs& a) { return addc(d, a, false); });
  both(t, "addcdiv", [](Dispatcher& d, const TArgs& a) { return addc(d, a, true); });
  // as_strided(input, size, stride, storage_offset=None): a view of the input's storage with
  // the given geometry (checked against the storage's bounds).
  both(t, "as_strided", [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "as_strided");
    const Val& offset = opt(a, 3, "storage_offset");
    return d.call("aten.as_strided.default", {x, needArg(a, 1, "size", "as_strided"), needArg(a, 2, "stride", "as_strided"), offset});
  });
  both(t, "diagonal", [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "diagonal");
    return d.call("aten.diagonal.default", {x, integer(intArg(a, 1, "offset", "diagonal", 0)), integer(intArg(a, 2, "dim1", "diagonal", 0)),
                                            integer(intArg(a, 3, "dim2", "diagonal", 1))});
  });
  both(t, "index_copy", [](Dispatcher& d, const TArgs& a) { return indexCopyLike(d, a, false); });
  both(t, "index_add", [](Dispatcher& d, const TArgs& a) { return indexCopyLike(d, a, true); });
  both(t, "index_put", indexPut);
  // swapdims: transpose's other name (swapaxes is registered with transpose).
  t.push_back({"swapdims", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 return d.call("aten.transpose.int", {tensorArg(a, 0, "input", "swapdims"), integer(intArg(a, 1, "dim0", "swapdims", 0)),
                                                      integer(intArg(a, 2, "dim1", "swapdims", 1))});
               }});

  // einsum: Dynamo records torch.functional.einsum (torch.einsum is that function).
  t.push_back({"torch.functional.einsum", ir::NodeKind::CallFunction, einsum});
  both(t, "scatter_add", scatterAdd);
  both(t, "cumsum", [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "cumsum");
    const Val* dim = a.get(1, "dim");
    if (!dim || dim->isNone()) throw TorchError("TypeError", "cumsum() missing 1 required positional arguments: \"dim\"");
    std::vector<Val> args{x, integer(ops::wrapDim(intArg(a, 1, "dim", "cumsum", 0), ndim(x)))};
    if (const Val* dt = a.kw("dtype"); dt && dt->kind == Val::Kind::DType) args.push_back(*dt);
    return d.call("aten.cumsum.default", args);
  });

  t.push_back({"torch._C._nn.scaled_dot_product_attention", ir::NodeKind::CallFunction, sdpa});
  t.push_back({"torch.nn.functional.scaled_dot_product_attention", ir::NodeKind::CallFunction, sdpa});
}

}  // namespace kiln::torchapi
