// The modules scripts import: torch (functions, dtypes, compile, no_grad ...), torch.nn,
// torch.nn.functional, torch._dynamo, torch.compiler, math.
#include "engine/torch/tensor_protocol.h"

#include "engine/torch/autograd_function.h"
#include "engine/torch/autograd_methods.h"
#include "engine/torch/bindings.h"
#include "engine/torch/capture_hooks.h"
#include "engine/torch/checkpoint_api.h"
#include "engine/torch/device_api.h"
#include "engine/torch/nn_module.h"

#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>

namespace kiln::torchapi {

using py::CallArgs;
using py::Value;
using py::VK;

namespace {

std::shared_ptr<py::ModuleObj> newModule(py::Interpreter& in, const std::string& name) {
  auto m = std::make_shared<py::ModuleObj>(name);
  m->scope->vars["__name__"] = py::makeStr(name);
  in.registerModule(m);
  return m;
}

void def(const std::shared_ptr<py::ModuleObj>& m, const std::string& name, py::NativeFn fn) {
  m->scope->vars[name] = py::makeBuiltin(m->name + "." + name, std::move(fn));
  py::as<py::BuiltinObj>(m->scope->vars[name])->isMethod = false;  // a module function
}

ir::DType dtypeArg(py::Interpreter& in, const CallArgs& a, ir::DType dflt) {
  Value d = a.kwarg("dtype");
  if (!d || py::isNone(d)) return dflt;
  if (d->kind != VK::DType) in.raise("TypeError", "dtype must be a torch.dtype, not " + py::typeName(d));
  return py::as<py::DTypeObj>(d)->d;
}

// Shape from f(2, 3), f((2, 3)) or f([2, 3]).
tensor::Shape shapeArgs(py::Interpreter& in, const CallArgs& a, size_t from = 0) {
  std::vector<Value> dims;
  if (a.args.size() == from + 1 && (a.args[from]->kind == VK::Tuple || a.args[from]->kind == VK::List)) dims = in.iterate(a.args[from]);
  else dims.assign(a.args.begin() + static_cast<int64_t>(from), a.args.end());
  if (Value s = a.kwarg("size")) dims = in.iterate(s);
  tensor::Shape out;
  for (auto& d : dims) {
    if (d->kind != VK::Int) in.raise("TypeError", "size must be a sequence of ints, but got " + py::typeName(d));
    out.push_back(py::as<py::IntObj>(d)->small());
  }
  return out;
}

double number(py::Interpreter& in, const Value& v) {
  if (v->kind == VK::Int) return double(py::as<py::IntObj>(v)->small());
  if (v->kind == VK::Float) return py::as<py::FloatObj>(v)->v;
  if (v->kind == VK::Bool) return py::as<py::BoolObj>(v)->v;
  if (v->kind == VK::Tensor && !py::as<py::TensorObj>(v)->fake && py::as<py::TensorObj>(v)->t.numel() == 1)
    return py::as<py::TensorObj>(v)->t.loadAt(0);
  in.raise("TypeError", "must be real number, not " + py::typeName(v));
}

// torch.tensor(data): infers dtype like PyTorch (bool < int64 < float32 by default).
tensor::Tensor tensorFromData(py::Interpreter& in, const Value& data, std::optional<ir::DType> dtype) {
  tensor::Shape shape;
  // Elements as doubles, and Python ints also exactly (2**62 + 1 must not round through a
  // double into an int64 tensor).
  std::vector<double> flat;
  std::vector<int64_t> exact;
  std::vector<bool> isInt;
  ir::DType inferred = ir::DType::Bool;
  bool any = false;
  std::function<void(const Value&, size_t)> walk = [&](const Value& v, size_t depth) {
    if (v->kind == VK::List || v->kind == VK::Tuple) {
      // PyTorch's MAX_DIMS: also what stops a list that contains itself.
      if (depth >= 128) in.raise("ValueError", "too many dimensions '" + py::typeName(v) + "'");
      auto items = in.iterate(v);
      if (shape.size() <= depth) shape.push_back(static_cast<int64_t>(items.size()));
      else if (shape[depth] != static_cast<int64_t>(items.size()))
        in.raise("ValueError", "expected sequence of length " + std::to_string(shape[depth]) + " at dim " + std::to_string(depth) +
                                   " (got " + std::to_string(items.size()) + ")");
      for (auto& x : items) walk(x, depth + 1);
      return;
    }
    if (depth != shape.size() && any) in.raise("ValueError", "inconsistent nesting in tensor data");
    any = true;
    if (v->kind == VK::Float) inferred = ir::defaultFloatDType();
    else if (v->kind == VK::Int) {
      if (inferred == ir::DType::Bool) inferred = ir::DType::Int64;
    } else if (v->kind == VK::Tensor) {
      auto& t = py::as<py::TensorObj>(v)->t;
      if (ir::isFloating(t.dtype())) inferred = ir::defaultFloatDType();
      else if (inferred == ir::DType::Bool && t.dtype() != ir::DType::Bool) inferred = ir::DType::Int64;
    } else if (v->kind != VK::Bool) {
      in.raise("TypeError", "Could not infer dtype of " + py::typeName(v));
    }
    if (v->kind == VK::Int) {
      if (py::as<py::IntObj>(v)->big) in.raise("RuntimeError", "Overflow when unpacking long");
      int64_t i = py::as<py::IntObj>(v)->small();
      flat.push_back(static_cast<double>(i));
      exact.push_back(i);
      isInt.push_back(true);
      return;
    }
    flat.push_back(number(in, v));
    exact.push_back(0);
    isInt.push_back(false);
  };
  walk(data, 0);
  tensor::Tensor t = tensor::Tensor::empty(shape, dtype.value_or(inferred));
  const bool intTensor = !ir::isFloating(t.dtype()) && t.dtype() != ir::DType::Bool;
  for (size_t i = 0; i < flat.size(); ++i) {
    if (intTensor && isInt[i]) t.storeIntAt(static_cast<int64_t>(i), exact[i]);
    else t.storeAt(static_cast<int64_t>(i), flat[i]);
  }
  return t;
}

Value wrap(tensor::Tensor t, py::Interpreter& in, const CallArgs& a) {
  if (Value rg = a.kwarg("requires_grad"); rg && in.truthy(rg)) t.setRequiresGrad(true);
  return py::makeTensor(std::move(t));
}

// While capturing, a creation call is a graph node (torch.ones(4, 4) appears in Dynamo's
// graphs); the eager result only supplies its type.
Value recordCreation(py::Interpreter& in, const std::string& target, const CallArgs& a, const Value& result) {
  if (!in.tracer || result->kind != VK::Tensor) return result;
  return tracerOf(in)->record(target, ir::NodeKind::CallFunction, a.args, a.kwargs, py::as<py::TensorObj>(result)->tensorType());
}

}  // namespace

void installModules(py::Interpreter& in) {
  auto torch = newModule(in, "torch");
  auto& T = torch->scope->vars;
  for (ir::DType d : ir::allDTypes()) {  // torch.float32 and its alias torch.float are one object
    auto dt = std::make_shared<py::DTypeObj>(d);
    T[std::string(ir::torchName(d).substr(6))] = dt;
    if (!ir::torchAlias(d).empty()) T[std::string(ir::torchAlias(d))] = dt;
  }
  T["pi"] = py::makeFloat(M_PI);
  T["e"] = py::makeFloat(M_E);
  T["inf"] = py::makeFloat(INFINITY);
  T["nan"] = py::makeFloat(NAN);
  T["__version__"] = py::makeStr("2.11.0+kiln");
  // Tensor as a class for isinstance(x, torch.Tensor).
  {
    auto cls = std::make_shared<py::ClassObj>();
    cls->name = cls->qualname = "Tensor";
    cls->mro.push_back(cls);
    if (auto o = in.builtinClass("object")) cls->mro.push_back(o), cls->bases.push_back(o);
    cls->module = torch;    // printed <class 'torch.Tensor'>
    in.registerClass(cls);  // type(t) is torch.Tensor
    T["Tensor"] = cls;
    // type(torch.Tensor) is torch._C._TensorMeta. Through its __getattr__ the methods are
    // unbound functions of the class: torch.Tensor.add_(x, 1) is x.add_(1).
    auto meta = std::make_shared<py::ClassObj>();
    meta->name = meta->qualname = "_TensorMeta";
    meta->module = std::make_shared<py::ModuleObj>("torch._C");
    auto type = in.builtinClass("type");
    meta->bases.push_back(type);
    meta->mro.push_back(meta);
    for (auto& m : type->mro) meta->mro.push_back(m);
    meta->dict["__getattr__"] = py::makeBuiltin("_TensorMeta.__getattr__", [](py::Interpreter& in, CallArgs& a) -> Value {
      const std::string name = in.str(a.args.at(1));
      // A method is what a tensor answers with a callable; looked up on an empty tensor with
      // capture paused, so that a property (x.T) records nothing.
      static const Value probe = py::makeTensor(tensor::Tensor::empty({0}, ir::DType::Float32));
      py::TraceHooks* tracer = std::exchange(in.tracer, nullptr);
      Value m;
      try {
        m = in.getAttrOrNull(probe, name);
      } catch (...) {
        in.tracer = tracer;
        throw;
      }
      in.tracer = tracer;
      if (!m || (m->kind != VK::Builtin && m->kind != VK::BoundMethod))
        in.raise("AttributeError", "type object 'Tensor' has no attribute '" + name + "'");
      auto fn = py::makeBuiltin("Tensor." + name, [name](py::Interpreter& in, CallArgs& c) -> Value {
        if (c.args.empty() || c.args[0]->kind != VK::Tensor)
          in.raise("TypeError", "descriptor '" + name + "' for 'torch._C.TensorBase' objects doesn't apply to a '" +
                                    (c.args.empty() ? std::string("NoneType") : py::typeName(c.args[0])) + "' object");
        CallArgs rest = c;
        rest.args.erase(rest.args.begin());
        return in.call(in.getAttr(c.args[0], name), rest);
      });
      py::as<py::BuiltinObj>(fn)->isMethod = false;
      return fn;
    });
    cls->meta = meta;
  }
  // torch.Size: a tuple subclass. Shapes are tuples flagged as sizes (py::makeTorchSize), whose
  // class this is: isinstance(x.shape, tuple), torch.Size([2, 3]), .numel().
  {
    auto tupleCls = in.builtinClass("tuple");
    auto cls = std::make_shared<py::ClassObj>();
    cls->name = cls->qualname = "Size";
    cls->module = torch;
    cls->bases.push_back(tupleCls);
    cls->mro.push_back(cls);
    for (auto& m : tupleCls->mro) cls->mro.push_back(m);
    cls->dict["__new__"] = py::makeBuiltin("Size.__new__", [](py::Interpreter& in, CallArgs& a) {
      if (a.args.size() > 2) in.raise("TypeError", "Size() takes at most 1 argument (" + std::to_string(a.args.size() - 1) + " given)");
      std::vector<Value> dims = a.args.size() > 1 ? in.iterate(a.args[1]) : std::vector<Value>{};
      for (size_t i = 0; i < dims.size(); ++i) {
        Value& d = dims[i];
        if (d->kind == VK::Int) continue;
        // A one-element integer tensor is an index (__index__), as in PyTorch.
        if (d->kind == VK::Tensor) {
          auto& t = py::as<py::TensorObj>(d)->t;
          if (!py::as<py::TensorObj>(d)->fake && t.numel() == 1 && !ir::isFloating(t.dtype()) && t.dtype() != ir::DType::Bool) {
            d = py::makeInt(t.loadIntAt(0));
            continue;
          }
        }
        in.raise("TypeError", "torch.Size() takes an iterable of 'int' (item " + std::to_string(i) + " is '" + py::typeName(d) + "')");
      }
      return py::makeTorchSize(std::move(dims));
    });
    cls->dict["numel"] = py::makeBuiltin("Size.numel", [](py::Interpreter& in, CallArgs& a) {
      Value n = py::makeInt(1);
      for (auto& d : in.iterate(a.args.at(0))) n = in.binaryOp("*", n, d);
      return n;
    });
    in.registerClass(cls);
    T["Size"] = cls;
  }
  // torch.memory_format: contiguous_format, channels_last ... (printed torch.channels_last;
  // toVal passes them to torch functions as that string).
  {
    auto cls = std::make_shared<py::ClassObj>();
    cls->name = cls->qualname = "memory_format";
    cls->module = torch;
    cls->mro.push_back(cls);
    if (auto o = in.builtinClass("object")) cls->mro.push_back(o), cls->bases.push_back(o);
    cls->dict["__repr__"] = py::makeBuiltin("memory_format.__repr__", [](py::Interpreter& in, CallArgs& a) {
      return py::makeStr("torch." + in.str(py::as<py::InstanceObj>(a.args.at(0))->dict->getStr("name")));
    });
    for (const char* n : {"contiguous_format", "channels_last", "channels_last_3d", "preserve_format"}) {
      auto f = std::make_shared<py::InstanceObj>(cls);
      f->dict->setStr("name", py::makeStr(n));
      T[n] = f;
    }
    T["memory_format"] = cls;
  }
  // Every torch-level function spelled torch.<name>.
  for (const auto& f : torchFns()) {
    if (f.kind != ir::NodeKind::CallFunction || f.target.rfind("torch.", 0) != 0) continue;
    std::string rest = f.target.substr(6);
    if (rest.find('.') != std::string::npos) continue;
    std::string target = f.target;
    def(torch, rest, [target](py::Interpreter& in, CallArgs& a) { return callTorch(in, target, ir::NodeKind::CallFunction, a); });
  }
  // Functions Dynamo records under another module's name (torch.einsum is torch.functional.einsum).
  def(torch, "einsum",
      [](py::Interpreter& in, CallArgs& a) { return callTorch(in, "torch.functional.einsum", ir::NodeKind::CallFunction, a); });
  def(torch, "tensor", [](py::Interpreter& in, CallArgs& a) {
    if (a.args.empty()) in.raise("TypeError", "tensor() missing 1 required positional arguments: \"data\"");
    Value dt = a.kwarg("dtype");
    std::optional<ir::DType> d;
    if (dt && !py::isNone(dt)) d = py::as<py::DTypeObj>(dt)->d;
    return wrap(tensorFromData(in, a.args[0], d), in, a);
  });
  def(torch, "arange", [](py::Interpreter& in, CallArgs& a) {
    std::vector<Value> n = a.args;
    if (Value e = a.kwarg("end")) n.push_back(e);
    if (n.empty() || n.size() > 3) in.raise("TypeError", "arange() received an invalid combination of arguments");
    Value start = n.size() >= 2 ? n[0] : py::makeInt(0), end = n.size() >= 2 ? n[1] : n[0], step = n.size() == 3 ? n[2] : py::makeInt(1);
    if (Value s = a.kwarg("step")) step = s;
    bool anyFloat = start->kind == VK::Float || end->kind == VK::Float || step->kind == VK::Float;
    ir::DType dt = dtypeArg(in, a, anyFloat ? ir::defaultFloatDType() : ir::DType::Int64);
    ops::EagerDispatcher e;
    try {
      ops::Val r = e.call("aten.arange.start_step", {toVal(in, start), toVal(in, end), toVal(in, step), ops::Val::dtypeVal(dt)});
      return recordCreation(in, "torch.arange", a, wrap(r.t, in, a));
    } catch (const tensor::TorchError& err) { rethrow(in, err); }
  });
  def(torch, "linspace", [](py::Interpreter& in, CallArgs& a) {
    if (a.args.size() < 3 && !a.kwarg("steps")) in.raise("TypeError", "linspace() missing required argument 'steps'");
    Value steps = a.args.size() > 2 ? a.args[2] : a.kwarg("steps");
    if (steps->kind != VK::Int) in.raise("TypeError", "linspace(): argument 'steps' must be int, not " + py::typeName(steps));
    ops::EagerDispatcher e;
    try {
      ops::Val r = e.call("aten.linspace.default", {ops::Val::real(number(in, a.args.at(0))), ops::Val::real(number(in, a.args.at(1))),
                                                    toVal(in, steps), ops::Val::dtypeVal(dtypeArg(in, a, ir::defaultFloatDType()))});
      return wrap(r.t, in, a);
    } catch (const tensor::TorchError& err) { rethrow(in, err); }
  });
  auto filled = [](double v, std::string target) {
    return [v, target](py::Interpreter& in, CallArgs& a) {
      try {
        return recordCreation(in, target, a,
                              wrap(tensor::Tensor::full(shapeArgs(in, a), v, dtypeArg(in, a, ir::defaultFloatDType())), in, a));
      } catch (const tensor::TorchError& err) { rethrow(in, err); }
    };
  };
  def(torch, "zeros", filled(0.0, "torch.zeros"));
  def(torch, "ones", filled(1.0, "torch.ones"));
  def(torch, "empty", filled(0.0, "torch.empty"));
  def(torch, "full", [](py::Interpreter& in, CallArgs& a) {
    tensor::Shape s = shapeArgs(in, CallArgs{{a.args.at(0)}, {}, {}});
    Value v = a.args.at(1);
    ir::DType dflt = v->kind == VK::Float ? ir::defaultFloatDType() : v->kind == VK::Bool ? ir::DType::Bool : ir::DType::Int64;
    try {
      return wrap(tensor::Tensor::full(s, number(in, v), dtypeArg(in, a, dflt)), in, a);
    } catch (const tensor::TorchError& err) { rethrow(in, err); }
  });
  for (auto [name, val] : {std::pair{"zeros_like", 0.0}, {"ones_like", 1.0}, {"empty_like", 0.0}}) {
    double v = val;
    def(torch, name, [v, name = name](py::Interpreter& in, CallArgs& a) {
      if (a.args.empty() || a.args[0]->kind != VK::Tensor) in.raise("TypeError", "expected a Tensor");
      auto ty = py::as<py::TensorObj>(a.args[0])->tensorType();
      tensor::Shape s;
      for (auto& d : ty.sizes) s.push_back(d.value);
      return recordCreation(in, std::string("torch.") + name, a, wrap(tensor::Tensor::full(s, v, dtypeArg(in, a, ty.dtype)), in, a));
    });
  }
  def(torch, "is_tensor", [](py::Interpreter&, CallArgs& a) { return py::makeBool(!a.args.empty() && a.args[0]->kind == VK::Tensor); });
  def(torch, "compile", [](py::Interpreter& in, CallArgs& a) -> Value {
    CompileOptions opts = parseCompileOptions(in, a);
    // disable=True: torch.compile hands back what it was given (Dynamo's null decorator).
    Value disable = a.kwarg("disable");
    const bool disabled = disable && in.truthy(disable);
    if (a.args.empty() || py::isNone(a.args[0])) {
      // @torch.compile(backend=...) returns a decorator.
      return py::makeBuiltin("torch.compile.<decorator>", [opts, disabled](py::Interpreter& in, CallArgs& b) -> Value {
        if (!in.compiler || disabled) return b.args.at(0);
        return compilerOf(in)->compile(in, b.args.at(0), opts);
      });
    }
    if (!in.compiler || disabled) return a.args[0];  // --eager: torch.compile is the identity
    return compilerOf(in)->compile(in, a.args[0], opts);
  });

  installGradModeAndRandom(in, torch);
  installTorchMisc(in, torch);
  {
    auto amp = newModule(in, "torch.amp");
    torch->scope->vars["amp"] = amp;
    auto autocastMode = newModule(in, "torch.amp.autocast_mode");
    amp->scope->vars["autocast_mode"] = autocastMode;
    auto cpu = newModule(in, "torch.cpu");
    torch->scope->vars["cpu"] = cpu;
    auto cpuAmp = newModule(in, "torch.cpu.amp");
    cpu->scope->vars["amp"] = cpuAmp;
    installAutocast(in, torch, amp, autocastMode, cpuAmp);
  }
  // torch.autograd: the native _attach_function here; Function and its helpers come from the
  // prelude (torch.autograd.function.py, torch.autograd.py).
  auto autogradModule = newModule(in, "torch.autograd");
  torch->scope->vars["autograd"] = autogradModule;
  autogradModule->scope->vars["function"] = newModule(in, "torch.autograd.function");
  installAutogradFunction(in, autogradModule);

  auto nn = newModule(in, "torch.nn");
  torch->scope->vars["nn"] = nn;
  installNn(in, nn);
  // Filled by the prelude (engine/torch/prelude/torch.nn.init.py, torch.optim.py).
  nn->scope->vars["init"] = newModule(in, "torch.nn.init");
  nn->scope->vars["utils"] = newModule(in, "torch.nn.utils");
  auto optim = newModule(in, "torch.optim");
  torch->scope->vars["optim"] = optim;
  optim->scope->vars["lr_scheduler"] = newModule(in, "torch.optim.lr_scheduler");
  auto F = newModule(in, "torch.nn.functional");
  nn->scope->vars["functional"] = F;
  for (const auto& f : torchFns()) {
    const std::string prefix = "torch.nn.functional.";
    if (f.kind != ir::NodeKind::CallFunction || f.target.rfind(prefix, 0) != 0) continue;
    std::string target = f.target;
    def(F, f.target.substr(prefix.size()),
        [target](py::Interpreter& in, CallArgs& a) { return callTorch(in, target, ir::NodeKind::CallFunction, a); });
  }
  // F functions Dynamo records under their C++ names (F.linear is torch._C._nn.linear): set
  // last, so they replace the torch.nn.functional.* entries of the same name.
  for (auto [alias, target] : {std::pair{"linear", "torch._C._nn.linear"},
                               {"conv2d", "torch.conv2d"},
                               {"conv1d", "torch.conv1d"},
                               {"conv_transpose1d", "torch.conv_transpose1d"},
                               {"conv_transpose2d", "torch.conv_transpose2d"},
                               {"avg_pool2d", "torch._C._nn.avg_pool2d"},
                               {"gelu", "torch._C._nn.gelu"},
                               {"one_hot", "torch._C._nn.one_hot"},
                               {"scaled_dot_product_attention", "torch._C._nn.scaled_dot_product_attention"}}) {
    std::string t = target;
    if (!findTorchFn(t, ir::NodeKind::CallFunction)) continue;
    def(F, alias, [t](py::Interpreter& in, CallArgs& a) { return callTorch(in, t, ir::NodeKind::CallFunction, a); });
  }

  auto dynamo = newModule(in, "torch._dynamo");
  torch->scope->vars["_dynamo"] = dynamo;
  auto compiler = newModule(in, "torch.compiler");
  torch->scope->vars["compiler"] = compiler;
  installDynamo(in, dynamo, compiler);

  // time: wall and monotonic clocks for the benchmarks scripts write around their calls.
  // (Their figures differ from run to run; tests mask them.)
  auto timeMod = newModule(in, "time");
  auto secondsSince = [](auto clock) { return std::chrono::duration<double>(decltype(clock)::clock::now().time_since_epoch()).count(); };
  def(timeMod, "time",
      [secondsSince](py::Interpreter&, CallArgs&) { return py::makeFloat(secondsSince(std::chrono::system_clock::time_point{})); });
  def(timeMod, "time_ns", [](py::Interpreter&, CallArgs&) {
    return py::makeInt(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  });
  for (const char* name : {"perf_counter", "monotonic", "process_time"})
    def(timeMod, name,
        [secondsSince](py::Interpreter&, CallArgs&) { return py::makeFloat(secondsSince(std::chrono::steady_clock::time_point{})); });
  def(timeMod, "perf_counter_ns", [](py::Interpreter&, CallArgs&) {
    return py::makeInt(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
  });
  def(timeMod, "sleep", [](py::Interpreter& in, CallArgs& a) {
    double s = a.args.empty() ? -1 : number(in, a.args[0]);
    if (s < 0) in.raise("ValueError", "sleep length must be non-negative");
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(s, 60.0)));  // a script cannot park Kiln for long
    return py::None();
  });

  // torch.utils.data: filled by the prelude (engine/torch/prelude/torch.utils.data.py).
  auto utils = newModule(in, "torch.utils");
  torch->scope->vars["utils"] = utils;
  utils->scope->vars["data"] = newModule(in, "torch.utils.data");
  utils->scope->vars["hooks"] = newModule(in, "torch.utils.hooks");
  // torch.utils.checkpoint: the prelude's torch.utils.checkpoint.py on checkpoint_api.h's native.
  auto checkpointModule = newModule(in, "torch.utils.checkpoint");
  utils->scope->vars["checkpoint"] = checkpointModule;
  installCheckpoint(in, checkpointModule);

  auto math = newModule(in, "math");
  auto& M = math->scope->vars;
  M["pi"] = py::makeFloat(M_PI);
  M["e"] = py::makeFloat(M_E);
  M["tau"] = py::makeFloat(2 * M_PI);
  M["inf"] = py::makeFloat(INFINITY);
  M["nan"] = py::makeFloat(NAN);
  struct Fn1 {
    const char* name;
    double (*f)(double);
  };
  for (Fn1 f : {Fn1{"sqrt", [](double x) { return std::sqrt(x); }}, Fn1{"exp", [](double x) { return std::exp(x); }},
                Fn1{"sin", [](double x) { return std::sin(x); }}, Fn1{"cos", [](double x) { return std::cos(x); }},
                Fn1{"tan", [](double x) { return std::tan(x); }}, Fn1{"tanh", [](double x) { return std::tanh(x); }},
                Fn1{"erf", [](double x) { return std::erf(x); }}, Fn1{"fabs", [](double x) { return std::fabs(x); }},
                Fn1{"log2", [](double x) { return std::log2(x); }}, Fn1{"log10", [](double x) { return std::log10(x); }},
                Fn1{"atan", [](double x) { return std::atan(x); }}}) {
    std::string n = f.name;
    auto fn = f.f;
    def(math, n, [n, fn](py::Interpreter& in, CallArgs& a) {
      if (a.args.size() != 1)
        in.raise("TypeError", "math." + n + "() takes exactly one argument (" + std::to_string(a.args.size()) + " given)");
      double x = number(in, a.args[0]);
      if ((n == "sqrt" && x < 0) || ((n == "log2" || n == "log10") && x <= 0)) in.raise("ValueError", "math domain error");
      return py::makeFloat(fn(x));
    });
  }
  def(math, "log", [](py::Interpreter& in, CallArgs& a) {  // log(x[, base])
    double x = number(in, a.args.at(0));
    if (x <= 0) in.raise("ValueError", "math domain error");
    return py::makeFloat(a.args.size() > 1 ? std::log(x) / std::log(number(in, a.args[1])) : std::log(x));
  });
  def(math, "pow",
      [](py::Interpreter& in, CallArgs& a) { return py::makeFloat(std::pow(number(in, a.args.at(0)), number(in, a.args.at(1)))); });
  // (Of a symbolic size's quotient, the result carries the expression: math.ceil((s0 + 4) / 2).)
  def(math, "floor", [](py::Interpreter& in, CallArgs& a) {
    Value r = py::makeInt(static_cast<int64_t>(std::floor(number(in, a.args.at(0)))));
    return in.tracer ? tracerOf(in)->onSymbolicUnary("floor", a.args[0], r) : r;
  });
  def(math, "ceil", [](py::Interpreter& in, CallArgs& a) {
    Value r = py::makeInt(static_cast<int64_t>(std::ceil(number(in, a.args.at(0)))));
    return in.tracer ? tracerOf(in)->onSymbolicUnary("ceil", a.args[0], r) : r;
  });
  def(math, "isclose", [](py::Interpreter& in, CallArgs& a) {
    double x = number(in, a.args.at(0)), y = number(in, a.args.at(1));
    double rt = a.kwarg("rel_tol") ? number(in, a.kwarg("rel_tol")) : 1e-9, at = a.kwarg("abs_tol") ? number(in, a.kwarg("abs_tol")) : 0.0;
    return py::makeBool(std::fabs(x - y) <= std::max(rt * std::max(std::fabs(x), std::fabs(y)), at));
  });
  def(math, "isnan", [](py::Interpreter& in, CallArgs& a) { return py::makeBool(std::isnan(number(in, a.args.at(0)))); });
  def(math, "isinf", [](py::Interpreter& in, CallArgs& a) { return py::makeBool(std::isinf(number(in, a.args.at(0)))); });
  def(math, "prod", [](py::Interpreter& in, CallArgs& a) {
    Value acc = a.kwarg("start") ? a.kwarg("start") : py::makeInt(1);
    for (auto& v : in.iterate(a.args.at(0))) acc = in.binaryOp("*", acc, v);
    return acc;
  });

  // torch.distributed (native half; the rest is prelude/torch.distributed.py), DDP's module
  // torch.nn.parallel (prelude/torch.nn.parallel.py), and the environment reads in `os`.
  auto distributed = newModule(in, "torch.distributed");
  torch->scope->vars["distributed"] = distributed;
  installDistributed(in, distributed);
  auto parallel = newModule(in, "torch.nn.parallel");
  if (auto nnMod = torch->scope->vars.find("nn"); nnMod != torch->scope->vars.end() && nnMod->second->kind == VK::Module)
    py::as<py::ModuleObj>(nnMod->second)->scope->vars["parallel"] = parallel;
  installOs(in);

  // Devices last: torch.device, torch.cuda ..., and every factory above taking device=.
  installDeviceApi(in, torch);
  wrapFactories(torch);
  // torch.cuda.amp: filled by the prelude (torch.cuda.amp.py: the deprecated autocast and
  // GradScaler aliases).
  if (auto cuda = torch->scope->vars.find("cuda"); cuda != torch->scope->vars.end() && cuda->second->kind == VK::Module)
    py::as<py::ModuleObj>(cuda->second)->scope->vars["amp"] = newModule(in, "torch.cuda.amp");
}

}  // namespace kiln::torchapi
