// Torch-level pointwise functions: torch.exp / Tensor.exp, Python operators (_operator.mul),
// F.relu, binary ops with alpha=, reflected operators.
#include "engine/torch/torch_functions.h"

namespace kiln::torchapi {

using ops::Dispatcher;
using ops::Val;
using tensor::TorchError;

namespace {

// Python operator -> ATen op: scalars stay scalars (aten.mul.Tensor(x, 2) as in AOT graphs).
Val binary(Dispatcher& d, const std::string& aten, const Val& a, const Val& b) {
  // x ** 2 is pow.Tensor_Scalar in ATen graphs; a tensor exponent keeps pow.Tensor_Tensor.
  if (aten == "aten.pow.Tensor_Tensor" && a.isTensor() && b.isScalar()) return d.call("aten.pow.Tensor_Scalar", {a, b});
  return d.call(aten, {a, b});
}

void unary(std::vector<TorchFn>& t, const std::string& name, const std::string& aten) {
  auto impl = [aten, name](Dispatcher& d, const TArgs& a) { return d.call(aten, {tensorArg(a, 0, "input", name)}); };
  t.push_back({"torch." + name, ir::NodeKind::CallFunction, impl});
  t.push_back({name, ir::NodeKind::CallMethod, impl});
}

struct BinarySpec {
  const char* op;
  const char* method;
  const char* torchFn;
  const char* aten;
};
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
    {"and_", "bitwise_and", "torch.bitwise_and", "aten.bitwise_and.Tensor"},
    {"or_", "bitwise_or", "torch.bitwise_or", "aten.bitwise_or.Tensor"},
    {"xor", "bitwise_xor", "torch.bitwise_xor", "aten.bitwise_xor.Tensor"},
    {"floordiv", "floor_divide", "torch.floor_divide", "aten.floor_divide.default"},
    {"lshift", "bitwise_left_shift", "torch.bitwise_left_shift", "aten.bitwise_left_shift.Tensor"},
    {"rshift", "bitwise_right_shift", "torch.bitwise_right_shift", "aten.bitwise_right_shift.Tensor"},
    {nullptr, "logical_and", "torch.logical_and", "aten.logical_and.default"},
    {nullptr, "logical_or", "torch.logical_or", "aten.logical_or.default"},
    {nullptr, "logical_xor", "torch.logical_xor", "aten.logical_xor.default"},
    {nullptr, "atan2", "torch.atan2", "aten.atan2.default"},
    {nullptr, "fmod", "torch.fmod", "aten.fmod.Tensor"},
    {nullptr, "maximum", "torch.maximum", "aten.maximum.default"},
    {nullptr, "minimum", "torch.minimum", "aten.minimum.default"},
};

// div(a, b, rounding_mode='trunc' | 'floor'): the quotient rounded toward zero or down; integer
// operands stay integers (trunc: the floor quotient plus one where the signs differ and the
// division is inexact).
Val roundedDiv(Dispatcher& d, const Val& a, const Val& b, const Val& mode) {
  if (mode.kind != Val::Kind::String || (mode.s != "trunc" && mode.s != "floor"))
    throw TorchError("RuntimeError", "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '" +
                                         (mode.kind == Val::Kind::String ? mode.s : std::string("?")) + "'");
  const bool integral = !ir::isFloating(ops::promoteTypes(a, b));
  if (mode.s == "floor") return d.call("aten.floor_divide.default", {a, b});
  if (!integral) return d.call("aten.trunc.default", {binary(d, "aten.div.Tensor", a, b)});
  Val q = d.call("aten.floor_divide.default", {a, b});
  Val inexact = d.call("aten.ne.Tensor", {d.call("aten.remainder.Tensor", {a, b}), Val::integer(0)});
  auto negative = [&](const Val& v) {
    return v.isTensor() ? d.call("aten.lt.Tensor", {v, Val::integer(0)}) : Val::boolean(v.number() < 0);
  };
  Val signsDiffer = d.call("aten.ne.Tensor", {negative(a), negative(b)});
  Val adjust = d.call("aten.logical_and.default", {inexact, signsDiffer});
  return d.call("aten.add.Tensor", {q, adjust});
}

}  // namespace

