// Indexing and joining: cat, index.Tensor (integer / bool-mask indexing), index_put,
// index_select, gather, masked_fill, nonzero, tril/triu. Results are new tensors (views are in
// view_ops.cpp); index_put's in-place kernel also serves `x[idx] = v` in the interpreter.
#include "engine/ops/index_ops.h"

#include "engine/ops/device_dispatch.h"
#include "engine/ops/op_table.h"
#include "engine/ops/shape_util.h"

#include <cstring>

namespace kiln::ops {

using tensor::forEachIndex;
using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

void copyInto(Tensor& dst, const Tensor& srcIn) {
  // A tensor copied onto itself (the same elements of the same storage: a compiled graph's
  // mutated input that its output already is) is left as it is, without a kernel; on a GPU the
  // overlap rule below made two copies of 256 MiB of it for a compiled `y.copy_(x)`.
  if (dst.storage() && dst.storage() == srcIn.storage() && dst.offset() == srcIn.offset() && dst.dtype() == srcIn.dtype() &&
      dst.sizes() == srcIn.sizes() && dst.strides() == srcIn.strides())
    return;
  if (!dst.isCpu() || !srcIn.isCpu()) {
    // As Tensor.copy_, across devices: the source moves to dst's device first; a device dst is
    // written by the device's copy kernel, never through host memory.
    if (dst.isCpu()) {
      Tensor host = srcIn.toDevice(dst.device());
      copyInto(dst, host);
      return;
    }
    if (!deviceCopy()) throw TorchError("NotImplementedError", "Kiln has no copy kernel for " + dst.device().str() + " tensors");
    deviceCopy()(dst, srcIn.device() == dst.device() ? srcIn : srcIn.toDevice(dst.device()));
    return;
  }
  // Leading size-1 dims of the source are dropped (x[0] = t[None] works), then it must expand.
  Tensor src = srcIn;
  while (src.dim() > dst.dim() && src.sizes()[0] == 1)
    src = src.view(Shape(src.sizes().begin() + 1, src.sizes().end()), Shape(src.strides().begin() + 1, src.strides().end()), src.offset());
  const int64_t nd = dst.dim(), ns = src.dim();
  if (ns > nd)
    throw TorchError("RuntimeError", "expand(torch.FloatTensor{" + tensor::shapeStr(src.sizes()) +
                                         "}, size=" + tensor::shapeStr(dst.sizes()) + "): the number of sizes provided (" +
                                         std::to_string(nd) + ") must be greater or equal to the number of dimensions in the tensor (" +
                                         std::to_string(ns) + ")");
  for (int64_t i = 0; i < ns; ++i) {
    int64_t want = dst.sizes()[nd - ns + i], have = src.sizes()[i];
    if (have != want && have != 1)
      throw TorchError("RuntimeError", "The expanded size of the tensor (" + std::to_string(want) + ") must match the existing size (" +
                                           std::to_string(have) + ") at non-singleton dimension " + std::to_string(nd - ns + i) +
                                           ".  Target sizes: " + tensor::shapeStr(dst.sizes()) +
                                           ".  Tensor sizes: " + tensor::shapeStr(src.sizes()));
  }
  if (dst.dtype() == src.dtype() && dst.sizes() == src.sizes() && dst.isContiguous() && src.isContiguous() && dst.numel() > 0) {
    // The common in-place update (param.add_(...) computes the sum, then copies it in): bytes.
    std::memmove(dst.data(), src.data(), static_cast<size_t>(dst.numel()) * ir::itemSize(dst.dtype()));
    return;
  }
  Shape bs = tensor::broadcastStrides(src, dst.sizes());
  const bool ints = !ir::isFloating(dst.dtype()) && !ir::isFloating(src.dtype());
  if (dst.dtype() == ir::DType::Float32 && src.dtype() == ir::DType::Float32) {
    float* d = dst.ptr<float>();
    const float* s = src.ptr<float>();
    forEachIndex<2>(dst.sizes(), {&dst.strides(), &bs}, [&](const std::array<int64_t, 2>& o) { d[o[0]] = s[o[1]]; });
    return;
  }
  forEachIndex<2>(dst.sizes(), {&dst.strides(), &bs}, [&](const std::array<int64_t, 2>& o) {
    if (ints) dst.storeIntAt(o[0], src.loadIntAt(o[1]));
    else dst.storeAt(o[0], src.loadAt(o[1]));
  });
}

Tensor nonzero(const Tensor& x) {
  std::vector<int64_t> coords;
  const int64_t nd = x.dim();
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  int64_t count = 0;
  forEachIndex<1>(x.sizes(), {&x.strides()}, [&](const std::array<int64_t, 1>& o) {
    if (x.loadAt(o[0]) != 0.0) {
      coords.insert(coords.end(), idx.begin(), idx.end());
      ++count;
    }
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < x.sizes()[d]) break;
      idx[d] = 0;
    }
  });
  Tensor out = Tensor::empty({count, nd}, ir::DType::Int64);
  if (!coords.empty()) std::memcpy(out.ptr<int64_t>(), coords.data(), coords.size() * sizeof(int64_t));
  return out;
}

