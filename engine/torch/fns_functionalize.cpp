// In-place tensor methods as captured graphs see them (`add_ = l_x_.add_(1)`): for lowering
// and graph execution they are functional — the new value of the tensor, computed with the
// out-of-place op and cast/expanded to the tensor's dtype and shape. Whoever runs the graph
// writes the value back (functionalization, as AOTAutograd does for mutated inputs). Eager
// in-place calls on real tensors never come here (engine/torch/fns_inplace.cpp).
#include "engine/torch/torch_functions.h"

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;

namespace {

// Makes `v` exactly `self`'s dtype and shape.
Val like(Dispatcher& d, const Val& self, Val v) {
  ir::TensorType st = self.tensorType();
  if (!v.isTensor()) return d.call("aten.full.default", {Val::listOf([&] {
                                      std::vector<Val> s;
                                      for (const auto& dim : st.sizes) s.push_back(Val::integer(dim.value));
                                      return s;
                                    }()), v, Val::dtypeVal(st.dtype)});
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
  static const char* const kNames[] = {"add_", "sub_", "mul_", "div_", "clamp_", "clamp_min_", "clamp_max_", "masked_fill_",
                                       "copy_", "fill_", "zero_", "relu_", "sigmoid_", "tanh_", "exp_", "neg_", "pow_", "abs_"};
  for (const char* n : kNames)
    if (name == n) return true;
  return false;
}

void registerFunctionalizedFns(std::vector<TorchFn>& t) {
  for (const char* n : {"add_", "sub_", "mul_", "div_", "clamp_", "clamp_min_", "clamp_max_", "masked_fill_", "relu_",
                        "sigmoid_", "tanh_", "exp_", "neg_", "pow_", "abs_"}) {
    std::string name = n, base = name.substr(0, name.size() - 1);
    t.push_back({name, ir::NodeKind::CallMethod, [base](Dispatcher& d, const TArgs& a) {
                   const TorchFn* f = findTorchFn(base, ir::NodeKind::CallMethod);
                   if (!f) throw tensor::TorchError("NotImplementedError", "Tensor." + base + "_ cannot be compiled yet");
                   return like(d, a.args.at(0), f->impl(d, a));
                 }});
  }
  t.push_back({"copy_", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) { return like(d, a.args.at(0), needArg(a, 1, "src", "copy_")); }});
  t.push_back({"fill_", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) { return like(d, a.args.at(0), needArg(a, 1, "value", "fill_")); }});
  t.push_back({"zero_", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) { return like(d, a.args.at(0), Val::integer(0)); }});
}

}  // namespace kiln::torchapi
