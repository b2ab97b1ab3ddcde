#include "engine/ops/op_table.h"
#include "engine/ops/device_dispatch.h"

#include "engine/ops/autocast.h"
#include "engine/ops/index_ops.h"

#include <stdexcept>
#include <unordered_map>

namespace kiln::ops {

std::vector<int64_t> Val::ints() const {
  if (kind == Kind::Int) return {i};
  if (kind != Kind::List) throw tensor::TorchError("TypeError", "expected a sequence of ints");
  std::vector<int64_t> out;
  for (const auto& v : list) {
    if (v.kind != Kind::Int && v.kind != Kind::Bool) throw tensor::TorchError("TypeError", "expected a sequence of ints");
    out.push_back(v.kind == Kind::Int ? v.i : v.b);
  }
  return out;
}

namespace {
std::vector<OpDef>& table() {
  static std::vector<OpDef> t = [] {
    std::vector<OpDef> v;
    registerPointwiseOps(v);
    registerReductionOps(v);
    registerViewOps(v);
    registerCreationOps(v);
    registerWhereOp(v);
    registerIndexOps(v);
    registerNormOps(v);
    registerLinalgOps(v);
    registerSortOps(v);
    registerRandomOps(v);
    registerDeviceOps(v);    // device copies (device_dispatch.h)
    registerDerivatives(v);  // last: attaches backward formulas to the ops registered above
    return v;
  }();
  return t;
}

// Name -> entry. Every eager call, capture, lowering and compiled extern step looks ops up by
// name; a linear scan of the table with string compares showed up in profiles.
const std::unordered_map<std::string_view, const OpDef*>& byName() {
  static const std::unordered_map<std::string_view, const OpDef*> m = [] {
    std::unordered_map<std::string_view, const OpDef*> out;
    for (const auto& o : table()) out.emplace(o.name, &o);  // the first registration wins, as the scan did
    return out;
  }();
  return m;
}
}  // namespace

const OpDef* findOp(std::string_view name) {
  const auto& m = byName();
  auto it = m.find(name);
  return it == m.end() ? nullptr : it->second;
}

const OpDef& op(std::string_view name) {
  const OpDef* o = findOp(name);
  if (!o) throw std::logic_error("unknown op " + std::string(name));
  return *o;
}

std::vector<const OpDef*> allOps() {
  std::vector<const OpDef*> out;
  for (const auto& o : table()) out.push_back(&o);
  return out;
}

Val Dispatcher::call(std::string_view name, const std::vector<Val>& args) {
  const OpDef& o = op(name);
  if (!autocast::anyEnabled()) return call(o, args);
  return call(o, autocast::castArgs(*this, name, args));
}

Val EagerDispatcher::call(const OpDef& op, const std::vector<Val>& args) {
  tensor::RunningOp running(op.name.c_str());
  // Kernels below are CPU code: an op on device tensors goes to the device's kernels (a
  // decomposition first, so its core ops get there one by one).
  if ((op.eager || op.eagerMulti || !op.decompose) && op.name != kToDeviceOp)
    if (auto dev = opDevice(op, args)) {
      Val r = runOnDevice(op, args, *dev);
      recordEager(op, args, r);
      return r;
    }
  if (op.eagerMulti) {
    std::vector<Val> out;
    for (auto& t : op.eagerMulti(args)) out.push_back(Val::of(std::move(t)));
    Val r = Val::listOf(std::move(out));
    recordEager(op, args, r);
    return r;
  }
  if (!op.eager) {
    // A decomposition's ops record their own backward nodes (CompositeImplicitAutograd).
    if (op.decompose) return op.decompose(*this, args);
    throw std::logic_error("op " + op.name + " has no eager kernel");
  }
  Val r = Val::of(op.eager(args));
  recordEager(op, args, r);
  return r;
}

void Dispatcher::mutateInput(const Val& target, const Val& value) {
  if (target.kind == Val::Kind::Tensor && value.kind == Val::Kind::Tensor) {
    tensor::Tensor t = target.t;
    copyInto(t, value.t);
  }
}

Val MetaDispatcher::call(const OpDef& op, const std::vector<Val>& args) {
  const std::string device = op.name == kToDeviceOp ? "" : metaDevice(args);  // FakeTensor's device propagation
  if (op.metaMulti) {
    std::vector<Val> out;
    for (auto& t : op.metaMulti(args)) {
      if (!device.empty()) t.device = device;
      out.push_back(Val::sym(std::move(t)));
    }
    return Val::listOf(std::move(out));
  }
  ir::TensorType t = op.meta(args);
  if (!device.empty()) t.device = device;
  return Val::sym(std::move(t));
}

namespace {
// Category order: bool < integral < floating.
int category(ir::DType d) { return d == ir::DType::Bool ? 0 : ir::isFloating(d) ? 2 : 1; }
ir::DType higher(ir::DType a, ir::DType b) { return ir::promoteTypes(a, b); }
}  // namespace

ir::DType promoteTypes(const Val& a, const Val& b) {
  // PyTorch: dimensioned tensors win over zero-dim tensors, which win over Python scalars,
  // unless the lower-priority operand is of a higher category (bool < int < float).
  auto prio = [](const Val& v) {
    if (v.kind == Val::Kind::Tensor || v.kind == Val::Kind::Sym) return v.tensorType().sizes.empty() ? 1 : 2;
    return 0;
  };
  auto dt = [](const Val& v) {
    if (v.isTensor()) return v.tensorType().dtype;
    if (v.kind == Val::Kind::Float) return ir::defaultFloatDType();  // Python floats
    if (v.kind == Val::Kind::Int) return ir::DType::Int64;
    return ir::DType::Bool;
  };
  ir::DType da = dt(a), db = dt(b);
  int pa = prio(a), pb = prio(b);
  if (pa == pb) return higher(da, db);
  const Val& hi = pa > pb ? a : b;
  ir::DType dhi = pa > pb ? da : db, dlo = pa > pb ? db : da;
  (void)hi;
  if (category(dlo) > category(dhi)) {
    // A float scalar with an int tensor gives the default dtype, a float 0-dim tensor its own.
    const Val& lo = pa > pb ? b : a;
    if (!lo.isTensor()) return category(dlo) == 2 ? ir::defaultFloatDType() : ir::DType::Int64;
    return ir::promoteTypes(dhi, dlo);
  }
  return dhi;
}

}  // namespace kiln::ops
