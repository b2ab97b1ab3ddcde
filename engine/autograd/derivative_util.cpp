#include "engine/autograd/derivative_util.h"
#include "engine/ops/device_dispatch.h"

#include <algorithm>

namespace kiln::ops {
// Registered last in op_table.cpp's table(): every family's ops exist by then.
void registerDerivatives(std::vector<OpDef>& t) {
  autograd::dv::registerBackwardOps(t);
  autograd::dv::registerPoolingBackwardOps(t);
  autograd::dv::registerPointwiseDerivatives(t);
  autograd::dv::registerReductionDerivatives(t);
  autograd::dv::registerViewDerivatives(t);
  autograd::dv::registerNnDerivatives(t);
}
}  // namespace kiln::ops

namespace kiln::autograd::dv {

std::vector<int64_t> reducedDims(const Val& dims, size_t nd) {
  std::vector<int64_t> out;
  std::vector<int64_t> given = dims.isNone() ? std::vector<int64_t>{} : dims.ints();
  if (given.empty()) {
    for (size_t i = 0; i < nd; ++i) out.push_back(static_cast<int64_t>(i));
    return out;
  }
  for (int64_t d : given) {
    if (nd == 0) continue;
    out.push_back(d < 0 ? d + static_cast<int64_t>(nd) : d);
  }
  return out;
}

Val sumTo(Dispatcher& d, const Val& g, const Shape& shape) {
  Shape gs = sizesOf(g);
  if (gs == shape) return g;
  std::vector<Val> dims;
  size_t lead = gs.size() - shape.size();
  for (size_t i = 0; i < gs.size(); ++i)
    if (i < lead || (shape[i - lead] == 1 && gs[i] != 1)) dims.push_back(Val::integer(static_cast<int64_t>(i)));
  Val r = g;
  if (!dims.empty()) r = d.call("aten.sum.dim_IntList", {r, Val::listOf(dims), Val::boolean(true)});
  if (sizesOf(r) != shape) r = d.call("aten.view.default", {r, intList(shape)});
  return r;
}

Val expandTo(Dispatcher& d, const Val& g, const Shape& shape) {
  if (sizesOf(g) == shape) return g;
  return d.call("aten.expand.default", {g, intList(shape)});
}

Val viewAs(Dispatcher& d, const Val& g, const Shape& shape) {
  if (sizesOf(g) == shape) return g;
  Val src = g;
  // A strided gradient (a graph value carries its strides in its type) is made contiguous first,
  // as reshape would.
  const bool contiguous = g.kind == Val::Kind::Tensor ? g.t.isContiguous() : g.tensorType().strides.empty();
  if (!contiguous) src = d.call("aten.clone.default", {g});
  return d.call("aten.view.default", {src, intList(shape)});
}

Val unreduce(Dispatcher& d, const Val& g, const Shape& inShape, const std::vector<int64_t>& dims, bool keep) {
  Val r = g;
  if (!keep) {
    Shape kept = inShape;
    for (auto dim : dims) kept[static_cast<size_t>(dim)] = 1;
    r = viewAs(d, r, kept);
  }
  return expandTo(d, r, inShape);
}

Val onDeviceOf(Dispatcher& d, const Val& v, const Val& like) {
  const std::string dev = like.tensorType().device;
  if (dev == "cpu" || dev.empty() || v.tensorType().device == dev) return v;
  return d.call(ops::kToDeviceOp, {v, Val::string(dev)});
}

Val zerosLike(Dispatcher& d, const Val& like) {
  return onDeviceOf(d, d.call("aten.full.default", {intList(sizesOf(like)), Val::real(0.0), Val::dtypeVal(like.tensorType().dtype)}), like);
}

Val toDType(Dispatcher& d, const Val& g, ir::DType dt) {
  if (g.tensorType().dtype == dt) return g;
  return d.call("prims.convert_element_type.default", {g, Val::dtypeVal(dt)});
}

void def(std::vector<ops::OpDef>& table, const std::string& name, Formula f, const std::string& backwardName) {
  for (auto& o : table)
    if (o.name == name) {
      o.backward = std::move(f);
      if (!backwardName.empty()) o.backwardName = backwardName;
      return;
    }
}

}  // namespace kiln::autograd::dv