namespace {

// Advanced indexing resolved: bool masks replaced by their nonzero coordinates, index tensors
// broadcast together; `dims` are the indexed dims of x in order.
struct AdvIndex {
  std::vector<int64_t> dims;
  std::vector<Tensor> idx;  // broadcast to `shape`
  Shape shape;
  bool adjacent = true;
};

AdvIndex resolve(const Tensor& x, const std::vector<std::optional<Tensor>>& indices) {
  if (static_cast<int64_t>(indices.size()) > x.dim())
    throw TorchError("IndexError", "too many indices for tensor of dimension " + std::to_string(x.dim()) + " (got " +
                                       std::to_string(indices.size()) + ")");
  AdvIndex r;
  int64_t d = 0;
  for (const auto& ix : indices) {
    if (!ix) {
      ++d;
      continue;
    }
    if (ix->dtype() == ir::DType::Bool) {
      for (int64_t k = 0; k < ix->dim(); ++k)
        if (d + k >= x.dim() || ix->sizes()[k] != x.sizes()[d + k])
          throw TorchError("IndexError", "The shape of the mask " + tensor::shapeStr(ix->sizes()) + " at index " + std::to_string(k) +
                                             " does not match the shape of the indexed tensor " + tensor::shapeStr(x.sizes()) +
                                             " at index " + std::to_string(d + k));
      Tensor nz = nonzero(*ix);
      for (int64_t k = 0; k < ix->dim(); ++k) {
        r.dims.push_back(d + k);
        r.idx.push_back(nz.view({nz.sizes()[0]}, {nz.strides()[0]}, nz.offset() + k));
      }
      d += ix->dim();
      continue;
    }
    if (ir::isFloating(ix->dtype())) throw TorchError("IndexError", "tensors used as indices must be long, int, byte or bool tensors");
    r.dims.push_back(d++);
    r.idx.push_back(*ix);
  }
  for (size_t k = 1; k < r.dims.size(); ++k)
    if (r.dims[k] != r.dims[k - 1] + 1) r.adjacent = false;
  bool first = true;
  for (const auto& t : r.idx) {
    if (first) r.shape = t.sizes();
    else {
      try {
        r.shape = tensor::broadcastShapes(r.shape, t.sizes());
      } catch (const TorchError&) {
        std::string shapes;
        for (size_t k = 0; k < r.idx.size(); ++k) shapes += (k ? ", " : "") + tensor::shapeStr(r.idx[k].sizes());
        throw TorchError("IndexError", "shape mismatch: indexing tensors could not be broadcast together with shapes " + shapes);
      }
    }
    first = false;
  }
  return r;
}

// The result geometry of x[adv]: sizes, and for each result position the source offset.
// Calls f(resultLinearIndex, sourceOffset).
template <typename F>
Shape forEachIndexed(const Tensor& x, const AdvIndex& r, F&& f) {
  // Result dims: [before..., B..., after...] when indexed dims are adjacent, else [B..., rest...].
  std::vector<int64_t> rest;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (std::find(r.dims.begin(), r.dims.end(), d) == r.dims.end()) rest.push_back(d);
  int64_t insertAt = r.adjacent && !r.dims.empty() ? r.dims[0] : 0;
  size_t restBefore = 0;
  while (restBefore < rest.size() && rest[restBefore] < insertAt) ++restBefore;
  Shape outSizes;
  for (size_t k = 0; k < restBefore; ++k) outSizes.push_back(x.sizes()[rest[k]]);
  outSizes.insert(outSizes.end(), r.shape.begin(), r.shape.end());
  for (size_t k = restBefore; k < rest.size(); ++k) outSizes.push_back(x.sizes()[rest[k]]);
  // Callers list an offset per result element: a huge result (indexing a broadcast view) must
  // fail at once, not grow that list past the memory limit.
  checkOffsetsFit(tensor::checkedNumel(outSizes));

  // Gather the index values once, broadcast to r.shape.
  int64_t bn = tensor::checkedNumel(r.shape);
  std::vector<int64_t> srcOff(static_cast<size_t>(bn), 0);
  for (size_t k = 0; k < r.idx.size(); ++k) {
    const Tensor& it = r.idx[k];
    int64_t dim = r.dims[k], n = x.sizes()[dim], stride = x.strides()[dim];
    Shape is = tensor::broadcastStrides(it, r.shape);
    int64_t lin = 0;
    forEachIndex<1>(r.shape, {&is}, [&](const std::array<int64_t, 1>& o) {
      int64_t v = it.loadIntAt(o[0]);
      if (v < -n || v >= n)
        throw TorchError("IndexError", "index " + std::to_string(v) + " is out of bounds for dimension " + std::to_string(dim) +
                                           " with size " + std::to_string(n));
      if (v < 0) v += n;
      // Wraps: only an empty x's strides can overflow, and then no offset is used (below).
      srcOff[static_cast<size_t>(lin)] = wrapAdd(srcOff[static_cast<size_t>(lin)], wrapMul(v, stride));
      ++lin;
    });
  }
  // No result element (x is empty, or an index is): the indices were checked, nothing is read.
  if (tensor::checkedNumel(outSizes) == 0) return outSizes;
  Shape beforeSizes, beforeStrides, afterSizes, afterStrides;
  for (size_t k = 0; k < restBefore; ++k) {
    beforeSizes.push_back(x.sizes()[rest[k]]);
    beforeStrides.push_back(x.strides()[rest[k]]);
  }
  for (size_t k = restBefore; k < rest.size(); ++k) {
    afterSizes.push_back(x.sizes()[rest[k]]);
    afterStrides.push_back(x.strides()[rest[k]]);
  }
  std::vector<int64_t> afterOff;
  forEachIndex<1>(afterSizes, {&afterStrides}, [&](const std::array<int64_t, 1>& o) { afterOff.push_back(o[0]); });
  int64_t lin = 0;
  forEachIndex<1>(beforeSizes, {&beforeStrides}, [&](const std::array<int64_t, 1>& b) {
    for (int64_t s : srcOff)
      for (int64_t a : afterOff) f(lin++, b[0] + s + a);
  });
  return outSizes;
}

Shape indexedShape(const Shape& xs, const std::vector<Shape>& idxShapes, const std::vector<bool>& isBool,
                   const std::vector<bool>& present) {
  // Meta-only version: bool masks give a data-dependent length (unknown: 0 placeholder).
  std::vector<int64_t> dims;
  Shape b;
  bool first = true;
  int64_t d = 0;
  for (size_t k = 0; k < present.size(); ++k) {
    if (!present[k]) {
      ++d;
      continue;
    }
    Shape s = isBool[k] ? Shape{-1} : idxShapes[k];
    int64_t span = isBool[k] ? static_cast<int64_t>(idxShapes[k].size()) : 1;
    for (int64_t j = 0; j < span; ++j) dims.push_back(d + j);
    d += span;
    if (first) b = s;
    else if (s != Shape{-1} && b != Shape{-1}) b = tensor::broadcastShapes(b, s);
    first = false;
  }
  bool adjacent = true;
  for (size_t k = 1; k < dims.size(); ++k)
    if (dims[k] != dims[k - 1] + 1) adjacent = false;
  int64_t insertAt = adjacent && !dims.empty() ? dims[0] : 0;
  Shape out;
  for (int64_t k = 0; k < static_cast<int64_t>(xs.size()); ++k) {
    if (k == insertAt) out.insert(out.end(), b.begin(), b.end());
    if (std::find(dims.begin(), dims.end(), k) == dims.end()) out.push_back(xs[k]);
  }
  if (insertAt >= static_cast<int64_t>(xs.size())) out.insert(out.end(), b.begin(), b.end());
  return out;
}

std::vector<std::optional<Tensor>> indexList(const Val& v) {
  std::vector<std::optional<Tensor>> out;
  for (const auto& x : v.list) {
    if (x.isNone()) out.emplace_back();
    else out.emplace_back(x.t);
  }
  return out;
}

ir::TensorType indexMeta(const Val& x, const Val& indices) {
  std::vector<Shape> shapes;
  std::vector<bool> isBool, present;
  for (const auto& v : indices.list) {
    present.push_back(!v.isNone());
    isBool.push_back(!v.isNone() && v.tensorType().dtype == ir::DType::Bool);
    shapes.push_back(v.isNone() ? Shape{} : sizesOf(v));
  }
  Shape s = indexedShape(sizesOf(x), shapes, isBool, present);
  ir::TensorType t;
  t.dtype = x.tensorType().dtype;
  for (auto d : s) t.sizes.push_back(d < 0 ? ir::Dim::sym("u0") : ir::Dim(d));
  return t;
}

ir::DType catType(const Val& tensors) {
  ir::DType dt = tensors.list.at(0).tensorType().dtype;
  for (size_t i = 1; i < tensors.list.size(); ++i) {
    // cat promotes like a binary op between dimensioned tensors.
    Val a = Val::sym(contiguousType({1}, dt)), b = Val::sym(contiguousType({1}, tensors.list[i].tensorType().dtype));
    dt = promoteTypes(a, b);
  }
  return dt;
}

Shape catShape(const Val& tensors, int64_t& dim) {
  if (tensors.kind != Val::Kind::List || tensors.list.empty())
    throw TorchError("RuntimeError", "torch.cat(): expected a non-empty list of Tensors");
  // Legacy behaviour: 1-D empty tensors are skipped.
  const Val* ref = nullptr;
  for (const auto& t : tensors.list) {
    if (!t.isTensor()) throw TorchError("TypeError", "expected Tensor as element in argument 0");
    Shape s = sizesOf(t);
    if (!(s.size() == 1 && s[0] == 0)) {
      ref = &t;
      break;
    }
  }
  if (!ref) {
    dim = 0;
    return Shape{0};
  }
  Shape out = sizesOf(*ref);
  int64_t nd = static_cast<int64_t>(out.size());
  if (nd == 0) throw TorchError("RuntimeError", "zero-dimensional tensor (at position 0) cannot be concatenated");
  dim = wrapDim(dim, nd);
  out[dim] = 0;
  for (size_t i = 0; i < tensors.list.size(); ++i) {
    Shape s = sizesOf(tensors.list[i]);
    if (s.size() == 1 && s[0] == 0) continue;
    if (static_cast<int64_t>(s.size()) != nd) {
      if (s.empty())
        throw TorchError("RuntimeError", "zero-dimensional tensor (at position " + std::to_string(i) + ") cannot be concatenated");
      throw TorchError("RuntimeError",
                       "Tensors must have same number of dimensions: got " + std::to_string(nd) + " and " + std::to_string(s.size()));
    }
    for (int64_t d = 0; d < nd; ++d)
      if (d != dim && s[d] != sizesOf(*ref)[d])
        throw TorchError("RuntimeError", "Sizes of tensors must match except in dimension " + std::to_string(dim) + ". Expected size " +
                                             std::to_string(sizesOf(*ref)[d]) + " but got size " + std::to_string(s[d]) +
                                             " for tensor number " + std::to_string(i) + " in the list.");
    // Empty inputs may have dims near 2^63: a sum past int64 is no size (checked, as a numel).
    if (__builtin_add_overflow(out[dim], s[dim], &out[dim]))
      throw TorchError("RuntimeError", "torch.cat(): the sizes along dimension " + std::to_string(dim) + " add up past int64");
  }
  return out;
}

// tril/triu keep elements with (col - row) <= k (tril) or >= k (triu) in the last two dims.
Tensor triangle(const Tensor& x, int64_t k, bool lower) {
  if (x.dim() < 2)
    throw TorchError("RuntimeError", std::string(lower ? "tril" : "triu") + ": input tensor must have at least 2 dimensions");
  Tensor out = x.clone();
  const int64_t rows = x.sizes()[x.dim() - 2], cols = x.sizes()[x.dim() - 1];
  const int64_t mats = rows * cols == 0 ? 0 : out.numel() / (rows * cols);
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        bool keep = lower ? j - i <= k : j - i >= k;
        if (!keep) out.storeIntAt(m * rows * cols + i * cols + j, 0);
      }
  return out;
}

}  // namespace

