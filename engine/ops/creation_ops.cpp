// Tensor creation. These have no tensor inputs; inside compiled graphs they run as extern
// calls until constant folding or code generation takes them over.
#include "engine/ops/op_table.h"

#include <cmath>
#include <sstream>

namespace kiln::ops {

using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

namespace {
int64_t arangeLength(double start, double end, double step) {
  if (!std::isfinite(start) || !std::isfinite(end)) {
    std::ostringstream m;
    m << "unsupported range: " << start << " -> " << end;
    throw TorchError("RuntimeError", m.str());
  }
  if (step == 0) throw TorchError("RuntimeError", "step must be nonzero");
  if ((step > 0 && start > end) || (step < 0 && start < end))
    throw TorchError("RuntimeError", "upper bound and larger bound inconsistent with step sign");
  // The length as a double first, as ATen computes it: a range wider than int64 is refused
  // rather than converted with undefined behaviour.
  double size = std::ceil((end - start) / step);
  if (!(size >= 0 && size < 9223372036854775808.0)) throw TorchError("RuntimeError", "invalid size, possible overflow?");
  return static_cast<int64_t>(size);
}
}  // namespace

void registerCreationOps(std::vector<OpDef>& t) {
  {
    OpDef d;  // arange(start, end, step, dtype)
    d.name = "aten.arange.start_step";
    d.kind = OpKind::Creation;
    d.meta = [](const std::vector<Val>& a) {
      ir::TensorType ty;
      ty.dtype = a.at(3).dtype;
      ty.sizes.emplace_back(arangeLength(a[0].number(), a[1].number(), a[2].number()));
      return ty;
    };
    d.eager = [](const std::vector<Val>& a) {
      double start = a[0].number(), end = a[1].number(), step = a[2].number();
      int64_t n = arangeLength(start, end, step);
      Tensor out = Tensor::empty({n}, a.at(3).dtype);
      bool ints = a[0].kind != Val::Kind::Float && a[1].kind != Val::Kind::Float && a[2].kind != Val::Kind::Float;
      for (int64_t i = 0; i < n; ++i) {
        if (ints) out.storeIntAt(i, a[0].i + i * a[2].i);
        else out.storeAt(i, start + static_cast<double>(i) * step);
      }
      return out;
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // linspace(start, end, steps, dtype)
    d.name = "aten.linspace.default";
    d.kind = OpKind::Creation;
    d.meta = [](const std::vector<Val>& a) {
      ir::TensorType ty;
      ty.dtype = a.at(3).dtype;
      ty.sizes.emplace_back(a.at(2).i);
      return ty;
    };
    d.eager = [](const std::vector<Val>& a) {
      double start = a[0].number(), end = a[1].number();
      int64_t n = a.at(2).i;
      if (n < 0) throw TorchError("RuntimeError", "linspace(): number of steps must be non-negative");
      Tensor out = Tensor::empty({n}, a.at(3).dtype);
      // PyTorch fills the first half from the start and the second half from the end, so the
      // endpoints are exact; matching it keeps results bit-identical in float32.
      double step = n > 1 ? (end - start) / double(n - 1) : 0.0;
      int64_t half = n / 2;
      for (int64_t i = 0; i < n; ++i) {
        if (a.at(3).dtype == ir::DType::Float32) {
          float s = static_cast<float>(start), e = static_cast<float>(end), st = static_cast<float>(step);
          out.storeAt(i, i < half ? s + st * float(i) : e - st * float(n - i - 1));
        } else {
          out.storeAt(i, i < half ? start + step * double(i) : end - step * double(n - i - 1));
        }
      }
      return out;
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // full(size, value, dtype)
    d.name = "aten.full.default";
    d.kind = OpKind::Creation;
    d.meta = [](const std::vector<Val>& a) {
      ir::TensorType ty;
      ty.dtype = a.at(2).dtype;
      for (auto s : a.at(0).ints()) ty.sizes.emplace_back(s);
      return ty;
    };
    d.eager = [](const std::vector<Val>& a) { return Tensor::full(a.at(0).ints(), a.at(1).number(), a.at(2).dtype); };
    t.push_back(std::move(d));
  }
}

}  // namespace kiln::ops
