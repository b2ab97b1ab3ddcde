// torch.manual_seed / rand / randn / randint / rand_like / randn_like / normal, and the grad
// mode API: torch.no_grad / enable_grad / set_grad_enabled (context managers and decorators),
// torch.is_grad_enabled.
#include "engine/autograd/grad_mode.h"
#include "engine/ops/random.h"
#include "engine/torch/autograd_methods.h"
#include "engine/torch/bindings.h"
#include "engine/torch/capture_hooks.h"
#include "engine/torch/generator_arg.h"

namespace kiln::torchapi {

using py::CallArgs;
using py::Value;
using py::VK;
using tensor::Tensor;
using tensor::TorchError;

namespace {

void def(const std::shared_ptr<py::ModuleObj>& m, const std::string& name, py::NativeFn fn) {
  m->scope->vars[name] = py::makeBuiltin(m->name + "." + name, std::move(fn));
  py::as<py::BuiltinObj>(m->scope->vars[name])->isMethod = false;  // a module function
}

// A random draw: while capturing it breaks the graph (see breakOnRandomInCapture).
void defRandom(const std::shared_ptr<py::ModuleObj>& m, const std::string& name, py::NativeFn fn) {
  def(m, name, [fn = std::move(fn), what = m->name + "." + name](py::Interpreter& in, CallArgs& a) {
    breakOnRandomInCapture(in, what);
    return fn(in, a);
  });
}

int64_t intOf(py::Interpreter& in, const Value& v, const char* what) {
  if (v->kind == VK::Int) return py::as<py::IntObj>(v)->small();
  if (v->kind == VK::Bool) return py::as<py::BoolObj>(v)->v;
  in.raise("TypeError", std::string(what) + " must be int, not " + py::typeName(v));
}

double numberOf(py::Interpreter& in, const Value& v) {
  if (v->kind == VK::Float) return py::as<py::FloatObj>(v)->v;
  return double(intOf(in, v, "argument"));
}

// f(2, 3), f((2, 3)), f([2, 3]) or size=(2, 3)
tensor::Shape sizeArgs(py::Interpreter& in, const std::vector<Value>& args, const CallArgs& a) {
  std::vector<Value> dims = args;
  if (dims.size() == 1 && (dims[0]->kind == VK::Tuple || dims[0]->kind == VK::List)) dims = in.iterate(dims[0]);
  if (Value s = a.kwarg("size")) dims = in.iterate(s);
  tensor::Shape out;
  for (auto& d : dims) out.push_back(intOf(in, d, "size"));
  return out;
}

ir::DType dtypeOf(py::Interpreter& in, const CallArgs& a, ir::DType dflt) {
  Value d = a.kwarg("dtype");
  if (!d || py::isNone(d)) return dflt;
  if (d->kind != VK::DType) in.raise("TypeError", "dtype must be a torch.dtype, not " + py::typeName(d));
  return py::as<py::DTypeObj>(d)->d;
}

Value finish(py::Interpreter& in, Tensor t, const CallArgs& a) {
  if (Value rg = a.kwarg("requires_grad"); rg && in.truthy(rg)) {
    if (!ir::isFloating(t.dtype())) in.raise("RuntimeError", "only Tensors of floating point and complex dtype can require gradients");
    t.setRequiresGrad(true);
  }
  return py::makeTensor(std::move(t));
}

const Tensor& tensorOf(py::Interpreter& in, const Value& v, const char* fn) {
  if (v->kind != VK::Tensor || py::as<py::TensorObj>(v)->fake)
    in.raise("TypeError", std::string(fn) + "(): argument 'input' (position 1) must be Tensor, not " + py::typeName(v));
  return py::as<py::TensorObj>(v)->t;
}

// torch.Generator: a CPU generator of its own (manual_seed returns it, initial_seed reads the
// seed); torch.default_generator is the global one.
void installGeneratorClass(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& torch) {
  auto cls = std::make_shared<py::ClassObj>();
  cls->name = cls->qualname = "Generator";
  cls->module = torch;
  cls->mro.push_back(cls);
  if (auto o = in.builtinClass("object")) cls->mro.push_back(o), cls->bases.push_back(o);
  auto self = [](py::Interpreter& in, const CallArgs& a, const char* method) -> Generator& {
    if (a.args.empty() || a.args[0]->kind != VK::Instance || py::as<py::InstanceObj>(a.args[0])->cls->name != "Generator")
      in.raise("TypeError", std::string("descriptor '") + method + "' for 'torch._C.Generator' objects doesn't apply to this object");
    return *static_cast<Generator*>(py::as<py::InstanceObj>(a.args[0])->native.get());
  };
  cls->dict["__init__"] = py::makeBuiltin("Generator.__init__", [](py::Interpreter& in, CallArgs& a) {
    Value device = a.args.size() > 1 ? a.args[1] : a.kwarg("device");
    if (device && !py::isNone(device) && in.str(device) != "cpu")
      in.raise("RuntimeError", "Kiln runs on the CPU only: a torch.Generator on device '" + in.str(device) + "' is not supported");
    py::as<py::InstanceObj>(a.args.at(0))->native = std::make_shared<Generator>();
    return py::None();
  });
  // Dynamo traces no method of a torch.Generator (gb0156): each call breaks and runs eagerly, so
  // a seed set or read in a compiled function happens on every call, not once while tracing.
  auto untraced = [](py::Interpreter& in, const std::string& method) {
    if (!in.tracer) return;
    py::GraphBreak u("KB046", "Unsupported method call", "Dynamo does not know how to trace method `" + method + "` of class `Generator`",
                     {"Avoid calling `Generator." + method + "` in your code.", "Please report an issue to PyTorch."});
    u.where = in.currentLocation();
    u.stack = in.userStack();
    throw u;
  };
  cls->dict["manual_seed"] = py::makeBuiltin("Generator.manual_seed", [self, untraced](py::Interpreter& in, CallArgs& a) {
    untraced(in, "manual_seed");
    Generator& g = self(in, a, "manual_seed");
    if (a.args.size() < 2) in.raise("TypeError", "manual_seed() missing 1 required positional argument: 'seed'");
    g.manualSeed(static_cast<uint64_t>(intOf(in, a.args[1], "seed")));
    return a.args[0];
  });
  cls->dict["initial_seed"] = py::makeBuiltin("Generator.initial_seed", [self, untraced](py::Interpreter& in, CallArgs& a) {
    untraced(in, "initial_seed");
    return py::makeInt(static_cast<int64_t>(self(in, a, "initial_seed").initialSeed()));
  });
  cls->dict["device"] = py::makeStr("cpu");
  in.registerClass(cls);
  torch->scope->vars["Generator"] = cls;
  auto dflt = std::make_shared<py::InstanceObj>(cls);
  dflt->native = std::shared_ptr<void>(&defaultGenerator(), [](void*) {});  // the global one, not owned
  torch->scope->vars["default_generator"] = dflt;
}

// Sets grad mode; while capturing, a change is also a node of the graph.
void setGradMode(py::Interpreter& in, bool enabled) {
  if (in.tracer && enabled != autograd::isGradEnabled()) tracerOf(in)->onGradMode(enabled);
  autograd::setGradEnabled(enabled);
}

// A grad-mode context manager class: `mode(self_args)` decides the mode on entry; with
// `immediate` (set_grad_enabled) the mode is set at construction, as PyTorch does, so the
// call also works as a plain function.
Value gradModeClass(py::Interpreter& in, const std::string& name, bool immediate, std::function<bool(py::Interpreter&, CallArgs&)> mode,
                    bool inference = false) {
  auto cls = std::make_shared<py::ClassObj>();
  cls->name = cls->qualname = name;
  cls->mro.push_back(cls);
  if (auto o = in.builtinClass("object")) cls->mro.push_back(o);
  // inference_mode also marks the tensors allocated inside as inference tensors.
  auto wrapper = [name, inference](bool enabled, Value fn) {
    return py::makeBuiltin(name + ".<decorated>", [enabled, fn, inference](py::Interpreter& in, CallArgs& a) {
      const bool prev = autograd::isGradEnabled();
      const bool prevInference = tensor::inferenceModeEnabled();
      setGradMode(in, enabled);
      if (inference) tensor::setInferenceModeEnabled(!enabled);
      struct Restore {
        py::Interpreter& in;
        bool prev, prevInference;
        ~Restore() {
          if (in.tracer && prev != autograd::isGradEnabled()) tracerOf(in)->onGradMode(prev);
          autograd::setGradEnabled(prev);
          tensor::setInferenceModeEnabled(prevInference);
        }
      } restore{in, prev, prevInference};
      return in.call(fn, a);
    });
  };
  cls->dict["__new__"] = py::makeBuiltin(name + ".__new__", [mode, wrapper, immediate](py::Interpreter& in, CallArgs& a) -> Value {
    auto c = py::asShared<py::ClassObj>(a.args.at(0));
    CallArgs rest = a;
    rest.args.erase(rest.args.begin());
    // @torch.no_grad without parentheses decorates directly.
    if (!immediate && rest.args.size() == 1 &&
        (rest.args[0]->kind == VK::Function || rest.args[0]->kind == VK::BoundMethod || rest.args[0]->kind == VK::Builtin))
      return wrapper(mode(in, rest), rest.args[0]);
    bool enabled = mode(in, rest);
    auto inst = std::make_shared<py::InstanceObj>(c);
    inst->dict->setStr("_enabled", py::makeBool(enabled));
    inst->dict->setStr("_prev", py::makeBool(autograd::isGradEnabled()));
    if (immediate) setGradMode(in, enabled);
    return inst;
  });
  cls->dict["__enter__"] = py::makeBuiltin(name + ".__enter__", [immediate, inference](py::Interpreter& in, CallArgs& a) {
    auto* self = py::as<py::InstanceObj>(a.args.at(0));
    if (!immediate) self->dict->setStr("_prev", py::makeBool(autograd::isGradEnabled()));
    const bool enabled = in.truthy(self->dict->getStr("_enabled"));
    setGradMode(in, enabled);
    if (inference) {
      self->dict->setStr("_prev_inference", py::makeBool(tensor::inferenceModeEnabled()));
      tensor::setInferenceModeEnabled(!enabled);
    }
    return py::None();
  });
  cls->dict["__exit__"] = py::makeBuiltin(name + ".__exit__", [inference](py::Interpreter& in, CallArgs& a) {
    auto* self = py::as<py::InstanceObj>(a.args.at(0));
    setGradMode(in, in.truthy(self->dict->getStr("_prev")));
    if (inference)
      if (Value p = self->dict->getStr("_prev_inference")) tensor::setInferenceModeEnabled(in.truthy(p));
    return py::False();
  });
  cls->dict["__call__"] = py::makeBuiltin(name + ".__call__", [wrapper](py::Interpreter& in, CallArgs& a) -> Value {
    auto* self = py::as<py::InstanceObj>(a.args.at(0));
    if (a.args.size() != 2) in.raise("TypeError", "a grad mode decorator takes one function");
    return wrapper(in.truthy(self->dict->getStr("_enabled")), a.args[1]);
  });
  return cls;
}

}  // namespace

// The generator a draw uses: generator= (a torch.Generator) or the default one.
Generator& generatorOf(py::Interpreter& in, const CallArgs& a) {
  Value g = a.kwarg("generator");
  if (!g || py::isNone(g)) return defaultGenerator();
  auto* inst = g->kind == VK::Instance ? py::as<py::InstanceObj>(g) : nullptr;
  if (!inst || inst->cls->name != "Generator" || !inst->cls->module || inst->cls->module->name != "torch" || !inst->native)
    in.raise("TypeError", "generator must be a torch.Generator, not " + py::typeName(g));
  return *static_cast<Generator*>(inst->native.get());
}

void installGradModeAndRandom(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& torch) {
  auto& T = torch->scope->vars;
  T["no_grad"] = gradModeClass(in, "no_grad", false, [](py::Interpreter&, CallArgs&) { return false; });
  T["enable_grad"] = gradModeClass(in, "enable_grad", false, [](py::Interpreter&, CallArgs&) { return true; });
  T["inference_mode"] = gradModeClass(
      in, "inference_mode", false,
      [](py::Interpreter& in, CallArgs& a) {
        Value m = !a.args.empty() ? a.args[0] : a.kwarg("mode");
        return m && !in.truthy(m);
      },
      true);
  T["set_grad_enabled"] = gradModeClass(in, "set_grad_enabled", true, [](py::Interpreter& in, CallArgs& a) {
    Value m = !a.args.empty() ? a.args[0] : a.kwarg("mode");
    if (!m || m->kind != VK::Bool) in.raise("TypeError", "set_grad_enabled(): argument 'mode' must be bool");
    return in.truthy(m);
  });
  def(torch, "is_grad_enabled", [](py::Interpreter&, CallArgs&) { return py::makeBool(autograd::isGradEnabled()); });
  // Dynamo does not trace it: a graph break (gb0046).
  def(torch, "is_inference_mode_enabled", [](py::Interpreter& in, CallArgs&) {
    if (in.tracer) {
      py::GraphBreak u("KB008", "Encountered torch.is_inference_mode_enabled during tracing",
                       "torch.is_inference_mode_enabled() is not supported",
                       {"This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through your code. "
                        "Consider finding a workaround.",
                        "Avoid using `tensor.is_inference()` and `torch.is_inference_mode_enabled()` in your compile code. This is "
                        "primarily used in conjunction with `torch.inference_mode`. Consider using `torch.no_grad` instead because "
                        "`torch.no_grad` leads to same improvements as `inference_mode` when `torch.compile` is used."});
      u.where = in.currentLocation();
      u.stack = in.userStack();
      throw u;
    }
    return py::makeBool(tensor::inferenceModeEnabled());
  });

  installGeneratorClass(in, torch);
  def(torch, "manual_seed", [](py::Interpreter& in, CallArgs& a) {
    if (a.args.empty()) in.raise("TypeError", "manual_seed() missing 1 required positional argument: 'seed'");
    int64_t s = intOf(in, a.args[0], "seed");
    defaultGenerator().manualSeed(static_cast<uint64_t>(s));
    return py::None();
  });
  def(torch, "initial_seed",
      [](py::Interpreter&, CallArgs&) { return py::makeInt(static_cast<int64_t>(defaultGenerator().initialSeed())); });
  auto filler = [](bool normal) {
    return [normal](py::Interpreter& in, CallArgs& a) -> Value {
      try {
        Tensor t = Tensor::empty(sizeArgs(in, a.args, a), dtypeOf(in, a, ir::defaultFloatDType()));
        if (normal) normalFill(t, 0.0, 1.0, generatorOf(in, a));
        else uniformFill(t, 0.0, 1.0, generatorOf(in, a));
        return finish(in, std::move(t), a);
      } catch (const TorchError& e) { rethrow(in, e); }
    };
  };
  defRandom(torch, "rand", filler(false));
  defRandom(torch, "randn", filler(true));
  for (bool normal : {false, true}) {
    defRandom(torch, normal ? "randn_like" : "rand_like", [normal](py::Interpreter& in, CallArgs& a) -> Value {
      if (a.args.empty()) in.raise("TypeError", "missing required argument 'input'");
      const Tensor& x = tensorOf(in, a.args[0], normal ? "randn_like" : "rand_like");
      try {
        Tensor t = Tensor::empty(x.sizes(), dtypeOf(in, a, x.dtype()));
        if (normal) normalFill(t, 0.0, 1.0, generatorOf(in, a));
        else uniformFill(t, 0.0, 1.0, generatorOf(in, a));
        return finish(in, std::move(t), a);
      } catch (const TorchError& e) { rethrow(in, e); }
    });
  }
  // randint(high, size) / randint(low, high, size)
  defRandom(torch, "randint", [](py::Interpreter& in, CallArgs& a) -> Value {
    std::vector<Value> pos = a.args;
    Value size = a.kwarg("size");
    if (!size && !pos.empty() && (pos.back()->kind == VK::Tuple || pos.back()->kind == VK::List)) {
      size = pos.back();
      pos.pop_back();
    }
    if (Value lo = a.kwarg("low")) pos.insert(pos.begin(), lo);
    if (Value hi = a.kwarg("high")) pos.push_back(hi);
    if (!size || pos.empty() || pos.size() > 2) in.raise("TypeError", "randint() received an invalid combination of arguments");
    int64_t low = pos.size() == 2 ? intOf(in, pos[0], "low") : 0, high = intOf(in, pos.back(), "high");
    try {
      Tensor t = Tensor::empty(sizeArgs(in, {size}, CallArgs{}), dtypeOf(in, a, ir::DType::Int64));
      randomFromToFill(t, low, high, generatorOf(in, a));
      return finish(in, std::move(t), a);
    } catch (const TorchError& e) { rethrow(in, e); }
  });
  // randperm(n, *, generator=None, dtype=torch.int64, ...)
  defRandom(torch, "randperm", [](py::Interpreter& in, CallArgs& a) -> Value {
    Value nv = !a.args.empty() ? a.args[0] : a.kwarg("n");
    if (!nv || a.args.size() > 1) in.raise("TypeError", "randperm() received an invalid combination of arguments");
    int64_t n = intOf(in, nv, "n");
    if (n < 0) in.raise("RuntimeError", "n must be non-negative, got" + std::to_string(n));
    try {
      Tensor t = Tensor::empty({n}, dtypeOf(in, a, ir::DType::Int64));
      randpermFill(t, n, generatorOf(in, a));
      return finish(in, std::move(t), a);
    } catch (const TorchError& e) { rethrow(in, e); }
  });
  // normal(mean: float, std: float, size) or normal(mean, std) with tensors:
  // normal_(0, 1) then * std + mean, as ATen's normal_out does.
  defRandom(torch, "normal", [](py::Interpreter& in, CallArgs& a) -> Value {
    Value mean = !a.args.empty() ? a.args[0] : a.kwarg("mean");
    Value std = a.args.size() > 1 ? a.args[1] : a.kwarg("std");
    if (!mean) in.raise("TypeError", "normal() missing required argument 'mean'");
    if (!std) std = py::makeFloat(1.0);
    try {
      if (mean->kind != VK::Tensor && std->kind != VK::Tensor) {
        std::vector<Value> rest(a.args.begin() + std::min<size_t>(2, a.args.size()), a.args.end());
        Tensor t = Tensor::empty(sizeArgs(in, rest, a), dtypeOf(in, a, ir::defaultFloatDType()));
        normalFill(t, numberOf(in, mean), numberOf(in, std), generatorOf(in, a));
        return finish(in, std::move(t), a);
      }
      const Tensor& shapeFrom = mean->kind == VK::Tensor ? tensorOf(in, mean, "normal") : tensorOf(in, std, "normal");
      tensor::Shape s = shapeFrom.sizes();
      if (mean->kind == VK::Tensor && std->kind == VK::Tensor)
        s = tensor::broadcastShapes(tensorOf(in, mean, "normal").sizes(), tensorOf(in, std, "normal").sizes());
      Tensor t = Tensor::empty(s, shapeFrom.dtype());
      normalFill(t, 0.0, 1.0, generatorOf(in, a));
      ops::EagerDispatcher d;
      ops::Val r = d.call("aten.mul.Tensor", {ops::Val::of(t), toVal(in, std)});
      r = d.call("aten.add.Tensor", {r, toVal(in, mean)});
      return py::makeTensor(r.t);
    } catch (const TorchError& e) { rethrow(in, e); }
  });
}

}  // namespace kiln::torchapi
