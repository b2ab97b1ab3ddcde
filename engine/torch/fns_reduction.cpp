// Torch-level reductions (Tensor methods and torch.* functions): sum/mean/prod, max/min (all,
// along a dim -> (values, indices), or elementwise with a tensor), amax/amin, argmax/argmin,
// var/std (+ _mean), logsumexp, norm, any/all. Each maps onto one ATen reduction.
#include "engine/ops/shape_util.h"
#include "engine/torch/torch_functions.h"

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;
using tensor::TorchError;

namespace {

bool flag(const TArgs& a, size_t i, const std::string& name) {
  const Val* v = a.get(i, name);
  return v && v->kind == Val::Kind::Bool && v->b;
}
// A dim argument as a list (dim=1 -> [1], dim=(0, 1) -> [0, 1]); None stays None.
Val dimList(const Val& v) {
  if (v.isNone() || v.kind == Val::Kind::List) return v;
  if (v.kind != Val::Kind::Int) throw TorchError("TypeError", "dim must be an int or a tuple of ints");
  return Val::listOf({v});
}

// sum / mean / nansum-style: (input, dim=None, keepdim=False, *, dtype=None)
Val dimReduction(Dispatcher& d, const TArgs& a, const std::string& fn, const std::string& all, const std::string& withDims) {
  const Val& x = tensorArg(a, 0, "input", fn);
  const Val& dim = opt(a, 1, "dim");
  const Val& dtype = opt(a, 3, "dtype");
  if (dim.kind == Val::Kind::DType)  // x.sum(torch.float64)
    return d.call(all, {x, dim});
  if (dim.isNone()) {
    if (dtype.isNone()) return d.call(all, {x});
    return d.call(all, {x, dtype});
  }
  std::vector<Val> args = {x, dimList(dim), Val::boolean(flag(a, 2, "keepdim"))};
  if (!dtype.isNone()) args.push_back(dtype);
  return d.call(withDims, args);
}

// max / min: (input) -> all; (input, dim, keepdim=False) -> (values, indices); (input, other) -> elementwise.
Val maxMin(Dispatcher& d, const TArgs& a, bool isMax) {
  const std::string fn = isMax ? "max" : "min";
  const Val& x = tensorArg(a, 0, "input", fn);
  const Val& dim = opt(a, 1, "dim");
  if (dim.isTensor()) return d.call(isMax ? "aten.maximum.default" : "aten.minimum.default", {x, dim});
  if (const Val* other = a.kw("other")) return d.call(isMax ? "aten.maximum.default" : "aten.minimum.default", {x, *other});
  if (dim.isNone()) return d.call(isMax ? "aten.max.default" : "aten.min.default", {x});
  Val keep = Val::boolean(flag(a, 2, "keepdim"));
  if (!d.multiOutput())  // values and indices as two single-output reductions
    return Val::listOf({d.call(isMax ? "aten.amax.default" : "aten.amin.default", {x, Val::listOf({dim}), keep}),
                        d.call(isMax ? "aten.argmax.default" : "aten.argmin.default", {x, dim, keep})});
  return d.call(isMax ? "aten.max.dim" : "aten.min.dim", {x, dim, keep});
}

// var / std: (input, dim=None, unbiased=True, keepdim=False) or (..., *, correction=1, keepdim=False);
// the legacy var(input, unbiased) form too.
Val varLike(Dispatcher& d, const TArgs& a, const std::string& fn, const std::string& aten) {
  const Val& x = tensorArg(a, 0, "input", fn);
  Val dim = opt(a, 1, "dim");
  Val correction = Val::none();
  size_t next = 2;
  if (dim.kind == Val::Kind::Bool) {  // var(x, unbiased)
    correction = Val::integer(dim.b ? 1 : 0);
    dim = Val::none();
    next = 99;
  } else if (const Val* u = a.get(2, "unbiased"); u && u->kind == Val::Kind::Bool) {
    correction = Val::integer(u->b ? 1 : 0);
    next = 3;
  }
  if (const Val* c = a.kw("correction"); c && !c->isNone()) correction = *c;
  const Val* keep = next < 99 ? a.get(next, "keepdim") : a.kw("keepdim");
  if (correction.isNone()) correction = Val::integer(1);
  Val keepV = Val::boolean(keep && keep->kind == Val::Kind::Bool && keep->b);
  if (aten == "aten.var_mean.correction" && !d.multiOutput())
    return Val::listOf({d.call("aten.var.correction", {x, dimList(dim), correction, keepV}),
                        dim.isNone() ? d.call("aten.mean.default", {x}) : d.call("aten.mean.dim", {x, dimList(dim), keepV})});
  return d.call(aten, {x, dimList(dim), correction, keepV});
}

void both(std::vector<TorchFn>& t, const std::string& name, std::function<Val(Dispatcher&, const TArgs&)> impl) {
  t.push_back({name, ir::NodeKind::CallMethod, impl});
  t.push_back({"torch." + name, ir::NodeKind::CallFunction, impl});
}

}  // namespace