Tensor indexGather(const Tensor& x, const std::vector<std::optional<Tensor>>& indices) {
  AdvIndex r = resolve(x, indices);
  std::vector<int64_t> offs;
  Shape outSizes = forEachIndexed(x, r, [&](int64_t, int64_t src) { offs.push_back(src); });
  Tensor out = Tensor::empty(outSizes, x.dtype());
  const size_t item = ir::itemSize(x.dtype());
  const char* src = static_cast<const char*>(x.data());
  char* dst = static_cast<char*>(out.data());
  for (size_t i = 0; i < offs.size(); ++i) std::memcpy(dst + i * item, src + offs[i] * static_cast<int64_t>(item), item);
  return out;
}

void indexPutInPlace(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate) {
  AdvIndex r = resolve(self, indices);
  std::vector<int64_t> offs;
  Shape outSizes = forEachIndexed(self, r, [&](int64_t, int64_t dst) { offs.push_back(dst); });
  // values broadcast to the indexed result's shape.
  Shape vs;
  try {
    if (values.dim() > static_cast<int64_t>(outSizes.size())) throw TorchError("RuntimeError", "");
    tensor::broadcastShapes(outSizes, values.sizes());
    vs = tensor::broadcastStrides(values, outSizes);
  } catch (const TorchError&) {
    throw TorchError("RuntimeError", "shape mismatch: value tensor of shape " + tensor::shapeStr(values.sizes()) +
                                         " cannot be broadcast to indexing result of shape " + tensor::shapeStr(outSizes));
  }
  size_t i = 0;
  const bool ints = !ir::isFloating(self.dtype());
  forEachIndex<1>(outSizes, {&vs}, [&](const std::array<int64_t, 1>& o) {
    int64_t dst = offs[i++];
    if (ints) self.storeIntAt(dst, (accumulate ? self.loadIntAt(dst) : 0) + values.loadIntAt(o[0]));
    else self.storeAt(dst, (accumulate ? self.loadAt(dst) : 0.0) + values.loadAt(o[0]));
  });
}

