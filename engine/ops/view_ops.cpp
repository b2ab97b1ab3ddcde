// Views: results alias their input's storage in eager mode (same Storage, new sizes/strides/
// offset), so writes through a view are visible in the base. Each op is written once as a
// function on a strided geometry; meta applies it to the fake tensor's type, eager to the
// real tensor. The scheduler turns views into index arithmetic.
#include "engine/ops/op_table.h"
#include "engine/ops/shape_util.h"

#include <algorithm>
#include <optional>

namespace kiln::ops {

using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

// Resolves a -1 in a requested shape; errors are worded like PyTorch's.
Shape inferViewShape(const Shape& requested, int64_t numel) {
  Shape out = requested;
  int64_t known = 1, inferAt = -1;
  bool overflow = false, zero = false;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (inferAt >= 0) throw TorchError("RuntimeError", "only one dimension can be inferred");
      inferAt = static_cast<int64_t>(i);
    } else if (out[i] < 0) {
      throw TorchError("RuntimeError", "invalid shape dimension " + std::to_string(out[i]));
    } else {
      zero |= out[i] == 0;
      overflow |= __builtin_mul_overflow(known, out[i], &known);
    }
  }
  // A product past int64 cannot be any tensor's size, unless a 0 makes it 0.
  if (zero) known = 0;
  else if (overflow)
    throw TorchError("RuntimeError", "shape '" + tensor::shapeStr(requested) + "' is invalid for input of size " + std::to_string(numel));
  if (inferAt >= 0) {
    if (known == 0 || numel % known != 0)
      throw TorchError("RuntimeError", "shape '" + tensor::shapeStr(requested) + "' is invalid for input of size " + std::to_string(numel));
    out[inferAt] = numel / known;
  } else if (known != numel) {
    throw TorchError("RuntimeError", "shape '" + tensor::shapeStr(requested) + "' is invalid for input of size " + std::to_string(numel));
  }
  return out;
}

// ATen's computeStride: the strides that let `newShape` view memory laid out as
// (oldShape, oldStride), or nothing when a new dimension would span two non-contiguous chunks.
std::optional<Shape> viewStrides(const Shape& oldShape, const Shape& oldStride, const Shape& newShape) {
  if (oldShape.empty()) return Shape(newShape.size(), 1);
  int64_t numel = tensor::checkedNumel(oldShape);
  if (numel == 0 && oldShape == newShape) return oldStride;
  Shape newStride(newShape.size(), 0);
  if (numel == 0) {
    // Contiguous strides; an empty view's other dims may multiply past int64, and its strides
    // never address an element, so they wrap.
    for (int64_t d = static_cast<int64_t>(newShape.size()) - 1; d >= 0; --d)
      newStride[d] = d == static_cast<int64_t>(newShape.size()) - 1 ? 1 : wrapMul(std::max<int64_t>(newShape[d + 1], 1), newStride[d + 1]);
    return newStride;
  }
  int64_t viewD = static_cast<int64_t>(newShape.size()) - 1;
  int64_t chunkBase = oldStride.back();
  int64_t tensorNumel = 1, viewNumel = 1;
  for (int64_t td = static_cast<int64_t>(oldShape.size()) - 1; td >= 0; --td) {
    tensorNumel *= oldShape[td];
    if (td == 0 || (oldShape[td - 1] != 1 && oldStride[td - 1] != wrapMul(tensorNumel, chunkBase))) {
      while (viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] == 1)) {
        newStride[viewD] = wrapMul(viewNumel, chunkBase);
        viewNumel *= newShape[viewD];
        --viewD;
      }
      if (viewNumel != tensorNumel) return std::nullopt;
      if (td > 0) {
        chunkBase = oldStride[td - 1];
        tensorNumel = 1;
        viewNumel = 1;
      }
    }
  }
  if (viewD != -1) return std::nullopt;
  return newStride;
}

Geom geomOf(const Val& v) {
  if (v.kind == Val::Kind::Tensor) return {v.t.sizes(), v.t.strides(), v.t.offset()};
  if (!v.isTensor()) throw TorchError("TypeError", "expected a Tensor");
  const ir::TensorType ty = v.tensorType();
  Geom g;
  for (const auto& d : ty.sizes) g.sizes.push_back(d.value);
  if (ty.strides.size() == ty.sizes.size() && !ty.strides.empty())
    for (const auto& d : ty.strides) g.strides.push_back(d.value);
  else g.strides = Tensor::contiguousStrides(g.sizes);
  return g;
}

