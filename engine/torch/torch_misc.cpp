// torch.finfo / torch.iinfo (a dtype's numerical limits, as Python objects) and torch._check and
// its siblings (raise when a Python bool condition is False). Dynamo treats all of them as
// constants of the trace; here they are plain native functions the capture steps through.
#include "engine/torch/tensor_protocol.h"

#include "engine/torch/capture_hooks.h"
#include "engine/torch/unbacked.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace kiln::torchapi {

using py::CallArgs;
using py::Value;
using py::VK;

namespace {

std::string g6(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::shared_ptr<py::ClassObj> infoClass(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& torch, const std::string& name) {
  auto cls = std::make_shared<py::ClassObj>();
  cls->name = cls->qualname = name;
  cls->mro.push_back(cls);
  if (auto o = in.builtinClass("object")) cls->mro.push_back(o), cls->bases.push_back(o);
  cls->module = torch;
  return cls;
}

ir::DType dtypeArgOf(py::Interpreter& in, const CallArgs& a, const std::string& fn) {
  Value d = a.args.size() > 1 ? a.args[1] : a.kwarg("type");
  if (!d || py::isNone(d)) return ir::defaultFloatDType();  // the default dtype
  if (d->kind != VK::DType) in.raise("TypeError", fn + "(): argument 'type' (position 1) must be torch.dtype, not " + py::typeName(d));
  return py::as<py::DTypeObj>(d)->d;
}

std::string shortDtypeName(ir::DType d) { return std::string(ir::torchName(d)).substr(6); }  // "torch.float32" -> "float32"

void setAttrs(py::InstanceObj* inst, std::initializer_list<std::pair<const char*, Value>> attrs) {
  for (const auto& [k, v] : attrs) inst->dict->setStr(k, v);
}

// raise error_type(message) unless cond: torch._check_with. While capturing, Dynamo runs the
// check as a graph node, so a failing one is a TorchRuntimeError.
Value checkWith(py::Interpreter& in, CallArgs& a, const std::string& errorTypeIn) {
  const std::string errorType = in.tracer ? "TorchRuntimeError" : errorTypeIn;
  Value cond = !a.args.empty() ? a.args[0] : a.kwarg("cond");
  if (!cond) in.raise("TypeError", "_check() missing 1 required positional argument: 'cond'");
  if (isUnbacked(cond)) unbackedLimitation(in, "torch._check on an unbacked scalar");
  if (cond->kind != VK::Bool) {
    std::string t = cond->kind == VK::Tensor ? "torch.Tensor" : py::typeName(cond);
    in.raise("TypeError", "cond must be a bool, but got <class '" + t + "'>");
  }
  if (in.tracer) tracerOf(in)->onSymbolicTruth(cond);  // a check on sizes is a guard while capturing
  if (py::as<py::BoolObj>(cond)->v) return py::None();
  Value message = a.args.size() > 1 ? a.args[1] : a.kwarg("message");
  if (!message || py::isNone(message))
    in.raise(errorType,
             "Expected cond to be True, but got False. (Could this error message be improved? If so, please report an "
             "enhancement request to PyTorch.)");
  CallArgs c;
  c.args = {message};
  if (!in.truthy(in.call(in.builtin("callable"), c))) in.raise("TypeError", "message must be a callable");
  CallArgs none;
  Value text = in.call(message, none);
  in.raise(errorType, in.str(text));
}

}  // namespace

void installTorchMisc(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& torch) {
  auto& T = torch->scope->vars;

  // torch.finfo(type=None): bits, eps, max, min, tiny, smallest_normal, resolution, dtype.
  auto finfo = infoClass(in, torch, "finfo");
  finfo->dict["__new__"] = py::makeBuiltin("finfo.__new__", [](py::Interpreter& in, CallArgs& a) -> Value {
    auto cls = py::asShared<py::ClassObj>(a.args.at(0));
    ir::DType d = dtypeArgOf(in, a, "finfo");
    if (!ir::isFloating(d))
      in.raise("TypeError", "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'");
    int bits = 32;
    double eps, max, tiny, resolution;
    switch (d) {
      case ir::DType::Float64:
        bits = 64, eps = std::numeric_limits<double>::epsilon(), max = std::numeric_limits<double>::max();
        tiny = std::numeric_limits<double>::min(), resolution = 1e-15;
        break;
      case ir::DType::Float16: bits = 16, eps = 0.0009765625, max = 65504.0, tiny = 6.103515625e-05, resolution = 0.001; break;
      case ir::DType::BFloat16:
        bits = 16, eps = 0.0078125, max = 3.3895313892515355e+38, tiny = 1.1754943508222875e-38, resolution = 0.01;
        break;
      default:
        eps = std::numeric_limits<float>::epsilon(), max = std::numeric_limits<float>::max();
        tiny = std::numeric_limits<float>::min(), resolution = 1e-06;
        break;
    }
    auto inst = std::make_shared<py::InstanceObj>(cls);
    setAttrs(inst.get(), {{"bits", py::makeInt(bits)},
                          {"eps", py::makeFloat(eps)},
                          {"max", py::makeFloat(max)},
                          {"min", py::makeFloat(-max)},
                          {"tiny", py::makeFloat(tiny)},
                          {"smallest_normal", py::makeFloat(tiny)},
                          {"resolution", py::makeFloat(resolution)},
                          {"dtype", py::makeStr(shortDtypeName(d))}});
    return inst;
  });
  finfo->dict["__repr__"] = py::makeBuiltin("finfo.__repr__", [](py::Interpreter& in, CallArgs& a) -> Value {
    auto* self = py::as<py::InstanceObj>(a.args.at(0));
    auto num = [&](const char* k) { return g6(py::as<py::FloatObj>(self->dict->getStr(k))->v); };
    return py::makeStr("finfo(resolution=" + num("resolution") + ", min=" + num("min") + ", max=" + num("max") + ", eps=" + num("eps") +
                       ", smallest_normal=" + num("smallest_normal") + ", tiny=" + num("tiny") +
                       ", dtype=" + in.str(self->dict->getStr("dtype")) + ")");
  });
  T["finfo"] = finfo;

  // torch.iinfo(type): bits, max, min, dtype.
  auto iinfo = infoClass(in, torch, "iinfo");
  iinfo->dict["__new__"] = py::makeBuiltin("iinfo.__new__", [](py::Interpreter& in, CallArgs& a) -> Value {
    auto cls = py::asShared<py::ClassObj>(a.args.at(0));
    Value dv = a.args.size() > 1 ? a.args[1] : a.kwarg("type");
    if (!dv) in.raise("TypeError", "iinfo() missing required argument 'type' (pos 1)");
    ir::DType d = dtypeArgOf(in, a, "iinfo");
    if (d == ir::DType::Bool) in.raise("TypeError", "torch.bool is not supported by torch.iinfo");
    if (ir::isFloating(d)) in.raise("TypeError", "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'");
    const int bits = static_cast<int>(ir::itemSize(d) * 8);
    const bool isUnsigned = d == ir::DType::UInt8;
    const int64_t mx = isUnsigned ? 255 : bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
    const int64_t mn = isUnsigned ? 0 : bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
    auto inst = std::make_shared<py::InstanceObj>(cls);
    setAttrs(inst.get(),
             {{"bits", py::makeInt(bits)}, {"max", py::makeInt(mx)}, {"min", py::makeInt(mn)}, {"dtype", py::makeStr(shortDtypeName(d))}});
    return inst;
  });
  iinfo->dict["__repr__"] = py::makeBuiltin("iinfo.__repr__", [](py::Interpreter& in, CallArgs& a) -> Value {
    auto* self = py::as<py::InstanceObj>(a.args.at(0));
    auto num = [&](const char* k) { return g6(static_cast<double>(py::as<py::IntObj>(self->dict->getStr(k))->small())); };
    return py::makeStr("iinfo(min=" + num("min") + ", max=" + num("max") + ", dtype=" + in.str(self->dict->getStr("dtype")) + ")");
  });
  T["iinfo"] = iinfo;

  // Dynamo's RuntimeError subclasses: torch._dynamo.exc.TorchRuntimeError, what an op raises
  // while being captured (bindings.cpp rethrow), as Dynamo wraps errors from running nodes on
  // fake tensors; ConstraintViolationError, a dim mark_dynamic marked that the compiled code
  // needs as a constant.
  for (const char* name : {"TorchRuntimeError", "ConstraintViolationError"}) {
    auto cls = std::make_shared<py::ClassObj>();
    cls->name = cls->qualname = name;
    cls->isException = true;
    cls->mro.push_back(cls);
    auto base = in.exceptionClass("RuntimeError");
    cls->bases.push_back(base);
    for (auto& m : base->mro) cls->mro.push_back(m);
    in.registerClass(cls);
  }

  // torch._check(cond, message=None) and the variants raising other error types.
  for (auto [name, error] : {std::pair{"_check", "RuntimeError"},
                             {"_check_value", "ValueError"},
                             {"_check_type", "TypeError"},
                             {"_check_index", "IndexError"},
                             {"_check_not_implemented", "NotImplementedError"}}) {
    std::string n = name, e = error;
    T[n] = py::makeBuiltin("torch." + n, [e](py::Interpreter& in, CallArgs& a) { return checkWith(in, a, e); });
    py::as<py::BuiltinObj>(T[n])->isMethod = false;
  }
}

}  // namespace kiln::torchapi
