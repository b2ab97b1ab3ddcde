// Torch-level tensor creation (torch.ones, torch.arange, torch.zeros_like ...) as captured
// graphs record them: these definitions lower the recorded calls to aten.full / aten.arange.
// Eager calls from scripts go through the builtins in torch_module.cpp, which record into the
// capture when one is active.
#include "engine/ops/shape_util.h"
#include "engine/torch/torch_functions.h"

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;

namespace {

ir::DType dtypeOr(const TArgs& a, ir::DType d) {
  const Val* v = a.kw("dtype");
  return v && v->kind == Val::Kind::DType ? v->dtype : d;
}

// Sizes given as f(2, 3) or f((2, 3)) / f([2, 3]) or size=.
Val sizesOf(const TArgs& a) {
  if (const Val* s = a.kw("size")) return *s;
  if (a.args.size() == 1 && a.args[0].kind == Val::Kind::List) return a.args[0];
  return Val::listOf(a.args);
}

}  // namespace

void registerCreationFns(std::vector<TorchFn>& t) {
  for (auto [name, value] : {std::pair{"torch.zeros", 0.0}, {"torch.ones", 1.0}, {"torch.empty", 0.0}}) {
    double v = value;
    t.push_back({name, ir::NodeKind::CallFunction, [v](Dispatcher& d, const TArgs& a) {
                   return d.call("aten.full.default", {sizesOf(a), Val::real(v), Val::dtypeVal(dtypeOr(a, ir::defaultFloatDType()))});
                 }});
  }
  t.push_back({"torch.full", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 const Val& v = needArg(a, 1, "fill_value", "full");
                 ir::DType dflt = v.kind == Val::Kind::Float  ? ir::defaultFloatDType()
                                  : v.kind == Val::Kind::Bool ? ir::DType::Bool
                                                              : ir::DType::Int64;
                 return d.call("aten.full.default", {needArg(a, 0, "size", "full"), v, Val::dtypeVal(dtypeOr(a, dflt))});
               }});
  for (auto [name, value] : {std::pair{"torch.zeros_like", 0.0}, {"torch.ones_like", 1.0}, {"torch.empty_like", 0.0}}) {
    double v = value;
    t.push_back({name, ir::NodeKind::CallFunction, [v](Dispatcher& d, const TArgs& a) {
                   const Val& x = tensorArg(a, 0, "input", "zeros_like");
                   return d.call("aten.full.default",
                                 {ops::intList(ops::sizesOf(x)), Val::real(v), Val::dtypeVal(dtypeOr(a, x.tensorType().dtype))});
                 }});
  }
  t.push_back({"torch.arange", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 std::vector<Val> n = a.args;
                 if (const Val* e = a.kw("end")) n.push_back(*e);
                 Val start = n.size() >= 2 ? n[0] : Val::integer(0), end = n.size() >= 2 ? n[1] : n.at(0);
                 Val step = n.size() == 3 ? n[2] : Val::integer(1);
                 if (const Val* st = a.kw("step")) step = *st;  // as the eager torch.arange reads it
                 bool anyFloat = start.kind == Val::Kind::Float || end.kind == Val::Kind::Float || step.kind == Val::Kind::Float;
                 return d.call("aten.arange.start_step",
                               {start, end, step, Val::dtypeVal(dtypeOr(a, anyFloat ? ir::defaultFloatDType() : ir::DType::Int64))});
               }});
}

}  // namespace kiln::torchapi