void registerPointwiseFns(std::vector<TorchFn>& t) {
  for (const char* n :
       {"exp",  "log",  "sin",  "cos",   "tanh",  "sqrt", "rsqrt", "abs",   "sigmoid", "erf",  "neg",         "reciprocal", "floor",
        "ceil", "relu", "sign", "log1p", "expm1", "log2", "trunc", "round", "tan",     "atan", "logical_not", "bitwise_not"})
    unary(t, n, std::string("aten.") + n + ".default");
  unary(t, "negative", "aten.neg.default");
  unary(t, "absolute", "aten.abs.default");
  unary(t, "sgn", "aten.sign.default");
  unary(t, "silu", "aten.silu.default");
  // ~x: logical not for bool tensors, bitwise not for integers.
  t.push_back({"_operator.invert", ir::NodeKind::CallFunction,
               [](Dispatcher& d, const TArgs& a) { return d.call("aten.bitwise_not.default", {tensorArg(a, 0, "input", "invert")}); }});
  t.push_back({"square", ir::NodeKind::CallMethod, [](Dispatcher& d, const TArgs& a) {
                 return d.call("aten.pow.Tensor_Scalar", {a.args.at(0), Val::integer(2)});
               }});
  t.push_back({"torch.square", ir::NodeKind::CallFunction, [](Dispatcher& d, const TArgs& a) {
                 return d.call("aten.pow.Tensor_Scalar", {tensorArg(a, 0, "input", "square"), Val::integer(2)});
               }});
  t.push_back({"_operator.neg", ir::NodeKind::CallFunction,
               [](Dispatcher& d, const TArgs& a) { return d.call("aten.neg.default", {a.args.at(0)}); }});
  t.push_back({"torch.nn.functional.relu", ir::NodeKind::CallFunction,
               [](Dispatcher& d, const TArgs& a) { return d.call("aten.relu.default", {tensorArg(a, 0, "input", "relu")}); }});
  t.push_back({"torch.nn.functional.silu", ir::NodeKind::CallFunction,
               [](Dispatcher& d, const TArgs& a) { return d.call("aten.silu.default", {tensorArg(a, 0, "input", "silu")}); }});
  for (const auto& b : kBinaries) {
    std::string aten = b.aten, name = b.method;
    auto impl = [aten, name](Dispatcher& d, const TArgs& a) {
      const Val* other = a.get(1, "other");
      if (!other) throw TorchError("TypeError", "missing required argument 'other'");
      const Val& self = a.args.at(0);
      // Tensors and Python numbers only: a dtype, list, string or None was read as the number 0,
      // and its recorded backward then ran on a tensor that does not exist (a crash).
      auto operand = [&](const Val& v, const char* what, int pos) {
        if (v.isTensor() || v.isScalar()) return;
        const char* type = v.kind == Val::Kind::None     ? "NoneType"
                           : v.kind == Val::Kind::DType  ? "torch.dtype"
                           : v.kind == Val::Kind::List   ? "list"
                           : v.kind == Val::Kind::String ? "str"
                                                         : "object";
        throw TorchError("TypeError",
                         name + "(): argument '" + what + "' (position " + std::to_string(pos) + ") must be Tensor, not " + type);
      };
      operand(self, "input", 1);
      operand(*other, "other", 2);
      if (const Val* mode = a.kw("rounding_mode"); name == "div" && mode && !mode->isNone()) return roundedDiv(d, self, *other, *mode);
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
    // x.__eq__(0) and friends (Dynamo records some operators as these method calls).
    if (b.op) {
      std::string dunder = b.op;
      if (dunder.back() == '_') dunder.pop_back();
      t.push_back({"__" + dunder + "__", ir::NodeKind::CallMethod, impl});
    }
  }
}

}  // namespace kiln::torchapi
