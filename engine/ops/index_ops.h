// Advanced-indexing kernels shared by the op table (index.Tensor, index_put) and the
// interpreter's tensor subscript assignment (x[mask] = v mutates x in place).
#pragma once

#include "engine/tensor/tensor.h"

#include <optional>
#include <vector>

namespace kiln::ops {

// x[indices] where indices[d] is an integer (int64/int32) or bool tensor for dim d, or empty
// for a dim that is taken whole. Bool masks are expanded with nonzero first.
tensor::Tensor indexGather(const tensor::Tensor& x, const std::vector<std::optional<tensor::Tensor>>& indices);
// self[indices] = values (broadcast), or += with accumulate; writes into self's storage.
void indexPutInPlace(tensor::Tensor& self, const std::vector<std::optional<tensor::Tensor>>& indices, const tensor::Tensor& values,
                     bool accumulate);
// Copies src (broadcast to dst's shape, converted to dst's dtype) into dst's elements.
void copyInto(tensor::Tensor& dst, const tensor::Tensor& src);
// [n, x.dim()] int64 coordinates of the non-zero elements in row-major order.
tensor::Tensor nonzero(const tensor::Tensor& x);

}  // namespace kiln::ops