void registerReductionFns(std::vector<TorchFn>& t) {
  both(t, "sum", [](Dispatcher& d, const TArgs& a) { return dimReduction(d, a, "sum", "aten.sum.default", "aten.sum.dim_IntList"); });
  both(t, "mean", [](Dispatcher& d, const TArgs& a) { return dimReduction(d, a, "mean", "aten.mean.default", "aten.mean.dim"); });
  both(t, "prod", [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "prod");
    const Val& dim = opt(a, 1, "dim");
    const Val& dtype = opt(a, 3, "dtype");
    if (dim.isNone()) return dtype.isNone() ? d.call("aten.prod.default", {x}) : d.call("aten.prod.default", {x, dtype});
    std::vector<Val> args = {x, dim, Val::boolean(flag(a, 2, "keepdim"))};
    if (!dtype.isNone()) args.push_back(dtype);
    return d.call("aten.prod.dim_int", args);
  });
  both(t, "max", [](Dispatcher& d, const TArgs& a) { return maxMin(d, a, true); });
  both(t, "min", [](Dispatcher& d, const TArgs& a) { return maxMin(d, a, false); });
  for (const char* n : {"amax", "amin"}) {
    std::string name = n;
    both(t, name, [name](Dispatcher& d, const TArgs& a) {
      const Val& x = tensorArg(a, 0, "input", name);
      Val dim = opt(a, 1, "dim");
      return d.call("aten." + name + ".default", {x, dim.isNone() ? Val::listOf({}) : dimList(dim), Val::boolean(flag(a, 2, "keepdim"))});
    });
  }
  for (const char* n : {"argmax", "argmin"}) {
    std::string name = n;
    both(t, name, [name](Dispatcher& d, const TArgs& a) {
      const Val& x = tensorArg(a, 0, "input", name);
      return d.call("aten." + name + ".default", {x, opt(a, 1, "dim"), Val::boolean(flag(a, 2, "keepdim"))});
    });
  }
  both(t, "var", [](Dispatcher& d, const TArgs& a) { return varLike(d, a, "var", "aten.var.correction"); });
  both(t, "std", [](Dispatcher& d, const TArgs& a) { return varLike(d, a, "std", "aten.std.correction"); });
  t.push_back({"torch.var_mean", ir::NodeKind::CallFunction,
               [](Dispatcher& d, const TArgs& a) { return varLike(d, a, "var_mean", "aten.var_mean.correction"); }});
  t.push_back({"torch.std_mean", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 Val vm = varLike(d, a, "std_mean", "aten.var_mean.correction");
                 return Val::listOf({d.call("aten.sqrt.default", {vm.list.at(0)}), vm.list.at(1)});
               }});
  both(t, "logsumexp", [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "logsumexp");
    return d.call("aten.logsumexp.default", {x, dimList(needArg(a, 1, "dim", "logsumexp")), Val::boolean(flag(a, 2, "keepdim"))});
  });
  // Tensor.norm(p='fro', dim=None, keepdim=False, dtype=None): vector norms (what 'fro' is for
  // a flattened tensor) go to linalg_vector_norm as torch.norm's decomposition does.
  both(t, "norm", [](Dispatcher& d, const TArgs& a) {
    const Val& x = tensorArg(a, 0, "input", "norm");
    const Val& p = opt(a, 1, "p");
    Val ord = Val::real(2.0);
    if (p.kind == Val::Kind::String) {
      if (p.s != "fro") throw TorchError("NotImplementedError", "norm(p='" + p.s + "') is not supported by Kiln yet");
    } else if (!p.isNone()) {
      ord = p;
    }
    return d.call("aten.linalg_vector_norm.default",
                  {x, ord, dimList(opt(a, 2, "dim")), Val::boolean(flag(a, 3, "keepdim")), opt(a, 4, "dtype")});
  });
  for (const char* n : {"any", "all"}) {
    std::string name = n;
    both(t, name, [name](Dispatcher& d, const TArgs& a) {
      const Val& x = tensorArg(a, 0, "input", name);
      const Val& dim = opt(a, 1, "dim");
      if (dim.isNone()) return d.call("aten." + name + ".default", {x});
      if (dim.kind == Val::Kind::List) return d.call("aten." + name + ".dims", {x, dim, Val::boolean(flag(a, 2, "keepdim"))});
      return d.call("aten." + name + ".dim", {x, dim, Val::boolean(flag(a, 2, "keepdim"))});
    });
  }
}

}  // namespace kiln::torchapi
