// The eager CUDA ops of cuda_index_ops.h. Index reads, scatters and scatter-adds are the fixed
// kernels of engine/codegen/cuda/cuda_index_source.h (NVRTC, like every generated kernel); zeros,
// padding, select/slice backward and cat are generated fill and copy kernels (cuda_graph.h) over
// views of the result; nll_loss_forward, argmax, max.dim, gather and scatter_add are composed of
// device ops the graph route generates kernels for (a one-hot mask against an index row,
// reductions); random draws come from the device generator (PyTorch's CPU algorithm, as
// torch.rand(..., device='cuda') in Kiln) and are copied up; the last resort runs an op's
// decomposition op by op on the device. Nothing here computes an op's result on the CPU.
#include "engine/runtime/cuda_index_ops.h"

#include "engine/codegen/cuda/cuda_index_source.h"
#include "engine/ops/index_ops.h"
#include "engine/ops/random.h"
#include "engine/ops/shape_util.h"
#include "engine/runtime/cuda_graph.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/tensor/tensor.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <set>
#include <string>

namespace kiln::runtime::cuda {

namespace {

using ops::Val;
using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

namespace cg = codegen::cuda;

Shape sizesOfType(const ir::TensorType& ty) {
  Shape s;
  for (const auto& d : ty.sizes) s.push_back(d.value);
  return s;
}

int64_t prod(const Shape& s, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= s[i];
  return n;
}

// t laid out contiguously on its device (t itself when it already is).
Tensor dense(const Tensor& t) {
  if (t.isContiguous()) return t;
  return t.isCpu() ? t.contiguous() : relayoutOnDevice(t, Tensor::contiguousStrides(t.sizes()));
}

// The composed ops below also run on CPU tensors (tests check them against the ops' own CPU
// kernels): these are the two primitives that differ, a generated kernel on the device.
void copyTo(Tensor& dst, const Tensor& src) {
  if (dst.isCpu()) ops::copyInto(dst, src);
  else copyOnDevice(dst, src);
}
void fill(Tensor& dst, double value) {
  if (dst.isCpu()) ops::copyInto(dst, Tensor::scalar(value, dst.dtype()));
  else fillOnDevice(dst, value);
}

// Integer indices as a contiguous int64 tensor on the device (int32 ones converted there).
Tensor int64Indices(const Tensor& idx, const char* what) {
  if (idx.dtype() == ir::DType::Int64) return dense(idx);
  if (idx.dtype() != ir::DType::Int32)
    throw TorchError("IndexError", std::string("tensors used as indices must be long or int tensors (") + what + ")");
  Tensor out = Tensor::empty(idx.sizes(), ir::DType::Int64, idx.device());
  copyOnDevice(out, idx);
  return out;
}

// t's elements as a contiguous tensor of `sizes` (a view where t is contiguous already).
Tensor reshaped(const Tensor& t, const Shape& sizes) {
  Tensor c = dense(t);
  return c.view(sizes, Tensor::contiguousStrides(sizes), c.offset());
}

Val call(const char* name, const std::vector<Val>& args) {
  ops::EagerDispatcher e;
  return e.call(ops::op(name), args);
}

Tensor zerosOn(const Shape& sizes, ir::DType dt, const tensor::Device& d) {
  Tensor t = d.isCpu() ? Tensor::empty(sizes, dt) : Tensor::empty(sizes, dt, d);
  fill(t, 0.0);
  return t;
}

// A flag the index kernels set when an index is out of range: one int on the device, read back
// (a synchronizing copy) after the launch.
struct BadFlag {
  Tensor t;
  explicit BadFlag(const tensor::Device& d) : t(zerosOn({1}, ir::DType::Int32, d)) {}
  unsigned long long ptr() const { return devicePtr(t); }
  bool set() const { return t.toDevice(tensor::Device::cpu()).loadIntAt(0) != 0; }
};

void launchIndexKernel(const std::string& symbol, int64_t total, std::vector<void*> params) {
  if (total <= 0) return;
  void* fn = deviceFunction(cg::cudaIndexKernelsSource(), "kiln_index", symbol);
  constexpr int64_t kBlock = 256;
  // Grid-stride loops: a grid of at most 2^20 blocks covers any size.
  const auto grid = static_cast<unsigned>(std::min<int64_t>((total + kBlock - 1) / kBlock, int64_t(1) << 20));
  driver().launch(fn, grid, static_cast<unsigned>(kBlock), params.data());
}

// out[o, i, j] = src[o, idx[i], j] for src viewed as [outer, rows, inner] (contiguous).
Tensor gatherRows(const Tensor& srcIn, const Tensor& idxIn, int64_t dim, const Shape& outSizes) {
  const std::string sfx = cg::cudaIndexSuffix(srcIn.dtype(), false);
  if (sfx.empty()) return Tensor();
  Tensor src = dense(srcIn), idx = int64Indices(idxIn, "index_select");
  const Shape& s = src.sizes();
  long long inner = prod(s, static_cast<size_t>(dim) + 1, s.size()), rows = s.empty() ? 1 : s[static_cast<size_t>(dim)];
  long long n = idx.numel();
  Tensor out = Tensor::empty(outSizes, src.dtype(), src.device());
  long long total = out.numel();
  if (total == 0) return out;
  BadFlag bad(src.device());
  unsigned long long ps = devicePtr(src), pi = devicePtr(idx), po = devicePtr(out), pb = bad.ptr();
  launchIndexKernel("kiln_gather_rows_" + sfx, total, {&ps, &pi, &po, &total, &n, &rows, &inner, &pb});
  if (bad.set()) throw TorchError("IndexError", "index out of range in self");
  return out;
}

std::optional<Val> embedding(const ops::OpDef& op, const std::vector<Val>& a) {
  Shape outSizes = sizesOfType(op.meta(a));  // the CPU op's checks (2-D weight, integer indices)
  Tensor r = gatherRows(a.at(0).t, a.at(1).t, 0, outSizes);
  if (!r.defined()) return std::nullopt;
  return Val::of(r);
}

std::optional<Val> indexSelect(const ops::OpDef& op, const std::vector<Val>& a) {
  Shape outSizes = sizesOfType(op.meta(a));
  const Tensor& x = a.at(0).t;
  if (x.dim() == 0) return std::nullopt;
  Tensor r = gatherRows(x, a.at(2).t, ops::wrapDim(a.at(1).i, x.dim()), outSizes);
  if (!r.defined()) return std::nullopt;
  return Val::of(r);
}

// The one index tensor of an index / index_put list ([None] * k + [idx], trailing Nones) and its
// dim k; nullopt for other forms (several tensors, a bool mask).
std::optional<std::pair<int64_t, Tensor>> singleIndex(const Val& indices) {
  if (indices.kind != Val::Kind::List) return std::nullopt;
  std::optional<std::pair<int64_t, Tensor>> r;
  for (size_t i = 0; i < indices.list.size(); ++i) {
    const Val& v = indices.list[i];
    if (v.isNone()) continue;
    if (r || v.kind != Val::Kind::Tensor || v.t.dtype() == ir::DType::Bool) return std::nullopt;
    r = std::pair<int64_t, Tensor>{static_cast<int64_t>(i), v.t};
  }
  return r;
}

// Indices of a dim of `rows` with negative ones counted from the end (index / index_put take
// them; index_select does not), int64 and contiguous on the device.
Tensor wrappedIndices(const Tensor& idx, int64_t rows) {
  Val i = Val::of(int64Indices(idx, "index"));
  Val neg = call("aten.lt.Tensor", {i, Val::integer(0)});
  return dense(call("aten.where.self", {neg, call("aten.add.Tensor", {i, Val::integer(rows)}), i}).t);
}

// index.Tensor(x, [None] * k + [idx]): rows of x along k picked by idx (of any shape).
std::optional<Val> indexTensor(const ops::OpDef& op, const std::vector<Val>& a) {
  auto si = singleIndex(a.at(1));
  const Tensor& x = a.at(0).t;
  if (!si || si->first >= x.dim()) return std::nullopt;
  const Shape outSizes = sizesOfType(op.meta(a));
  Tensor r = gatherRows(x, wrappedIndices(si->second, x.sizes()[static_cast<size_t>(si->first)]), si->first, outSizes);
  if (!r.defined()) return std::nullopt;
  return Val::of(r);
}

// index_put(self, [None] * k + [idx], values, accumulate): a copy of self with the picked rows
// set to (accumulate: increased by) values broadcast to the picked shape.
std::optional<Val> indexPut(const std::vector<Val>& a, const tensor::Device& d) {
  auto si = singleIndex(a.at(1));
  const Tensor& self = a.at(0).t;
  if (!si || si->first >= self.dim()) return std::nullopt;
  const bool accumulate = a.size() > 3 && a[3].kind == Val::Kind::Bool && a[3].b;
  const std::string sfx = cg::cudaIndexSuffix(self.dtype(), accumulate);
  if (sfx.empty()) return std::nullopt;
  const int64_t k = si->first, rows = self.sizes()[static_cast<size_t>(k)];
  Tensor idx = wrappedIndices(si->second, rows);
  Shape picked(self.sizes().begin(), self.sizes().begin() + k);
  picked.insert(picked.end(), si->second.sizes().begin(), si->second.sizes().end());
  picked.insert(picked.end(), self.sizes().begin() + k + 1, self.sizes().end());
  Tensor vals = Tensor::empty(picked, self.dtype(), d);
  const Val& v = a.at(2);
  if (v.kind != Val::Kind::Tensor) fillOnDevice(vals, v.number());
  else if (v.t.isCpu() && v.t.dim() == 0) fillOnDevice(vals, v.t.loadAt(0));  // a CPU scalar's value
  else copyOnDevice(vals, v.t);
  Tensor out = relayoutOnDevice(self, Tensor::contiguousStrides(self.sizes()));  // a fresh copy
  long long total = vals.numel(), n = idx.numel(), outRows = rows,
            inner = prod(self.sizes(), static_cast<size_t>(k) + 1, self.sizes().size());
  if (total == 0) return Val::of(out);
  BadFlag bad(d);
  unsigned long long ps = devicePtr(vals), pi = devicePtr(idx), po = devicePtr(out), pb = bad.ptr(), pc = 0;
  long long skip = std::numeric_limits<long long>::min();  // no index is skipped
  if (accumulate) launchIndexKernel("kiln_index_add_rows_" + sfx, total, {&ps, &pi, &po, &total, &n, &outRows, &inner, &skip, &pc, &pb});
  else launchIndexKernel("kiln_scatter_rows_" + sfx, total, {&ps, &pi, &po, &total, &n, &outRows, &inner, &pb});
  if (bad.set()) throw TorchError("IndexError", "index out of range in self");
  return Val::of(out);
}

// (grad [*, D], indices [*], num_weights, padding_idx, scale_grad_by_freq) -> [num_weights, D]
std::optional<Val> embeddingDenseBackward(const std::vector<Val>& a, const tensor::Device& d) {
  const Tensor& gIn = a.at(0).t;
  const std::string sfx = cg::cudaIndexSuffix(gIn.dtype(), true);
  if (sfx.empty()) return std::nullopt;
  Tensor g = dense(gIn), idx = int64Indices(a.at(1).t, "embedding_backward");
  long long rows = a.at(2).i, skip = a.size() > 3 && !a[3].isNone() ? a[3].i : -1;
  const bool scale = a.size() > 4 && a[4].kind == Val::Kind::Bool && a[4].b;
  long long inner = g.dim() == 0 ? 1 : g.sizes().back(), n = idx.numel();
  if (n * inner != g.numel()) throw TorchError("RuntimeError", "embedding_dense_backward: grad and indices disagree in size");
  if (skip < 0) skip = -1;  // PyTorch's "no padding_idx"; a negative padding_idx was made positive by nn.Embedding
  Tensor out = zerosOn({rows, inner}, g.dtype(), d);
  BadFlag bad(d);
  unsigned long long pb = bad.ptr(), pc = 0;
  Tensor counts;
  if (scale) {
    counts = zerosOn({rows}, ir::DType::Int32, d);
    unsigned long long pi = devicePtr(idx);
    pc = devicePtr(counts);
    launchIndexKernel("kiln_count_indices", n, {&pi, &pc, &n, &rows, &pb});
  }
  long long total = n * inner;
  unsigned long long ps = devicePtr(g), pi = devicePtr(idx), po = devicePtr(out);
  launchIndexKernel("kiln_index_add_rows_" + sfx, total, {&ps, &pi, &po, &total, &n, &rows, &inner, &skip, &pc, &pb});
  if (bad.set()) throw TorchError("IndexError", "index out of range in self");
  return Val::of(out);
}

// The view of `base` that slice(dim, start, end, step) of it is (start/end clamped as ATen does).
Tensor sliceOf(const Tensor& base, int64_t dim, int64_t start, int64_t end, int64_t step) {
  Shape sizes = base.sizes(), strides = base.strides();
  const int64_t n = sizes[static_cast<size_t>(dim)];
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  sizes[static_cast<size_t>(dim)] = end == start ? 0 : (end - start - 1) / step + 1;
  strides[static_cast<size_t>(dim)] *= step;
  return base.view(sizes, strides, base.offset() + start * base.strides()[static_cast<size_t>(dim)]);
}

// slice_backward(grad, input_sizes, dim, start, end, step) / select_backward(grad, input_sizes,
// dim, index): zeros of the input's shape with the gradient copied into the part the forward read.
Val viewBackward(const ops::OpDef& op, const std::vector<Val>& a, const tensor::Device& d) {
  const Tensor& g = a.at(0).t;
  Tensor out = zerosOn(a.at(1).ints(), g.dtype(), d);
  const int64_t dim = ops::wrapDim(a.at(2).i, out.dim());
  const int64_t n = out.sizes()[static_cast<size_t>(dim)];
  Tensor part;
  if (op.name == "aten.slice_backward.default") {
    part = sliceOf(out, dim, a.at(3).isNone() ? 0 : a[3].i, a.at(4).isNone() ? n : a[4].i, a.at(5).i);
  } else {
    int64_t i = a.at(3).i;
    if (i < 0) i += n;
    Tensor v = sliceOf(out, dim, i, i + 1, 1);
    Shape s = v.sizes(), st = v.strides();
    s.erase(s.begin() + dim);
    st.erase(st.begin() + dim);
    part = v.view(s, st, v.offset());
  }
  if (part.sizes() != g.sizes())
    throw TorchError("RuntimeError", op.name + ": the gradient's shape " + tensor::shapeStr(g.sizes()) + " is not the selected part's " +
                                         tensor::shapeStr(part.sizes()));
  copyTo(part, g);
  return Val::of(out);
}

// cat(tensors, dim): each input copied into its slice of the result (the CPU op's meta gives the
// shape and the promoted dtype; legacy empty 1-D inputs are skipped as there).
Val cat(const ops::OpDef& op, const std::vector<Val>& a, const tensor::Device& d) {
  ir::TensorType ty = op.meta(a);
  Shape s = sizesOfType(ty);
  int64_t dim = a.size() > 1 ? a[1].i : 0;
  if (!s.empty()) dim = ops::wrapDim(dim, static_cast<int64_t>(s.size()));
  Tensor out = d.isCpu() ? Tensor::empty(s, ty.dtype) : Tensor::empty(s, ty.dtype, d);
  int64_t at = 0;
  for (const auto& v : a.at(0).list) {
    const Tensor& x = v.t;
    if (x.dim() == 1 && x.sizes()[0] == 0 && s.size() != 1) continue;
    Shape part = s;
    part[static_cast<size_t>(dim)] = x.sizes()[static_cast<size_t>(dim)];
    Tensor dst = out.view(part, out.strides(), out.offset() + at * out.strides()[static_cast<size_t>(dim)]);
    copyTo(dst, x);
    at += x.sizes()[static_cast<size_t>(dim)];
  }
  return Val::of(out);
}

// constant_pad_nd(x, pad, value): the value everywhere, then x's kept part copied into place
// (negative pads crop).
Val constantPad(const ops::OpDef& op, const std::vector<Val>& a, const tensor::Device& d) {
  const Tensor& x = a.at(0).t;
  Shape s = sizesOfType(op.meta(a));
  const double value = a.size() > 2 && !a[2].isNone() ? a[2].number() : 0.0;
  Tensor out = d.isCpu() ? Tensor::empty(s, x.dtype()) : Tensor::empty(s, x.dtype(), d);
  fill(out, value);
  const std::vector<int64_t> pad = a.at(1).ints();
  Tensor dst = out, src = x;
  for (size_t k = 0; 2 * k < pad.size(); ++k) {
    const int64_t dim = x.dim() - 1 - static_cast<int64_t>(k);
    const int64_t lo = pad[2 * k], hi = 2 * k + 1 < pad.size() ? pad[2 * k + 1] : 0;
    const int64_t keep = x.sizes()[static_cast<size_t>(dim)] - std::max<int64_t>(-lo, 0) - std::max<int64_t>(-hi, 0);
    if (keep <= 0) return Val::of(out);
    const int64_t inStart = std::max<int64_t>(-lo, 0), outStart = std::max<int64_t>(lo, 0);
    src = sliceOf(src, dim, inStart, inStart + keep, 1);
    dst = sliceOf(dst, dim, outStart, outStart + keep, 1);
  }
  copyTo(dst, src);
  return Val::of(out);
}

// nll_loss_forward(x, target, weight, reduction, ignore_index) -> (output, total_weight), as
// device ops: hit[n, c] = (c == target[n]) & (target[n] != ignore_index) from an index row made
// on the device, the picked log-probabilities and weights summed per row, then the reduction.
// The arguments are detached first: the caller records the op itself for autograd.
std::optional<Val> nllLoss(const ops::OpDef& op, const std::vector<Val>& args, const tensor::Device& d) {
  op.metaMulti(args);  // the CPU op's checks (shapes, target dtype, weight size)
  Tensor x = args.at(0).t.detach(), target = args.at(1).t.detach();
  const bool hasWeight = !args.at(2).isNone();
  const int64_t reduction = args.at(3).i, ignore = args.at(4).i;
  const ir::DType dt = x.dtype();
  if (!ir::isFloating(dt)) return std::nullopt;
  const bool batched = x.dim() >= 2;
  const int64_t C = batched ? x.sizes()[1] : x.sizes()[0];
  Shape perSizes = target.sizes();
  // [N, C, S...] -> [N*S, C] (classes last); a 1-D input is one row.
  Tensor xr = x;
  if (x.dim() > 2) {
    std::vector<int64_t> perm = {0};
    for (int64_t k = 2; k < x.dim(); ++k) perm.push_back(k);
    perm.push_back(1);
    xr = call("aten.permute.default", {Val::of(x), ops::intList(perm)}).t;
  }
  const int64_t rows = x.numel() / std::max<int64_t>(C, 1);
  Val xv = Val::of(reshaped(xr, {rows, C}));
  Val tv = Val::of(reshaped(target, {rows, 1}));
  Tensor iotaHost = Tensor::empty({1, C}, ir::DType::Int64);
  for (int64_t c = 0; c < C; ++c) iotaHost.storeIntAt(c, c);
  Val classes = Val::of(iotaHost.toDevice(d));
  Val valid = call("aten.ne.Tensor", {tv, Val::integer(ignore)});
  Val hit = call("aten.logical_and.default", {call("aten.eq.Tensor", {classes, tv}), valid});
  // A target outside [0, C) that is not ignored matches no class: PyTorch's device assert.
  Val misses = call("aten.sub.Tensor", {call("aten.sum.default", {valid}), call("aten.sum.default", {hit})});
  if (misses.t.toDevice(tensor::Device::cpu()).loadIntAt(0) != 0) throw TorchError("IndexError", "Target is out of bounds.");
  Val wrow = hasWeight ? call("aten.where.self", {hit, Val::of(reshaped(args[2].t.detach(), {1, C})), Val::real(0.0)})
                       : call("prims.convert_element_type.default", {hit, Val::dtypeVal(dt)});
  Val picked = call("aten.mul.Tensor", {call("aten.where.self", {hit, xv, Val::real(0.0)}), wrow});
  Val perRow = call("aten.neg.default", {call("aten.sum.dim_IntList", {picked, ops::intList({1}), Val::boolean(false)})});
  Val wsum = call("aten.sum.default", {call("aten.sum.dim_IntList", {wrow, ops::intList({1}), Val::boolean(false)})});
  Val total = call("aten.sum.default", {perRow});
  if (reduction == 0 && batched) {
    Tensor zero = zerosOn({}, dt, d);
    return Val::listOf({Val::of(reshaped(perRow.t, perSizes)), Val::of(zero)});
  }
  Val out = reduction == 1 ? call("aten.div.Tensor", {total, wsum}) : total;
  return Val::listOf({out, wsum});
}

// An index row 0..n-1 along `dim` of an `nd`-dim shape (sizes 1 elsewhere), int64 on the device.
Val iotaAlong(int64_t n, int64_t dim, int64_t nd, const tensor::Device& d) {
  Shape s(static_cast<size_t>(nd), 1);
  s[static_cast<size_t>(dim)] = n;
  Tensor host = Tensor::empty(s, ir::DType::Int64);
  for (int64_t i = 0; i < n; ++i) host.storeIntAt(i, i);
  return Val::of(host.toDevice(d));
}

Val zeroOf(ir::DType dt) { return ir::isFloating(dt) ? Val::real(0.0) : Val::integer(0); }

int64_t hostInt(const Val& v) { return v.t.toDevice(tensor::Device::cpu()).loadIntAt(0); }

// The first position along `dim` holding the max (min) of x, NaN counting as the max (min) as in
// PyTorch: amax, then the smallest index where x equals it (or is NaN).
Val argReduce(const Tensor& x, int64_t dim, bool keepdim, bool isMax, const tensor::Device& d) {
  Val xv = Val::of(x);
  const int64_t n = x.sizes()[static_cast<size_t>(dim)];
  Val m = call(isMax ? "aten.amax.default" : "aten.amin.default", {xv, ops::intList({dim}), Val::boolean(true)});
  // x == m, or x is NaN
  Val nan = call("aten.ne.Tensor", {xv, xv});
  Val hit = call("aten.logical_or.default", {nan, call("aten.eq.Tensor", {xv, m})});
  Val cand = call("aten.where.self", {hit, iotaAlong(n, dim, x.dim(), d), Val::integer(n)});
  return call("aten.amin.default", {cand, ops::intList({dim}), Val::boolean(keepdim)});
}

// argmax / argmin(x, dim=None, keepdim=False); max.dim / min.dim(x, dim, keepdim) -> (values,
// indices).
std::optional<Val> argMaxMin(const ops::OpDef& op, const std::vector<Val>& a, const tensor::Device& d) {
  const bool isMax = op.name == "aten.argmax.default" || op.name == "aten.max.dim";
  const Tensor x = a.at(0).t.detach();
  if (x.dim() == 0 || x.numel() == 0) return std::nullopt;
  const bool keepdim = a.size() > 2 && a[2].kind == Val::Kind::Bool && a[2].b;
  if (op.name == "aten.max.dim" || op.name == "aten.min.dim") {
    op.metaMulti(a);
    const int64_t dim = ops::wrapDim(a.at(1).i, x.dim());
    Val v = call(isMax ? "aten.amax.default" : "aten.amin.default", {Val::of(x), ops::intList({dim}), Val::boolean(keepdim)});
    return Val::listOf({v, argReduce(x, dim, keepdim, isMax, d)});
  }
  const ir::TensorType ty = op.meta(a);
  if (a.size() > 1 && !a[1].isNone()) return argReduce(x, ops::wrapDim(a[1].i, x.dim()), keepdim, isMax, d);
  Val r = argReduce(reshaped(x, {x.numel()}), 0, false, isMax, d);
  return Val::of(reshaped(r.t, sizesOfType(ty)));
}

// scatter_add(self, dim, index, src) on the device for float32/float64 (nullopt otherwise): self
// copied, then one atomicAdd per element of src into the copy (kiln_scatter_add). This is
// max_pool2d's backward (derivatives_nn.cpp), where the one-hot sum below would make a
// [planes, outputs, inputs] mask.
std::optional<Val> scatterAddAtomic(const Tensor& x, const Tensor& idxIn, const Tensor& srcIn, int64_t dim) {
  const std::string sfx = cg::cudaIndexSuffix(x.dtype(), true);
  if (sfx.empty() || srcIn.dtype() != x.dtype()) return std::nullopt;
  Tensor out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  copyOnDevice(out, x);
  const Tensor idx = dense(idxIn), src = dense(srcIn);
  const Shape& s = idx.sizes();
  long long total = idx.numel(), n = s[static_cast<size_t>(dim)], rows = x.sizes()[static_cast<size_t>(dim)];
  long long inner = prod(s, static_cast<size_t>(dim) + 1, s.size());
  if (total == 0) return Val::of(out);
  BadFlag bad(x.device());
  unsigned long long ps = devicePtr(src), pi = devicePtr(idx), po = devicePtr(out), pb = bad.ptr();
  launchIndexKernel("kiln_scatter_add_" + sfx, total, {&ps, &pi, &po, &total, &n, &rows, &inner, &pb});
  if (bad.set())
    throw TorchError("RuntimeError",
                     "scatter_add(): index out of bounds for dimension " + std::to_string(dim) + " with size " + std::to_string(rows));
  return Val::of(out);
}

// gather(x, dim, index) and scatter_add(self, dim, index, src) as one-hot sums: the index
// compared with an index row along a new dim of x's extent, the matching elements summed over
// it. The index must have x's (self's) sizes in every other dim (nullopt otherwise).
std::optional<Val> gatherScatter(const ops::OpDef& op, const std::vector<Val>& a, const tensor::Device& d) {
  const bool scatter = op.name == "aten.scatter_add.default";
  const Tensor x = a.at(0).t.detach(), idx = a.at(2).t.detach();
  if (x.dim() == 0 || idx.dim() != x.dim() || idx.dtype() != ir::DType::Int64) return std::nullopt;
  const int64_t dim = ops::wrapDim(a.at(1).i, x.dim());
  for (int64_t k = 0; k < x.dim(); ++k)
    if (k != dim && idx.sizes()[static_cast<size_t>(k)] != x.sizes()[static_cast<size_t>(k)]) return std::nullopt;
  if (scatter && a.at(3).t.sizes() != idx.sizes()) return std::nullopt;
  if (!scatter) op.meta(a);
  const int64_t K = x.sizes()[static_cast<size_t>(dim)], nd = x.dim() + 1;
  if (scatter && !d.isCpu()) {
    if (auto r = scatterAddAtomic(x, idx, a[3].t.detach(), dim)) return r;
  }
  // idx [*, n, 1, *] against the row [1, .., K, .., 1] at dim + 1: hit [*, n, K, *].
  Val ie = call("aten.unsqueeze.default", {Val::of(idx), Val::integer(dim + 1)});
  Val hit = call("aten.eq.Tensor", {ie, iotaAlong(K, dim + 1, nd, d)});
  if (hostInt(call("aten.sum.default", {hit})) != idx.numel())
    throw TorchError("RuntimeError", std::string(scatter ? "scatter_add" : "gather") + "(): index out of bounds for dimension " +
                                         std::to_string(dim) + " with size " + std::to_string(K));
  if (!scatter) {
    Val xe = call("aten.unsqueeze.default", {Val::of(x), Val::integer(dim)});
    Val picked = call("aten.where.self", {hit, xe, zeroOf(x.dtype())});
    Val out = call("aten.sum.dim_IntList", {picked, ops::intList({dim + 1}), Val::boolean(false)});
    if (out.t.dtype() != x.dtype()) out = call("prims.convert_element_type.default", {out, Val::dtypeVal(x.dtype())});
    return out;
  }
  Val src = call("aten.unsqueeze.default", {Val::of(a[3].t.detach()), Val::integer(dim + 1)});
  Val added =
      call("aten.sum.dim_IntList", {call("aten.where.self", {hit, src, zeroOf(x.dtype())}), ops::intList({dim}), Val::boolean(false)});
  Val out = call("aten.add.Tensor", {Val::of(x), added});
  if (out.t.dtype() != x.dtype()) out = call("prims.convert_element_type.default", {out, Val::dtypeVal(x.dtype())});
  return out;
}

// any / all (.default: everything, .dim, .dims): the count of nonzero (zero) elements over the
// dims, compared with 0, so only a compare and a sum need kernels.
std::optional<Val> anyAll(const ops::OpDef& op, const std::vector<Val>& a) {
  const bool isAny = op.name.rfind("aten.any.", 0) == 0;
  const std::string overload = op.name.substr(op.name.rfind('.') + 1);
  op.meta(a);  // the CPU kernel's argument checks
  Val hits = call(isAny ? "aten.ne.Tensor" : "aten.eq.Tensor", {Val::of(a.at(0).t.detach()), Val::integer(0)});
  Val count;
  if (overload == "default" || (overload == "dims" && (a.size() < 2 || a[1].isNone()))) {
    count = call("aten.sum.default", {hits});
    if (overload == "dims" && a.size() > 2 && a[2].kind == Val::Kind::Bool && a[2].b) {
      Shape ones(static_cast<size_t>(a[0].t.dim()), 1);
      count = Val::of(reshaped(count.t, ones));
    }
  } else {
    Val dims = overload == "dim" ? ops::intList({a.at(1).i}) : a.at(1);
    const bool keepdim = a.size() > 2 && a[2].kind == Val::Kind::Bool && a[2].b;
    count = call("aten.sum.dim_IntList", {hits, dims, Val::boolean(keepdim)});
  }
  return call(isAny ? "aten.ne.Tensor" : "aten.eq.Tensor", {count, Val::integer(0)});
}

// rand_like / randn_like / bernoulli(p): the draws of the CUDA generator, in element order,
// copied to the device.
Val randomLike(const ops::OpDef& op, const std::vector<Val>& a, const tensor::Device& d) {
  const Tensor& x = a.at(0).t;
  Tensor host = Tensor::empty(x.sizes(), x.dtype());
  torchapi::Generator& g = torchapi::deviceGenerator();
  if (op.name == "aten.randn_like.default") torchapi::normalFill(host, 0.0, 1.0, g);
  else if (op.name == "aten.rand_like.default") torchapi::uniformFill(host, 0.0, 1.0, g);
  else torchapi::bernoulliFill(host, a.size() > 1 && !a[1].isNone() ? a[1].number() : 0.5, g);
  return Val::of(host.toDevice(d));
}

}  // namespace

std::optional<Val> decomposedOnDevice(const ops::OpDef& op, const std::vector<Val>& args, const tensor::Device& d) {
  if (!op.decompose) return std::nullopt;
  // A decomposition that (indirectly) decomposes this op again would recurse without end.
  thread_local std::set<std::string> active;
  if (!active.insert(op.name).second) return std::nullopt;
  struct Leave {
    const std::string& name;
    ~Leave() { active.erase(name); }
  } leave{op.name};
  // Detached: the caller records the op itself for autograd. A detached tensor shares its
  // storage, so an in-place update the decomposition makes (mutateInput: batch_norm's running
  // stats) reaches the argument.
  std::function<Val(const Val&)> detached = [&](const Val& v) -> Val {
    if (v.kind == Val::Kind::Tensor) return Val::of(v.t.detach());
    if (v.kind != Val::Kind::List) return v;
    std::vector<Val> items;
    for (const auto& x : v.list) items.push_back(detached(x));
    return Val::listOf(std::move(items));
  };
  std::vector<Val> in;
  for (const auto& a : args) in.push_back(detached(a));
  ops::EagerDispatcher e;
  Val r;
  try {
    r = op.decompose(e, in);
  } catch (const TorchError& err) {
    if (std::string(err.type()) != "NotImplementedError") throw;
    throw TorchError("NotImplementedError", std::string(err.what()) + " (running " + op.name + "'s decomposition on " + d.str() + ")");
  }
  // Every result on the device: a factory op of the decomposition (full) makes CPU tensors; an
  // empty one (batch_norm's unused statistics) is made again on the device, others are an error.
  std::function<Val(const Val&)> onDevice = [&](const Val& v) -> Val {
    if (v.kind == Val::Kind::List) {
      std::vector<Val> items;
      for (const auto& x : v.list) items.push_back(onDevice(x));
      return Val::listOf(std::move(items));
    }
    if (v.kind != Val::Kind::Tensor || v.t.device() == d) return v;
    if (v.t.numel() == 0) return Val::of(d.isCpu() ? Tensor::empty(v.t.sizes(), v.t.dtype()) : Tensor::empty(v.t.sizes(), v.t.dtype(), d));
    throw TorchError("NotImplementedError", "Kiln cannot run " + op.name + " on " + d.str() + " tensors: its decomposition made a " +
                                                v.t.device().str() + " tensor");
  };
  return onDevice(r);
}

std::optional<Val> composedOp(const ops::OpDef& op, const std::vector<Val>& args, const tensor::Device& d) {
  const std::string& n = op.name;
  if (n == "aten.slice_backward.default" || n == "aten.select_backward.default") return viewBackward(op, args, d);
  if (n == "aten.cat.default") return cat(op, args, d);
  if (n == "aten.constant_pad_nd.default") return constantPad(op, args, d);
  if (n == "aten.nll_loss_forward.default") return nllLoss(op, args, d);
  if (n == "aten.argmax.default" || n == "aten.argmin.default" || n == "aten.max.dim" || n == "aten.min.dim") return argMaxMin(op, args, d);
  if (n == "aten.gather.default" || n == "aten.scatter_add.default") return gatherScatter(op, args, d);
  if (n.rfind("aten.any.", 0) == 0 || n.rfind("aten.all.", 0) == 0) return anyAll(op, args);
  return std::nullopt;
}

std::optional<Val> indexOnDevice(const ops::OpDef& op, const std::vector<Val>& args, const tensor::Device& d) {
  const std::string& n = op.name;
  if (n == "aten.embedding.default") return embedding(op, args);
  if (n == "aten.index_select.default") return indexSelect(op, args);
  if (n == "aten.embedding_dense_backward.default") return embeddingDenseBackward(args, d);
  if (n == "aten.index.Tensor") return indexTensor(op, args);
  if (n == "aten.index_put.default") return indexPut(args, d);
  if (n == "aten.rand_like.default" || n == "aten.randn_like.default" || n == "aten.bernoulli.p") return randomLike(op, args, d);
  return composedOp(op, args, d);
}

}  // namespace kiln::runtime::cuda
