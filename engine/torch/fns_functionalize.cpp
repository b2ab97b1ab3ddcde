// In-place tensor methods as captured graphs see them (`add_ = l_x_.add_(1)`): for lowering
// and graph execution they are functional — the new value of the tensor, computed with the
// out-of-place op and cast/expanded to the tensor's dtype and shape. Whoever runs the graph
// writes the value back (functionalization, as AOTAutograd does for mutated inputs). Eager
// in-place calls on real tensors never come here (engine/torch/fns_inplace.cpp).
#include "engine/torch/torch_functions.h"

#include <set>

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;

namespace {

// Makes `v` exactly `self`'s dtype and shape.
Val like(Dispatcher& d, const Val& self, Val v) {
  ir::TensorType st = self.tensorType();
  if (!v.isTensor())
    return d.call("aten.full.default", {Val::listOf([&] {
                                          std::vector<Val> s;
                                          for (const auto& dim : st.sizes) s.push_back(Val::integer(dim.value));
                                          return s;
                                        }()),
                                        v, Val::dtypeVal(st.dtype)});
  if (v.tensorType().dtype != st.dtype) v = d.call("prims.convert_element_type.default", {v, Val::dtypeVal(st.dtype)});
  if (v.tensorType().sizes != st.sizes) {
    std::vector<Val> s;
    for (const auto& dim : st.sizes) s.push_back(Val::integer(dim.value));
    v = d.call("aten.expand.default", {v, Val::listOf(s)});
    v = d.call("aten.clone.default", {v});
  }
  return v;
}

}  // namespace

bool isInplaceMethod(const std::string& name) {
  if (name.size() < 2 || name.back() != '_' || name.front() == '_') return false;
  return findTorchFn(name, ir::NodeKind::CallMethod) != nullptr;
}

namespace {
const char* const kInplaceOperators[] = {"iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior", "ixor"};
// _operator.iadd -> _operator.add, iand -> and_ (the out-of-place operator).
std::string outOfPlace(const std::string& op) {
  std::string base = op.substr(1);
  if (base == "and" || base == "or") base += "_";
  return "_operator." + base;
}
}  // namespace

std::string outOfPlaceOperator(const std::string& target) { return outOfPlace(target.substr(std::string("_operator.").size())); }

bool isInplaceNode(const ir::Node& n) {
  if (n.args.empty() || !n.args[0].isNode()) return false;
  if (n.kind == ir::NodeKind::CallMethod) return isInplaceMethod(n.target);
  // x[index] = v (its value is x's new value: fns_index.cpp)
  if (n.kind == ir::NodeKind::CallFunction && n.target == "_operator.setitem") return true;
  if (n.kind != ir::NodeKind::CallFunction || n.target.rfind("_operator.i", 0) != 0) return false;
  for (const char* op : kInplaceOperators)
    if (n.target == std::string("_operator.") + op) return true;
  return false;
}

void registerFunctionalizedFns(std::vector<TorchFn>& t) {
  for (const char* n : {"add_", "sub_", "mul_", "div_", "clamp_", "clamp_min_", "clamp_max_", "masked_fill_", "relu_", "sigmoid_", "tanh_",
                        "exp_", "neg_", "pow_", "abs_"}) {
    std::string name = n, base = name.substr(0, name.size() - 1);
    t.push_back({name, ir::NodeKind::CallMethod, [base](Dispatcher& d, const TArgs& a) {
                   const TorchFn* f = findTorchFn(base, ir::NodeKind::CallMethod);
                   if (!f) throw tensor::TorchError("NotImplementedError", "Tensor." + base + "_ cannot be compiled yet");
                   return like(d, a.args.at(0), f->impl(d, a));
                 }});
  }
  t.push_back({"copy_", ir::NodeKind::CallMethod,
               [](Dispatcher& d, const TArgs& a) { return like(d, a.args.at(0), needArg(a, 1, "src", "copy_")); }});
  t.push_back({"fill_", ir::NodeKind::CallMethod,
               [](Dispatcher& d, const TArgs& a) { return like(d, a.args.at(0), needArg(a, 1, "value", "fill_")); }});
  t.push_back({"zero_", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) { return like(d, a.args.at(0), Val::integer(0)); }});
}

// Every Tensor method `m` with no in-place form of its own gets `m_`: the new value is m's
// result made self's dtype and shape (registered last, over the whole table).
void addInplaceVariants(std::vector<TorchFn>& t) {
  // x op= y (_operator.iadd ...): the out-of-place operator's value, made x's dtype and shape.
  for (const char* op : kInplaceOperators) {
    const std::string base = outOfPlace(op);
    t.push_back({std::string("_operator.") + op, ir::NodeKind::CallFunction, [base](Dispatcher& d, const TArgs& a) {
                   const TorchFn* f = findTorchFn(base, ir::NodeKind::CallFunction);
                   if (!f) throw tensor::TorchError("NotImplementedError", base + " is not supported by Kiln yet");
                   return like(d, a.args.at(0), f->impl(d, a));
                 }});
  }
  static const char* const kNotValueUpdates[] = {
      "t", "transpose", "unsqueeze", "squeeze", "resize", "resize_as", "swapaxes", "swapdims", "as_strided", "detach", "requires_grad",
      "uniform", "normal", "random", "bernoulli", "exponential", "geometric", "cauchy", "log_normal",
      // methods PyTorch has no in-place form of
      "outer", "ger", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isclose", "allclose", "equal", "sort", "argsort", "topk",
      "msort", "new_zeros", "new_ones", "new_empty", "new_full", "repeat_interleave", "diagonal"};
  std::set<std::string> methods;
  for (const auto& f : t)
    if (f.kind == ir::NodeKind::CallMethod) methods.insert(f.target);
  std::vector<TorchFn> added;
  for (const auto& name : methods) {
    if (name.empty() || name.back() == '_' || name.front() == '_' || methods.count(name + "_")) continue;
    bool skip = false;
    for (const char* n : kNotValueUpdates) skip = skip || name == n;
    if (skip) continue;
    const std::string base = name;
    added.push_back({name + "_", ir::NodeKind::CallMethod, [base](Dispatcher& d, const TArgs& a) {
                       const TorchFn* f = findTorchFn(base, ir::NodeKind::CallMethod);
                       return like(d, a.args.at(0), f->impl(d, a));
                     }});
  }
  t.insert(t.end(), added.begin(), added.end());
}

}  // namespace kiln::torchapi
