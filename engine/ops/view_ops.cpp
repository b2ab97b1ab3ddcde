// Views: results alias their input's storage in eager mode. The scheduler turns them into
// index arithmetic, so they never cost a kernel of their own.
#include "engine/ops/op_table.h"

namespace kiln::ops {

using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

// Resolves a -1 in a requested shape; errors are worded like PyTorch's.
Shape inferViewShape(const Shape& requested, int64_t numel) {
  Shape out = requested;
  int64_t known = 1, inferAt = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (inferAt >= 0) throw TorchError("RuntimeError", "only one dimension can be inferred");
      inferAt = static_cast<int64_t>(i);
    } else if (out[i] < 0) {
      throw TorchError("RuntimeError", "invalid shape dimension " + std::to_string(out[i]));
    } else {
      known *= out[i];
    }
  }
  if (inferAt >= 0) {
    if (known == 0 || numel % known != 0)
      throw TorchError("RuntimeError", "shape '" + tensor::shapeStr(requested) + "' is invalid for input of size " + std::to_string(numel));
    out[inferAt] = numel / known;
  } else if (known != numel) {
    throw TorchError("RuntimeError", "shape '" + tensor::shapeStr(requested) + "' is invalid for input of size " + std::to_string(numel));
  }
  return out;
}

void registerViewOps(std::vector<OpDef>& t) {
  OpDef d;
  d.name = "aten.view.default";
  d.kind = OpKind::View;
  d.meta = [](const std::vector<Val>& a) {
    ir::TensorType in = a.at(0).tensorType();
    Shape s = inferViewShape(a.at(1).ints(), in.numel());
    ir::TensorType out;
    out.dtype = in.dtype;
    for (auto x : s) out.sizes.emplace_back(x);
    return out;
  };
  d.eager = [](const std::vector<Val>& a) {
    const Tensor& x = a.at(0).t;
    Shape s = inferViewShape(a.at(1).ints(), x.numel());
    // Kiln's eager views need a contiguous base; a non-contiguous input is copied first
    // (reshape semantics). TODO(issue 3): stride-preserving views for every viewable case.
    Tensor base = x.contiguous();
    return base.view(s, Tensor::contiguousStrides(s), base.offset());
  };
  t.push_back(std::move(d));
}

}  // namespace kiln::ops
