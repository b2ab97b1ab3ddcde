// Reductions. Full and per-dim sum/amax/max; code generation for these comes with the
// reduction scheduler, until then they run as extern calls to these eager kernels.
#include "engine/ops/op_table.h"

#include <cmath>
#include <limits>

namespace kiln::ops {

using tensor::forEachIndex;

using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

namespace {

std::vector<int64_t> normDims(const Val& dims, int64_t nd) {
  std::vector<int64_t> out;
  if (dims.isNone()) {
    for (int64_t i = 0; i < nd; ++i) out.push_back(i);
    return out;
  }
  for (int64_t d : dims.ints()) {
    int64_t n = std::max<int64_t>(nd, 1);
    if (d < -n || d >= n)
      throw TorchError("IndexError", "Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                                         std::to_string(n - 1) + "], but got " + std::to_string(d) + ")");
    out.push_back(d < 0 ? d + nd : d);
  }
  return out;
}

ir::TensorType reducedType(const ir::TensorType& in, const std::vector<int64_t>& dims, bool keep, ir::DType dt) {
  ir::TensorType t;
  t.dtype = dt;
  for (size_t i = 0; i < in.sizes.size(); ++i) {
    bool red = std::find(dims.begin(), dims.end(), int64_t(i)) != dims.end();
    if (!red) t.sizes.push_back(in.sizes[i]);
    else if (keep) t.sizes.emplace_back(1);
  }
  return t;
}

enum class Kind { Sum, Max };

Tensor reduce(const Tensor& x, const std::vector<int64_t>& dims, bool keep, Kind k, ir::DType outType) {
  if (k == Kind::Max && x.numel() == 0)
    throw TorchError("RuntimeError", "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
  Shape keptSizes = x.sizes();
  for (auto d : dims) keptSizes[d] = 1;
  Tensor acc = Tensor::full(keptSizes, k == Kind::Sum ? 0.0 : -std::numeric_limits<double>::infinity(), ir::DType::Float64);
  Shape accStrides = acc.strides();
  for (auto d : dims) accStrides[d] = 0;
  std::vector<uint8_t> sawNan(static_cast<size_t>(acc.numel()), 0);
  forEachIndex<2>(x.sizes(), {&accStrides, &x.strides()}, [&](const std::array<int64_t, 2>& o) {
    double v = x.loadAt(o[1]);
    double* a = acc.ptr<double>() + o[0];
    if (k == Kind::Sum) *a += v;
    else if (std::isnan(v)) sawNan[o[0]] = 1;
    else *a = std::max(*a, v);
  });
  if (k == Kind::Max)
    for (size_t i = 0; i < sawNan.size(); ++i)
      if (sawNan[i]) acc.ptr<double>()[i] = NAN;
  Tensor out = acc.to(outType);
  if (!keep) {
    Shape s;
    for (int64_t i = 0; i < x.dim(); ++i)
      if (std::find(dims.begin(), dims.end(), i) == dims.end()) s.push_back(x.sizes()[i]);
    out = out.view(s, Tensor::contiguousStrides(s), 0);
  }
  return out;
}

ir::DType sumType(ir::DType in) { return ir::isFloating(in) ? in : ir::DType::Int64; }

}  // namespace

void registerReductionOps(std::vector<OpDef>& t) {
  {
    OpDef d;  // max(x) over every element
    d.name = "aten.max.default";
    d.kind = OpKind::Reduction;
    d.meta = [](const std::vector<Val>& a) { ir::TensorType ty; ty.dtype = a.at(0).tensorType().dtype; return ty; };
    d.eager = [](const std::vector<Val>& a) { return reduce(a[0].t, normDims(Val::none(), a[0].t.dim()), false, Kind::Max, a[0].t.dtype()); };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // amax(x, dims, keepdim)
    d.name = "aten.amax.default";
    d.kind = OpKind::Reduction;
    d.meta = [](const std::vector<Val>& a) {
      auto in = a.at(0).tensorType();
      return reducedType(in, normDims(a.at(1), in.sizes.size()), a.size() > 2 && a[2].b, in.dtype);
    };
    d.eager = [](const std::vector<Val>& a) {
      return reduce(a[0].t, normDims(a.at(1), a[0].t.dim()), a.size() > 2 && a[2].b, Kind::Max, a[0].t.dtype());
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // sum(x)
    d.name = "aten.sum.default";
    d.kind = OpKind::Reduction;
    d.meta = [](const std::vector<Val>& a) { ir::TensorType ty; ty.dtype = sumType(a.at(0).tensorType().dtype); return ty; };
    d.eager = [](const std::vector<Val>& a) { return reduce(a[0].t, normDims(Val::none(), a[0].t.dim()), false, Kind::Sum, sumType(a[0].t.dtype())); };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // sum(x, dims, keepdim)
    d.name = "aten.sum.dim_IntList";
    d.kind = OpKind::Reduction;
    d.meta = [](const std::vector<Val>& a) {
      auto in = a.at(0).tensorType();
      return reducedType(in, normDims(a.at(1), in.sizes.size()), a.size() > 2 && a[2].b, sumType(in.dtype));
    };
    d.eager = [](const std::vector<Val>& a) {
      return reduce(a[0].t, normDims(a.at(1), a[0].t.dim()), a.size() > 2 && a[2].b, Kind::Sum, sumType(a[0].t.dtype()));
    };
    t.push_back(std::move(d));
  }
}

}  // namespace kiln::ops