void registerIndexOps(std::vector<OpDef>& t) {
  {
    OpDef d;  // cat(tensors, dim=0)
    d.name = "aten.cat.default";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) {
      int64_t dim = a.size() > 1 ? a[1].i : 0;
      return contiguousType(catShape(a.at(0), dim), catType(a[0]));
    };
    d.eager = [](const std::vector<Val>& a) {
      int64_t dim = a.size() > 1 ? a[1].i : 0;
      Shape s = catShape(a.at(0), dim);
      Tensor out = Tensor::empty(s, catType(a[0]));
      int64_t at = 0;
      for (const auto& v : a[0].list) {
        const Tensor& x = v.t;
        if (x.dim() == 1 && x.sizes()[0] == 0 && s.size() != 1) continue;
        if (x.numel() == 0) {
          at = wrapAdd(at, x.dim() > dim ? x.sizes()[dim] : 0);
          continue;
        }  // only an empty out's can overflow
        Shape dstSizes = s;
        dstSizes[dim] = x.sizes()[dim];
        Tensor dst = out.view(dstSizes, out.strides(), out.offset() + at * out.strides()[dim]);
        copyInto(dst, x);
        at += x.sizes()[dim];
      }
      return out;
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // index.Tensor(self, indices: list of optional tensors)
    d.name = "aten.index.Tensor";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) { return indexMeta(a.at(0), a.at(1)); };
    d.eager = [](const std::vector<Val>& a) { return indexGather(a.at(0).t, indexList(a.at(1))); };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // index_put(self, indices, values, accumulate=False): functional
    d.name = "aten.index_put.default";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) { return plainType(a.at(0)); };
    d.eager = [](const std::vector<Val>& a) {
      Tensor out = a.at(0).t.clone();
      Tensor v = a.at(2).kind == Val::Kind::Tensor ? a[2].t : Tensor::scalar(a[2].number(), out.dtype());
      indexPutInPlace(out, indexList(a.at(1)), v, a.size() > 3 && a[3].kind == Val::Kind::Bool && a[3].b);
      return out;
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // index_select(self, dim, index)
    d.name = "aten.index_select.default";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) {
      Shape s = sizesOf(a.at(0));
      int64_t dim = wrapDim(a.at(1).i, static_cast<int64_t>(s.size()));
      Shape is = sizesOf(a.at(2));
      if (is.size() > 1) throw TorchError("IndexError", "index_select(): Index is supposed to be a vector");
      if (!s.empty()) s[dim] = is.empty() ? 1 : is[0];
      return contiguousType(s, a[0].tensorType().dtype);
    };
    d.eager = [](const std::vector<Val>& a) {
      const Tensor& x = a.at(0).t;
      int64_t dim = wrapDim(a.at(1).i, x.dim());
      if (a.at(2).t.dim() > 1) throw TorchError("IndexError", "index_select(): Index is supposed to be a vector");
      Tensor idx = a[2].t.dim() == 0 ? a[2].t.view({1}, {1}, a[2].t.offset()) : a[2].t;
      std::vector<std::optional<Tensor>> ind(static_cast<size_t>(dim));
      ind.emplace_back(idx);
      return indexGather(x, ind);
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // gather(self, dim, index): out[i][j] = self[index[i][j]][j] (dim 0)
    d.name = "aten.gather.default";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) { return contiguousType(sizesOf(a.at(2)), a.at(0).tensorType().dtype); };
    d.eager = [](const std::vector<Val>& a) {
      const Tensor& x = a.at(0).t;
      const Tensor& idx = a.at(2).t;
      int64_t dim = wrapDim(a.at(1).i, x.dim());
      if (idx.dtype() != ir::DType::Int64) throw TorchError("RuntimeError", "gather(): Expected dtype int64 for index");
      if (std::max<int64_t>(idx.dim(), 1) != std::max<int64_t>(x.dim(), 1))
        throw TorchError("RuntimeError", "Index tensor must have the same number of dimensions as input tensor");
      for (int64_t k = 0; k < idx.dim(); ++k)
        if (k != dim && idx.sizes()[k] > x.sizes()[k])
          throw TorchError("RuntimeError", "Size does not match at dimension " + std::to_string(k) + " expected index " +
                                               tensor::shapeStr(idx.sizes()) + " to be smaller than self " + tensor::shapeStr(x.sizes()) +
                                               " apart from dimension " + std::to_string(dim));
      Tensor out = Tensor::empty(idx.sizes(), x.dtype());
      Shape os = out.strides();
      // Source strides along every dim except `dim`, which the index picks.
      // A 0-dim self is one element (size 1 along dim 0), whatever the index's shape.
      Shape xs = x.dim() > 0 ? x.strides() : Shape(idx.sizes().size(), 0);
      if (x.dim() > 0) xs[dim] = 0;
      const int64_t n = x.dim() > 0 ? x.sizes()[dim] : 1, st = x.dim() > 0 ? x.strides()[dim] : 0;
      forEachIndex<3>(idx.sizes(), {&os, &idx.strides(), &xs}, [&](const std::array<int64_t, 3>& o) {
        int64_t i = idx.loadIntAt(o[1]);
        if (i < -n || i >= n)
          throw TorchError("RuntimeError", "index " + std::to_string(i) + " is out of bounds for dimension " + std::to_string(dim) +
                                               " with size " + std::to_string(n));
        if (i < 0) i += n;
        out.storeAt(o[0], x.loadAt(o[2] + i * st));
      });
      return out;
    };
    t.push_back(std::move(d));
  }
  // index_copy(self, dim, index, source) / index_add(self, dim, index, source) (alpha applied
  // by the caller): functional, with ATen's per-index range checks (negative indices are out of
  // range for both), then self[..., index[i], ...] = (or +=) source[..., i, ...] in index order.
  for (bool add : {false, true}) {
    OpDef d;
    d.name = add ? "aten.index_add.default" : "aten.index_copy.default";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) { return plainType(a.at(0)); };
    d.eager = [add](const std::vector<Val>& a) {
      Tensor out = a.at(0).t.clone();
      const int64_t dim = wrapDim(a.at(1).i, out.dim());
      Tensor idx = a.at(2).t;
      if (idx.dim() == 0) idx = idx.view({1}, {1}, idx.offset());
      const int64_t n = out.dim() == 0 ? 1 : out.sizes()[dim];
      for (int64_t i = 0; i < idx.numel(); ++i) {
        int64_t v = idx.loadIntAt(i * idx.strides()[0]);
        if (v < 0 || v >= n) {
          std::string msg =
              "index " + std::to_string(v) + " is out of bounds for dimension " + std::to_string(dim) + " with size " + std::to_string(n);
          if (add) throw TorchError("RuntimeError", msg);
          throw TorchError("IndexError", "index_copy_(): " + msg);
        }
      }
      std::vector<std::optional<Tensor>> ind(static_cast<size_t>(dim));
      ind.emplace_back(idx);
      indexPutInPlace(out, ind, a.at(3).t, add);
      return out;
    };
    t.push_back(std::move(d));
  }
  // masked_fill.Scalar(self, mask, value) / .Tensor (0-dim value): keeps self's dtype;
  // core ATen decomposes it into where(mask, value, self).
  for (const char* name : {"aten.masked_fill.Scalar", "aten.masked_fill.Tensor"}) {
    OpDef d;
    d.name = name;
    d.kind = OpKind::Pointwise;
    d.meta = [](const std::vector<Val>& a) {
      if (a.at(1).tensorType().dtype != ir::DType::Bool)
        throw TorchError("RuntimeError", "masked_fill_ only supports boolean masks, but got mask with dtype " +
                                             std::string(ir::torchName(a[1].tensorType().dtype)).substr(6));
      Shape s = tensor::broadcastShapes(sizesOf(a[0]), sizesOf(a[1]));
      if (s != sizesOf(a[0]))
        throw TorchError("RuntimeError", "masked_fill: mask of shape " + tensor::shapeStr(sizesOf(a[1])) +
                                             " cannot be broadcast to the input's shape " + tensor::shapeStr(sizesOf(a[0])));
      return plainType(a[0]);
    };
    d.eager = [meta = d.meta](const std::vector<Val>& a) {
      meta(a);
      const Tensor& x = a[0].t;
      const Tensor& m = a[1].t;
      double v = a.at(2).kind == Val::Kind::Tensor ? a[2].t.loadAt(0) : a[2].number();
      Tensor out = x.clone();
      Shape os = out.strides(), ms = tensor::broadcastStrides(m, x.sizes());
      const uint8_t* mp = m.ptr<uint8_t>();
      if (out.dtype() == ir::DType::Float32) {
        float* op = out.ptr<float>();
        float fv = static_cast<float>(v);
        forEachIndex<2>(x.sizes(), {&os, &ms}, [&](const std::array<int64_t, 2>& o) {
          if (mp[o[1]]) op[o[0]] = fv;
        });
      } else {
        forEachIndex<2>(x.sizes(), {&os, &ms}, [&](const std::array<int64_t, 2>& o) {
          if (mp[o[1]]) out.storeAt(o[0], v);
        });
      }
      return out;
    };
    d.decompose = [](Dispatcher& disp, const std::vector<Val>& a) {
      Val v = a.at(2).isTensor() ? a[2] : disp.call("aten.full.default", {Val::listOf({}), a[2], Val::dtypeVal(a[0].tensorType().dtype)});
      return disp.call("aten.where.self", {a[1], v, a[0]});
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // nonzero(self) -> [n, dim] int64; n is data-dependent (an unbacked size in meta)
    d.name = "aten.nonzero.default";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) {
      ir::TensorType t;
      t.dtype = ir::DType::Int64;
      t.sizes = {ir::Dim::sym("u0"), ir::Dim(static_cast<int64_t>(a.at(0).tensorType().sizes.size()))};
      return t;
    };
    d.eager = [](const std::vector<Val>& a) { return nonzero(a.at(0).t); };
    t.push_back(std::move(d));
  }
  for (bool lower : {true, false}) {
    OpDef d;  // tril/triu(self, diagonal=0)
    d.name = lower ? "aten.tril.default" : "aten.triu.default";
    d.kind = OpKind::Extern;
    d.meta = [lower](const std::vector<Val>& a) {
      if (a.at(0).tensorType().sizes.size() < 2)
        throw TorchError("RuntimeError", std::string(lower ? "tril" : "triu") + ": input tensor must have at least 2 dimensions");
      return plainType(a[0]);
    };
    d.eager = [lower](const std::vector<Val>& a) { return triangle(a.at(0).t, a.size() > 1 && !a[1].isNone() ? a[1].i : 0, lower); };
    t.push_back(std::move(d));
  }
}

}  // namespace kiln::ops
