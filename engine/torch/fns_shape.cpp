// Torch-level reductions, shape and dtype functions: sum, max, reshape/view, to, clone.
#include "engine/torch/torch_functions.h"

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;
using tensor::TorchError;

void registerShapeFns(std::vector<TorchFn>& t) {
  // Reductions and shape ops.
  t.push_back({"max", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 if (a.args.size() > 1 || a.kw("dim"))
                   throw TorchError("NotImplementedError", "Tensor.max(dim) is not supported by Kiln yet");
                 return d.call("aten.max.default", {a.args.at(0)});
               }});
  t.push_back({"torch.max", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 if (a.args.size() > 1 && a.args[1].isTensor()) return d.call("aten.maximum.default", {a.args[0], a.args[1]});
                 if (a.args.size() > 1 || a.kw("dim"))
                   throw TorchError("NotImplementedError", "torch.max(x, dim) is not supported by Kiln yet");
                 return d.call("aten.max.default", {a.args.at(0)});
               }});
  auto sum = [](Dispatcher& d, const TArgs& a) {
    const Val* dim = a.get(1, "dim");
    const Val* keep = a.get(2, "keepdim");
    if (!dim || dim->isNone()) return d.call("aten.sum.default", {a.args.at(0)});
    return d.call("aten.sum.dim_IntList", {a.args.at(0), dim->kind == Val::Kind::Int ? Val::listOf({*dim}) : *dim,
                                           Val::boolean(keep && keep->b)});
  };
  t.push_back({"sum", ir::NodeKind::CallMethod, sum});
  t.push_back({"torch.sum", ir::NodeKind::CallFunction, sum});
  auto reshape = [](Dispatcher& d, const TArgs& a) {
    std::vector<Val> shape;
    if (a.args.size() == 2 && a.args[1].kind == Val::Kind::List) shape = a.args[1].list;
    else shape.assign(a.args.begin() + 1, a.args.end());
    return d.call("aten.view.default", {a.args.at(0), Val::listOf(shape)});
  };
  t.push_back({"reshape", ir::NodeKind::CallMethod, reshape});
  t.push_back({"view", ir::NodeKind::CallMethod, reshape});
  t.push_back({"torch.reshape", ir::NodeKind::CallFunction, reshape});
  t.push_back({"to", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 const Val* dt = a.get(1, "dtype");
                 if (!dt || dt->kind != Val::Kind::DType) {
                   if (dt && dt->kind == Val::Kind::String) return a.args.at(0);  // .to("cpu")
                   throw TorchError("TypeError", "to() received an invalid combination of arguments");
                 }
                 if (a.args.at(0).tensorType().dtype == dt->dtype) return a.args[0];
                 return d.call("prims.convert_element_type.default", {a.args[0], *dt});
               }});
  for (const char* m : {"float", "double", "long", "int", "bool"}) {
    std::string name = m;
    ir::DType dt = name == "float" ? ir::DType::Float32 : name == "double" ? ir::DType::Float64 : name == "long" ? ir::DType::Int64
                   : name == "int" ? ir::DType::Int32 : ir::DType::Bool;
    t.push_back({name, ir::NodeKind::CallMethod, [dt](Dispatcher& d, const TArgs& a) {
                   if (a.args.at(0).tensorType().dtype == dt) return a.args[0];
                   return d.call("prims.convert_element_type.default", {a.args[0], Val::dtypeVal(dt)});
                 }});
  }
  t.push_back({"clone", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) { return d.call("aten.clone.default", {a.args.at(0)}); }});
  t.push_back({"contiguous", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) { return d.call("aten.clone.default", {a.args.at(0)}); }});
}

}  // namespace kiln::torchapi