bool isContiguousGeom(const Shape& sizes, const Shape& strides) {
  // An empty geometry is contiguous (c10's compute_contiguous); its other sizes may multiply
  // past int64.
  if (tensor::checkedNumel(sizes) == 0) return true;
  int64_t expect = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != expect) return false;
    expect *= sizes[i];
  }
  return true;
}

bool isChannelsLastContiguous(const Shape& sizes, const Shape& strides) {
  // c10's compute_channels_last_contiguous_2d: dims C, W, H, N from innermost.
  if (sizes.size() != 4) return false;
  int64_t expect = 1;
  for (int d : {1, 3, 2, 0}) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expect) return false;
    if (__builtin_mul_overflow(expect, sizes[d], &expect)) return false;  // an empty view's dims may overflow
  }
  return true;
}

int64_t wrapDim(int64_t d, int64_t nd) {
  int64_t n = std::max<int64_t>(nd, 1);
  if (d < -n || d >= n)
    throw TorchError("IndexError", "Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                                       std::to_string(n - 1) + "], but got " + std::to_string(d) + ")");
  return d < 0 ? d + n : d;
}

bool viewable(const Val& x, const Shape& requested) {
  Geom g = geomOf(x);
  int64_t n = tensor::checkedNumel(g.sizes);  // 0 for an empty view whatever its other dims
  return viewStrides(g.sizes, g.strides, inferViewShape(requested, n)).has_value();
}

