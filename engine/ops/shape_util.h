// Shape helpers shared by the view, index, reduction and normalization ops: strided geometry
// of real or symbolic tensors, view stride computation, dim wrapping, reduced shapes.
#pragma once

#include "engine/ops/val.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace kiln::ops {

// Sizes/strides/offset of a tensor Val (a fake tensor's type: strides when recorded, else
// contiguous; offset 0).
struct Geom {
  tensor::Shape sizes, strides;
  int64_t offset = 0;
};
Geom geomOf(const Val& v);

tensor::Shape inferViewShape(const tensor::Shape& requested, int64_t numel);
// ATen's computeStride: strides for viewing (oldShape, oldStride) as newShape, if possible.
std::optional<tensor::Shape> viewStrides(const tensor::Shape& oldShape, const tensor::Shape& oldStride, const tensor::Shape& newShape);
// True when `x` can be viewed as `requested` (which may hold one -1) without a copy.
bool viewable(const Val& x, const tensor::Shape& requested);
bool isContiguousGeom(const tensor::Shape& sizes, const tensor::Shape& strides);
// torch.channels_last contiguity of a 4-d geometry (NHWC in memory).
bool isChannelsLastContiguous(const tensor::Shape& sizes, const tensor::Shape& strides);
// Wraps a possibly negative dim into [0, nd); IndexError worded like PyTorch's.
int64_t wrapDim(int64_t d, int64_t nd);

// Integer tensor arithmetic wraps around on overflow, as PyTorch's does (two's complement);
// computed unsigned, since signed overflow is undefined behaviour in C++.
inline int64_t wrapAdd(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
inline int64_t wrapSub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
inline int64_t wrapMul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

// Throws the allocator's out-of-memory error (tensor::OutOfMemory) unless `count` element
// offsets (int64 each) fit the script's memory limit beside the tensors alive. Kernels that list
// every offset of a view first (reductions, advanced indexing) check here: a broadcast view may
// have 2^40 elements over one, and the list would grow until the machine ran out of memory.
inline void checkOffsetsFit(int64_t count) {
  const bool huge = count < 0 || static_cast<uint64_t>(count) > UINT64_MAX / sizeof(int64_t);
  const uint64_t bytes = huge ? UINT64_MAX : static_cast<uint64_t>(count) * sizeof(int64_t);
  if (huge || !tensor::fitsMemoryLimit(bytes)) throw tensor::OutOfMemory(tensor::notEnoughMemory(bytes));
}

// Concrete sizes of a tensor Val.
inline tensor::Shape sizesOf(const Val& v) {
  if (v.kind == Val::Kind::Tensor) return v.t.sizes();
  tensor::Shape s;
  for (const auto& d : v.tensorType().sizes) s.push_back(d.value);
  return s;
}

// Sizes as the int-list argument ATen ops take ([2, 3] for view, full, sum_to ...).
inline Val intList(const tensor::Shape& s) {
  std::vector<Val> out;
  for (auto x : s) out.push_back(Val::integer(x));
  return Val::listOf(std::move(out));
}

// Reduction dims: None or [] -> every dim; ints wrapped, duplicates rejected.
std::vector<int64_t> reductionDims(const Val& dims, int64_t nd);
// The type of a reduction of `in` over `dims`.
ir::TensorType reducedType(const ir::TensorType& in, const std::vector<int64_t>& dims, bool keep, ir::DType dt);
// A plain contiguous tensor type.
ir::TensorType contiguousType(const tensor::Shape& sizes, ir::DType dt);
// `x`'s type as a new result of the same shape and dtype has it: contiguous, no grad.
ir::TensorType plainType(const Val& x);

}  // namespace kiln::ops
