#include "engine/torch/torch_functions.h"

#include <map>

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;
using tensor::TorchError;

const Val* TArgs::kw(const std::string& name) const {
  for (const auto& [k, v] : kwargs)
    if (k == name) return &v;
  return nullptr;
}

const Val* TArgs::get(size_t i, const std::string& name) const {
  if (i < args.size()) return &args[i];
  return kw(name);
}

namespace {

const Val& need(const TArgs& a, size_t i, const std::string& name, const std::string& fn) {
  const Val* v = a.get(i, name);
  if (!v) throw TorchError("TypeError", fn + "() missing required argument '" + name + "' (pos " + std::to_string(i + 1) + ")");
  return *v;
}

const Val& tensorArg(const TArgs& a, size_t i, const std::string& name, const std::string& fn) {
  const Val& v = need(a, i, name, fn);
  if (!v.isTensor())
    throw TorchError("TypeError", fn + "(): argument '" + name + "' (position " + std::to_string(i + 1) + ") must be Tensor");
  return v;
}

// Python operator -> ATen op: scalars stay scalars (aten.mul.Tensor(x, 2) as in AOT graphs).
Val binary(Dispatcher& d, const std::string& aten, const Val& a, const Val& b) { return d.call(aten, {a, b}); }

void unary(std::vector<TorchFn>& t, const std::string& name, const std::string& aten) {
  auto impl = [aten, name](Dispatcher& d, const TArgs& a) { return d.call(aten, {tensorArg(a, 0, "input", name)}); };
  t.push_back({"torch." + name, ir::NodeKind::CallFunction, impl});
  t.push_back({name, ir::NodeKind::CallMethod, impl});
}

struct BinarySpec { const char* op; const char* method; const char* torchFn; const char* aten; };
const BinarySpec kBinaries[] = {
    {"add", "add", "torch.add", "aten.add.Tensor"},
    {"sub", "sub", "torch.sub", "aten.sub.Tensor"},
    {"mul", "mul", "torch.mul", "aten.mul.Tensor"},
    {"truediv", "div", "torch.div", "aten.div.Tensor"},
    {"mod", "remainder", "torch.remainder", "aten.remainder.Tensor"},
    {"lt", "lt", "torch.lt", "aten.lt.Tensor"},
    {"le", "le", "torch.le", "aten.le.Tensor"},
    {"gt", "gt", "torch.gt", "aten.gt.Tensor"},
    {"ge", "ge", "torch.ge", "aten.ge.Tensor"},
    {"eq", "eq", "torch.eq", "aten.eq.Tensor"},
    {"ne", "ne", "torch.ne", "aten.ne.Tensor"},
    {"pow", "pow", "torch.pow", "aten.pow.Tensor_Tensor"},
    {nullptr, "maximum", "torch.maximum", "aten.maximum.default"},
    {nullptr, "minimum", "torch.minimum", "aten.minimum.default"},
};

std::vector<TorchFn> build() {
  std::vector<TorchFn> t;
  for (const char* n : {"exp", "log", "sin", "cos", "tanh", "sqrt", "rsqrt", "abs", "sigmoid", "erf", "neg", "reciprocal",
                        "floor", "ceil", "relu"})
    unary(t, n, std::string("aten.") + n + ".default");
  t.push_back({"_operator.neg", ir::NodeKind::CallFunction,
               [](Dispatcher& d, const TArgs& a) { return d.call("aten.neg.default", {a.args.at(0)}); }});
  t.push_back({"torch.nn.functional.relu", ir::NodeKind::CallFunction,
               [](Dispatcher& d, const TArgs& a) { return d.call("aten.relu.default", {tensorArg(a, 0, "input", "relu")}); }});
  t.push_back({"torch.nn.functional.silu", ir::NodeKind::CallFunction,
               [](Dispatcher& d, const TArgs& a) { return d.call("aten.silu.default", {tensorArg(a, 0, "input", "silu")}); }});
  for (const auto& b : kBinaries) {
    std::string aten = b.aten;
    auto impl = [aten](Dispatcher& d, const TArgs& a) {
      const Val* other = a.get(1, "other");
      if (!other) throw TorchError("TypeError", "missing required argument 'other'");
      const Val& self = a.args.at(0);
      // alpha (torch.add(x, y, alpha=2)) scales the second operand first.
      if (const Val* alpha = a.kw("alpha"); alpha && alpha->number() != 1.0) {
        Val scaled = d.call("aten.mul.Tensor", {*other, *alpha});
        return binary(d, aten, self, scaled);
      }
      return binary(d, aten, self, *other);
    };
    if (b.op) {
      std::string op = b.op;
      // Reflected operators (2 * x) keep Python's operand order in the graph: mul(2, x) is
      // recorded as `2 * l_x_`, and the ATen op takes the tensor first.
      t.push_back({"_operator." + op, ir::NodeKind::CallFunction, [aten, op](Dispatcher& d, const TArgs& a) {
                     const Val& x = a.args.at(0);
                     const Val& y = a.args.at(1);
                     if (!x.isTensor() && y.isTensor()) {
                       if (op == "add" || op == "mul" || op == "eq" || op == "ne") return binary(d, aten, y, x);
                       // scalar - tensor etc.: materialize the scalar as a 0-dim tensor of y's dtype
                       ir::DType dt = ops::promoteTypes(x, y);
                       Val xs = d.call("aten.full.default", {Val::listOf({}), x, Val::dtypeVal(dt)});
                       return binary(d, aten, xs, y);
                     }
                     return binary(d, aten, x, y);
                   }});
    }
    t.push_back({b.torchFn, ir::NodeKind::CallFunction, impl});
    t.push_back({b.method, ir::NodeKind::CallMethod, impl});
  }
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
  return t;
}

}  // namespace

const std::vector<TorchFn>& torchFns() {
  static const std::vector<TorchFn> t = build();
  return t;
}

const TorchFn* findTorchFn(const std::string& target, ir::NodeKind kind) {
  static const std::map<std::pair<std::string, int>, const TorchFn*> index = [] {
    std::map<std::pair<std::string, int>, const TorchFn*> m;
    for (const auto& f : torchFns()) m[{f.target, static_cast<int>(f.kind)}] = &f;
    return m;
  }();
  auto it = index.find({target, static_cast<int>(kind)});
  return it == index.end() ? nullptr : it->second;
}

}  // namespace kiln::torchapi