namespace {

ir::TensorType typeOf(const Val& in, const Geom& g) {
  ir::TensorType t = in.tensorType();
  t.sizes.clear();
  t.strides.clear();
  for (auto s : g.sizes) t.sizes.emplace_back(s);
  // Empty strides mean contiguous; only non-contiguous views carry them explicitly.
  if (!isContiguousGeom(g.sizes, g.strides))
    for (auto s : g.strides) t.strides.emplace_back(s);
  return t;
}

using GeomFn = Geom (*)(const Geom&, const std::vector<Val>&);

void addView(std::vector<OpDef>& t, const char* name, GeomFn f) {
  OpDef d;
  d.name = name;
  d.kind = OpKind::View;
  d.meta = [f](const std::vector<Val>& a) { return typeOf(a.at(0), f(geomOf(a.at(0)), a)); };
  d.eager = [f](const std::vector<Val>& a) {
    const Tensor& x = a.at(0).t;
    Geom g = f(geomOf(a.at(0)), a);
    return x.view(g.sizes, g.strides, g.offset);
  };
  t.push_back(std::move(d));
}

int64_t numelOf(const Shape& s) { return tensor::checkedNumel(s); }

Geom viewGeom(const Geom& g, const std::vector<Val>& a) {
  Shape s = inferViewShape(a.at(1).ints(), numelOf(g.sizes));
  auto st = viewStrides(g.sizes, g.strides, s);
  if (!st)
    throw TorchError("RuntimeError",
                     "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
                     "contiguous subspaces). Use .reshape(...) instead.");
  return {s, *st, g.offset};
}

Geom permuteGeom(const Geom& g, const std::vector<Val>& a) {
  std::vector<int64_t> dims = a.at(1).ints();
  int64_t nd = static_cast<int64_t>(g.sizes.size());
  if (static_cast<int64_t>(dims.size()) != nd)
    throw TorchError("RuntimeError",
                     "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
                     "desired ordering of dimensions i.e. input.dim() = " +
                         std::to_string(nd) + " is not equal to len(dims) = " + std::to_string(dims.size()));
  Geom out{{}, {}, g.offset};
  std::vector<bool> seen(static_cast<size_t>(nd), false);
  for (int64_t d : dims) {
    int64_t w = wrapDim(d, nd);
    if (seen[w]) throw TorchError("RuntimeError", "permute(): duplicate dims are not allowed.");
    seen[w] = true;
    out.sizes.push_back(g.sizes[w]);
    out.strides.push_back(g.strides[w]);
  }
  return out;
}

Geom transposeGeom(const Geom& g, const std::vector<Val>& a) {
  int64_t nd = static_cast<int64_t>(g.sizes.size());
  Geom out = g;
  if (nd == 0) {
    wrapDim(a.at(1).i, nd);
    wrapDim(a.at(2).i, nd);
    return out;
  }
  int64_t d0 = wrapDim(a.at(1).i, nd), d1 = wrapDim(a.at(2).i, nd);
  std::swap(out.sizes[d0], out.sizes[d1]);
  std::swap(out.strides[d0], out.strides[d1]);
  return out;
}

Geom tGeom(const Geom& g, const std::vector<Val>&) {
  if (g.sizes.size() > 2)
    throw TorchError("RuntimeError", "t() expects a tensor with <= 2 dimensions, but self is " + std::to_string(g.sizes.size()) + "D");
  Geom out = g;
  std::reverse(out.sizes.begin(), out.sizes.end());
  std::reverse(out.strides.begin(), out.strides.end());
  return out;
}

Geom expandGeom(const Geom& g, const std::vector<Val>& a) {
  std::vector<int64_t> want = a.at(1).ints();
  int64_t nd = static_cast<int64_t>(g.sizes.size()), nw = static_cast<int64_t>(want.size());
  if (nw < nd)
    throw TorchError("RuntimeError", "expand(torch.FloatTensor{" + tensor::shapeStr(g.sizes) + "}, size=" + tensor::shapeStr(want) +
                                         "): the number of sizes provided (" + std::to_string(nw) +
                                         ") must be greater or equal to the number of dimensions in the tensor (" + std::to_string(nd) +
                                         ")");
  Geom out{Shape(static_cast<size_t>(nw)), Shape(static_cast<size_t>(nw)), g.offset};
  for (int64_t i = nw - 1; i >= 0; --i) {
    int64_t off = nd - nw + i;
    int64_t size = off >= 0 ? g.sizes[off] : 1;
    int64_t stride =
        off >= 0 ? g.strides[off] : (i + 1 < nw ? wrapMul(out.sizes[i + 1], out.strides[i + 1]) : 1);  // a size-1 dim's: any value
    int64_t target = want[i];
    if (target == -1) {
      if (off < 0)
        throw TorchError("RuntimeError",
                         "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension " + std::to_string(i));
      target = size;
    }
    if (size != target) {
      if (size != 1)
        throw TorchError("RuntimeError", "The expanded size of the tensor (" + std::to_string(target) + ") must match the existing size (" +
                                             std::to_string(size) + ") at non-singleton dimension " + std::to_string(i) +
                                             ".  Target sizes: " + tensor::shapeStr(want) +
                                             ".  Tensor sizes: " + tensor::shapeStr(g.sizes));
      stride = 0;
    }
    out.sizes[i] = target;
    out.strides[i] = stride;
  }
  return out;
}

Geom unsqueezeGeom(const Geom& g, const std::vector<Val>& a) {
  int64_t nd = static_cast<int64_t>(g.sizes.size());
  int64_t d = a.at(1).i;
  if (d < -nd - 1 || d > nd)
    throw TorchError("IndexError", "Dimension out of range (expected to be in range of [" + std::to_string(-nd - 1) + ", " +
                                       std::to_string(nd) + "], but got " + std::to_string(d) + ")");
  if (d < 0) d += nd + 1;
  Geom out = g;
  int64_t stride = d >= nd ? 1 : wrapMul(g.sizes[d], g.strides[d]);  // a size-1 dim's stride is never used
  out.sizes.insert(out.sizes.begin() + d, 1);
  out.strides.insert(out.strides.begin() + d, stride);
  return out;
}

Geom squeezeDims(const Geom& g, const std::vector<int64_t>& dims) {
  int64_t nd = static_cast<int64_t>(g.sizes.size());
  std::vector<bool> drop(static_cast<size_t>(nd), false);
  for (int64_t d : dims) {
    int64_t w = wrapDim(d, nd);
    if (nd > 0 && g.sizes[w] == 1) drop[w] = true;
  }
  Geom out{{}, {}, g.offset};
  for (int64_t i = 0; i < nd; ++i)
    if (!drop[i]) {
      out.sizes.push_back(g.sizes[i]);
      out.strides.push_back(g.strides[i]);
    }
  return out;
}

Geom squeezeAll(const Geom& g, const std::vector<Val>&) {
  std::vector<int64_t> dims;
  for (size_t i = 0; i < g.sizes.size(); ++i) dims.push_back(static_cast<int64_t>(i));
  return squeezeDims(g, dims);
}
Geom squeezeDim(const Geom& g, const std::vector<Val>& a) { return squeezeDims(g, {a.at(1).i}); }
Geom squeezeDimList(const Geom& g, const std::vector<Val>& a) { return squeezeDims(g, a.at(1).ints()); }

// slice.Tensor(self, dim=0, start=None, end=None, step=1): Python slice semantics, clamped.
Geom sliceGeom(const Geom& g, const std::vector<Val>& a) {
  int64_t nd = static_cast<int64_t>(g.sizes.size());
  if (nd == 0) throw TorchError("IndexError", "slice() cannot be applied to a 0-dim tensor.");
  int64_t dim = wrapDim(a.size() > 1 && !a[1].isNone() ? a[1].i : 0, nd);
  int64_t n = g.sizes[dim];
  int64_t step = a.size() > 4 && !a[4].isNone() ? a[4].i : 1;
  if (step <= 0) throw TorchError("RuntimeError", "slice step must be positive");
  int64_t start = a.size() > 2 && !a[2].isNone() ? a[2].i : 0;
  int64_t end = a.size() > 3 && !a[3].isNone() ? a[3].i : n;
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  Geom out = g;
  out.offset = tensor::viewOffset(g.offset, start, g.strides[dim]);
  out.sizes[dim] = end == start ? 0 : (end - start - 1) / step + 1;  // no overflow for a step near 2^63
  // Wraps rather than overflows: a huge step leaves one element, whose stride is never used.
  out.strides[dim] = wrapMul(g.strides[dim], step);
  return out;
}

Geom selectGeom(const Geom& g, const std::vector<Val>& a) {
  int64_t nd = static_cast<int64_t>(g.sizes.size());
  if (nd == 0) throw TorchError("IndexError", "select() cannot be applied to a 0-dim tensor.");
  int64_t dim = wrapDim(a.at(1).i, nd);
  int64_t n = g.sizes[dim], i = a.at(2).i;
  if (i < -n || i >= n)
    throw TorchError("IndexError", "select(): index " + std::to_string(i) + " out of range for tensor of size " +
                                       tensor::shapeStr(g.sizes) + " at dimension " + std::to_string(dim));
  if (i < 0) i += n;
  Geom out{{}, {}, tensor::viewOffset(g.offset, i, g.strides[dim])};
  for (int64_t k = 0; k < nd; ++k)
    if (k != dim) {
      out.sizes.push_back(g.sizes[k]);
      out.strides.push_back(g.strides[k]);
    }
  return out;
}

Geom aliasGeom(const Geom& g, const std::vector<Val>&) { return g; }

// as_strided(self, size, stride, storage_offset=None): offsets are relative to the storage.
Geom asStridedGeom(const Geom& g, const std::vector<Val>& a) {
  Geom out{a.at(1).ints(), a.at(2).ints(), g.offset};
  if (out.sizes.size() != out.strides.size()) throw TorchError("RuntimeError", "mismatch in length of strides and shape");
  for (int64_t st : out.strides)
    if (st < 0)
      throw TorchError("RuntimeError",
                       "as_strided: Negative strides are not supported at the moment, got strides: " + tensor::shapeStr(out.strides));
  for (int64_t sz : out.sizes)
    if (sz < 0)
      throw TorchError("RuntimeError",
                       "Trying to create tensor with negative dimension " + std::to_string(sz) + ": " + tensor::shapeStr(out.sizes));
  if (a.size() > 3 && !a[3].isNone()) out.offset = a[3].i;
  if (out.offset < 0) throw TorchError("RuntimeError", "Tensor: invalid storage offset " + std::to_string(out.offset));
  return out;
}

// diagonal(self, offset=0, dim1=0, dim2=1): the two dims replaced by one (last) dim walking
// the diagonal, as ATen's diagonal view.
Geom diagonalGeom(const Geom& g, const std::vector<Val>& a) {
  int64_t nd = static_cast<int64_t>(g.sizes.size());
  int64_t offset = a.size() > 1 && !a[1].isNone() ? a[1].i : 0;
  int64_t d1 = wrapDim(a.size() > 2 && !a[2].isNone() ? a[2].i : 0, nd);
  int64_t d2 = wrapDim(a.size() > 3 && !a[3].isNone() ? a[3].i : 1, nd);
  if (d1 == d2)
    throw TorchError("RuntimeError", "diagonal dimensions cannot be identical " + std::to_string(d1) + ", " + std::to_string(d2));
  Geom out{{}, {}, g.offset};
  int64_t size;
  if (offset >= 0) size = std::max<int64_t>(std::min(g.sizes[d1], g.sizes[d2] - offset), 0);
  else size = std::max<int64_t>(std::min(g.sizes[d1] + offset, g.sizes[d2]), 0);
  if (size > 0)
    out.offset = offset >= 0 ? tensor::viewOffset(g.offset, offset, g.strides[d2]) : tensor::viewOffset(g.offset, -offset, g.strides[d1]);
  for (int64_t i = 0; i < nd; ++i)
    if (i != d1 && i != d2) {
      out.sizes.push_back(g.sizes[i]);
      out.strides.push_back(g.strides[i]);
    }
  out.sizes.push_back(size);
  // Wraps rather than overflows: a size-1 dim may have any stride, and then the diagonal has at
  // most one element and its stride is never used.
  out.strides.push_back(wrapAdd(g.strides[d1], g.strides[d2]));
  return out;
}

}  // namespace

void registerViewOps(std::vector<OpDef>& t) {
  addView(t, "aten.view.default", viewGeom);
  addView(t, "aten.permute.default", permuteGeom);
  addView(t, "aten.transpose.int", transposeGeom);
  addView(t, "aten.t.default", tGeom);
  addView(t, "aten.expand.default", expandGeom);
  addView(t, "aten.unsqueeze.default", unsqueezeGeom);
  addView(t, "aten.squeeze.default", squeezeAll);
  addView(t, "aten.squeeze.dim", squeezeDim);
  addView(t, "aten.squeeze.dims", squeezeDimList);
  addView(t, "aten.slice.Tensor", sliceGeom);
  addView(t, "aten.select.int", selectGeom);
  addView(t, "aten.alias.default", aliasGeom);
  addView(t, "aten.as_strided.default", asStridedGeom);
  addView(t, "aten.diagonal.default", diagonalGeom);
  // view(dtype): the storage's bytes read as another dtype of the same size. Kernels cannot
  // bitcast, so it is an extern step that makes the view (sharing the input's storage); the
  // schedule keeps its base alive and never reuses either buffer in place (lifetimes, in_place), and
  // lowering refuses an in-place update of either (the graph then runs eagerly).
  {
    OpDef d;
    d.name = "aten.view.dtype";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) -> ir::TensorType {
      ir::TensorType t = a.at(0).tensorType();
      const ir::DType to = a.at(1).dtype;
      if (ir::itemSize(to) != ir::itemSize(t.dtype))
        throw TorchError("NotImplementedError", "Tensor.view(dtype) between dtypes of different sizes is not supported by Kiln yet");
      t.dtype = to;
      t.requiresGrad = t.requiresGrad && ir::isFloating(to);
      return t;
    };
    d.eager = [](const std::vector<Val>& a) { return a.at(0).t.reinterpret(a.at(1).dtype); };
    t.push_back(std::move(d));
  }
  // Inductor's core decompositions: transpose/t -> permute.
  for (auto& d : t) {
    if (d.name == "aten.transpose.int")
      d.decompose = [](Dispatcher& disp, const std::vector<Val>& a) {
        int64_t nd = static_cast<int64_t>(a.at(0).tensorType().sizes.size());
        std::vector<Val> perm;
        for (int64_t i = 0; i < nd; ++i) perm.push_back(Val::integer(i));
        if (nd > 0) std::swap(perm[wrapDim(a.at(1).i, nd)], perm[wrapDim(a.at(2).i, nd)]);
        return disp.call("aten.permute.default", {a.at(0), Val::listOf(perm)});
      };
    if (d.name == "aten.t.default")
      d.decompose = [](Dispatcher& disp, const std::vector<Val>& a) {
        int64_t nd = static_cast<int64_t>(a.at(0).tensorType().sizes.size());
        if (nd < 2) return disp.call("aten.alias.default", {a.at(0)});
        return disp.call("aten.permute.default", {a.at(0), Val::listOf({Val::integer(1), Val::integer(0)})});
      };
  }
  // _unsafe_view: view without the aliasing contract (AOTAutograd emits it after a clone);
  // decomposes to view. A non-viewable input is copied first instead of failing.
  {
    OpDef d;
    d.name = "aten._unsafe_view.default";
    d.kind = OpKind::View;
    d.meta = [](const std::vector<Val>& a) {
      Geom g = geomOf(a.at(0));
      Shape s = inferViewShape(a.at(1).ints(), numelOf(g.sizes));
      auto st = viewStrides(g.sizes, g.strides, s);
      return typeOf(a[0], st ? Geom{s, *st, g.offset} : Geom{s, Tensor::contiguousStrides(s), 0});
    };
    d.eager = [](const std::vector<Val>& a) {
      const Tensor& x = a.at(0).t;
      Shape s = inferViewShape(a.at(1).ints(), x.numel());
      if (auto st = viewStrides(x.sizes(), x.strides(), s)) return x.view(s, *st, x.offset());
      Tensor c = x.clone();
      return c.view(s, Tensor::contiguousStrides(s), c.offset());
    };
    d.decompose = [](Dispatcher& disp, const std::vector<Val>& a) { return disp.call("aten.view.default", {a.at(0), a.at(1)}); };
    t.push_back(std::move(d));
  }
}

}  // namespace kiln::ops
