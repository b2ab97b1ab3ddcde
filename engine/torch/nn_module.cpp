#include "engine/torch/nn_module.h"

#include "engine/torch/capture_hooks.h"

#include <set>

namespace kiln::torchapi {

using py::CallArgs;
using py::Value;
using py::VK;

namespace {

py::InstanceObj* inst(const Value& v) { return py::as<py::InstanceObj>(v); }

std::shared_ptr<py::DictObj> slot(py::Interpreter& in, const Value& self, const char* name) {
  Value d = inst(self)->dict->getStr(name);
  if (!d || d->kind != VK::Dict)
    in.raise("AttributeError", "cannot assign module attributes before Module.__init__() call (missing " + std::string(name) + ")");
  return py::asShared<py::DictObj>(d);
}

bool isModule(py::Interpreter& in, const Value& v) {
  if (v->kind != VK::Instance) return false;
  auto base = in.builtinClass("Module");
  return base && inst(v)->cls->isSubclassOf(base.get());
}

// named_parameters / named_buffers walk, in registration order. As PyTorch's
// (remove_duplicate=True), a module or tensor reached twice (weight tying: lm_head.weight is
// embed.weight) is listed once, under its first name.
struct Walk {
  std::set<const py::Obj*> modules, tensors;
};
void walk(py::Interpreter& in, const Value& m, const std::string& prefix, const char* slotName,
          std::vector<std::pair<std::string, Value>>& out, Walk& seen, bool recurse = true) {
  if (!seen.modules.insert(m.get()).second) return;
  for (auto& [k, v] : slot(in, m, slotName)->items)
    if (!py::isNone(v) && seen.tensors.insert(v.get()).second) out.emplace_back(prefix + in.str(k), v);
  if (!recurse) return;
  for (auto& [k, child] : slot(in, m, "_modules")->items)
    if (!py::isNone(child)) walk(in, child, prefix + in.str(k) + ".", slotName, out, seen);
}

// The entries of named_parameters(prefix='', recurse=True) / parameters(recurse=True) ...
std::vector<std::pair<std::string, Value>> walkArgs(py::Interpreter& in, const CallArgs& a, const char* slotName, bool named) {
  std::vector<std::pair<std::string, Value>> out;
  Value prefix = named ? (a.args.size() > 1 ? a.args[1] : a.kwarg("prefix")) : nullptr;
  Value recurse = named ? (a.args.size() > 2 ? a.args[2] : a.kwarg("recurse")) : (a.args.size() > 1 ? a.args[1] : a.kwarg("recurse"));
  std::string p = prefix && !py::isNone(prefix) ? in.str(prefix) : "";
  Walk seen;
  walk(in, a.args.at(0), p.empty() ? "" : p + ".", slotName, out, seen, !recurse || in.truthy(recurse));
  return out;
}

Value pairs(const std::vector<std::pair<std::string, Value>>& items) {
  auto it = std::make_shared<py::IteratorObj>();
  for (auto& [k, v] : items) it->items.push_back(py::makeTuple({py::makeStr(k), v}));
  return it;
}

// The entries of one of a module's hook dicts (_forward_hooks ...), or null when it has none.
std::shared_ptr<py::DictObj> hookDict(const Value& self, const char* name) {
  Value d = inst(self)->dict->getStr(name);
  if (!d || d->kind != VK::Dict || py::as<py::DictObj>(d)->items.empty()) return nullptr;
  return py::asShared<py::DictObj>(d);
}

bool hookFlag(const Value& self, const char* name, const Value& id) {
  auto d = hookDict(self, name);
  return d && d->get(id);
}

// Module._call_impl with forward pre-hooks and forward hooks (registered by the prelude's
// register_forward_pre_hook / register_forward_hook): a pre-hook may replace the arguments
// (and, with_kwargs, the keyword arguments), a forward hook the result.
Value callWithHooks(py::Interpreter& in, const Value& self, const Value& forward, const CallArgs& call) {
  Value args = py::makeTuple(call.args);
  auto kwargs = std::make_shared<py::DictObj>();
  for (const auto& [k, v] : call.kwargs) kwargs->setStr(k, v);
  auto invoke = [&](const Value& hook, std::vector<Value> hookArgs) {
    CallArgs c;
    c.args = std::move(hookArgs);
    c.span = call.span;
    return in.call(hook, c);
  };
  if (auto pre = hookDict(self, "_forward_pre_hooks")) {
    const auto hooks = pre->items;  // a hook may remove itself
    for (const auto& [id, hook] : hooks) {
      if (hookFlag(self, "_forward_pre_hooks_with_kwargs", id)) {
        Value r = invoke(hook, {self, args, kwargs});
        if (py::isNone(r)) continue;
        if (r->kind != VK::Tuple || py::as<py::TupleObj>(r)->items.size() != 2 || py::as<py::TupleObj>(r)->items[1]->kind != VK::Dict)
          in.raise("RuntimeError", "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got " + in.str(r) + ".");
        args = py::as<py::TupleObj>(r)->items[0];
        kwargs = py::asShared<py::DictObj>(py::as<py::TupleObj>(r)->items[1]);
      } else {
        Value r = invoke(hook, {self, args});
        if (py::isNone(r)) continue;
        args = r->kind == VK::Tuple ? r : py::makeTuple({r});
      }
    }
  }
  CallArgs fwd;
  fwd.args = in.iterate(args);
  for (const auto& [k, v] : kwargs->items) fwd.kwargs.emplace_back(in.str(k), v);
  fwd.span = call.span;
  Value result = in.call(forward, fwd);
  if (auto post = hookDict(self, "_forward_hooks")) {
    const auto hooks = post->items;
    for (const auto& [id, hook] : hooks) {
      Value r = hookFlag(self, "_forward_hooks_with_kwargs", id) ? invoke(hook, {self, args, kwargs, result})
                                                                 : invoke(hook, {self, args, result});
      if (!py::isNone(r)) result = r;
    }
  }
  return result;
}

}  // namespace

Value callForwardWithHooks(py::Interpreter& in, const Value& module, const Value& forward, CallArgs& call) {
  if (module->kind == VK::Instance && (hookDict(module, "_forward_pre_hooks") || hookDict(module, "_forward_hooks")))
    return callWithHooks(in, module, forward, call);
  return in.call(forward, call);
}

void installNn(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& nn) {
  auto cls = std::make_shared<py::ClassObj>();
  cls->name = "Module";
  cls->qualname = "Module";
  cls->mro.push_back(cls);
  if (auto obj = in.builtinClass("object")) cls->mro.push_back(obj);
  auto method = [&](const std::string& name, py::NativeFn fn) { cls->dict[name] = py::makeBuiltin("Module." + name, std::move(fn)); };

  method("__init__", [](py::Interpreter&, CallArgs& a) {
    auto* m = inst(a.args.at(0));
    m->dict->setStr("training", py::True());
    m->dict->setStr("_parameters", std::make_shared<py::DictObj>());
    m->dict->setStr("_buffers", std::make_shared<py::DictObj>());
    m->dict->setStr("_modules", std::make_shared<py::DictObj>());
    return py::None();
  });
  method("__setattr__", [](py::Interpreter& in, CallArgs& a) {
    const Value& self = a.args.at(0);
    std::string name = in.str(a.args.at(1));
    const Value& v = a.args.at(2);
    auto* m = inst(self);
    if (v->kind == VK::Tensor && py::as<py::TensorObj>(v)->parameter) {
      slot(in, self, "_parameters")->setStr(name, v);
      m->dict->erase(py::makeStr(name));
      return py::None();
    }
    if (isModule(in, v)) {
      slot(in, self, "_modules")->setStr(name, v);
      m->dict->erase(py::makeStr(name));
      return py::None();
    }
    for (const char* s : {"_parameters", "_buffers", "_modules"}) {
      Value d = m->dict->getStr(s);
      if (d && d->kind == VK::Dict && py::as<py::DictObj>(d)->getStr(name)) {
        py::as<py::DictObj>(d)->setStr(name, v);
        return py::None();
      }
    }
    m->dict->setStr(name, v);
    return py::None();
  });
  method("__getattr__", [](py::Interpreter& in, CallArgs& a) -> Value {
    const Value& self = a.args.at(0);
    std::string name = in.str(a.args.at(1));
    for (const char* s : {"_parameters", "_buffers", "_modules"}) {
      Value d = inst(self)->dict->getStr(s);
      if (d && d->kind == VK::Dict)
        if (Value v = py::as<py::DictObj>(d)->getStr(name)) return v;
    }
    in.raise("AttributeError", "'" + inst(self)->cls->name + "' object has no attribute '" + name + "'");
  });
  method("__delattr__", [](py::Interpreter& in, CallArgs& a) -> Value {
    const Value& self = a.args.at(0);
    Value name = a.args.at(1);
    for (const char* s : {"_parameters", "_buffers", "_modules"}) {
      Value d = inst(self)->dict->getStr(s);
      if (d && d->kind == VK::Dict && py::as<py::DictObj>(d)->erase(name)) return py::None();
    }
    in.genericDelAttr(self, in.str(name));
    return py::None();
  });
  method("__call__", [](py::Interpreter& in, CallArgs& a) -> Value {
    Value self = a.args.at(0);
    CallArgs rest = a;
    rest.args.erase(rest.args.begin());
    const bool hooks = hookDict(self, "_forward_pre_hooks") || hookDict(self, "_forward_hooks");
    // module.compile(): the compiled forward, inside the module's hooks as PyTorch's compiled
    // _call_impl runs them.
    if (auto st = std::static_pointer_cast<CompiledModuleState>(inst(self)->native); st && st->compiledCall)
      return hooks ? callWithHooks(in, self, st->compiledCall, rest) : in.call(st->compiledCall, rest);
    Value forward = in.getAttr(self, "forward");
    if (in.tracer) tracerOf(in)->onBoundMethod(self, "forward", forward);  // mod.forward = other.__get__(mod)
    if (hooks) return callWithHooks(in, self, forward, rest);
    return in.call(forward, rest);
  });
  method("forward", [](py::Interpreter& in, CallArgs& a) -> Value {
    in.raise("NotImplementedError", "Module [" + inst(a.args.at(0))->cls->name + "] is missing the required \"forward\" function");
  });
  method("compile", [](py::Interpreter& in, CallArgs& a) {
    if (!in.compiler) return py::None();  // --eager
    CallArgs opts = a;
    opts.args.clear();
    compilerOf(in)->compileModuleInPlace(in, a.args.at(0), parseCompileOptions(in, opts));
    return py::None();
  });
  method("train", [](py::Interpreter& in, CallArgs& a) {
    bool mode = a.args.size() < 2 || in.truthy(a.args[1]);
    std::function<void(const Value&)> set = [&](const Value& m) {
      inst(m)->dict->setStr("training", py::makeBool(mode));
      for (auto& [k, c] : slot(in, m, "_modules")->items)
        if (!py::isNone(c)) set(c);
    };
    set(a.args.at(0));
    return a.args[0];
  });
  method("eval", [](py::Interpreter& in, CallArgs& a) {
    CallArgs b;
    b.args = {py::False()};
    return in.call(in.getAttr(a.args.at(0), "train"), b);
  });
  method("named_parameters", [](py::Interpreter& in, CallArgs& a) { return pairs(walkArgs(in, a, "_parameters", true)); });
  method("parameters", [](py::Interpreter& in, CallArgs& a) {
    auto it = std::make_shared<py::IteratorObj>();
    for (auto& [k, v] : walkArgs(in, a, "_parameters", false)) it->items.push_back(v);
    return Value(it);
  });
  method("named_buffers", [](py::Interpreter& in, CallArgs& a) { return pairs(walkArgs(in, a, "_buffers", true)); });
  method("register_buffer", [](py::Interpreter& in, CallArgs& a) {
    slot(in, a.args.at(0), "_buffers")->setStr(in.str(a.args.at(1)), a.args.at(2));
    return py::None();
  });
  method("children", [](py::Interpreter& in, CallArgs& a) {
    auto it = std::make_shared<py::IteratorObj>();
    for (auto& [k, c] : slot(in, a.args.at(0), "_modules")->items) it->items.push_back(c);
    return Value(it);
  });
  nn->scope->vars["Module"] = cls;
  in.registerClass(cls);
  in.registerModule(nn);

  // nn.Parameter(tensor, requires_grad=True)
  auto param = std::make_shared<py::ClassObj>();
  param->name = param->qualname = "Parameter";
  param->mro.push_back(param);
  param->dict["__new__"] = py::makeBuiltin("Parameter.__new__", [](py::Interpreter& in, CallArgs& a) -> Value {
    if (a.args.size() < 2 || a.args[1]->kind != VK::Tensor) in.raise("TypeError", "Parameter() expects a Tensor");
    auto* src = py::as<py::TensorObj>(a.args[1]);
    auto p = std::make_shared<py::TensorObj>(src->t.detach());  // shares the data, is its own leaf
    bool rg = !(a.args.size() > 2 && !in.truthy(a.args[2])) && !(a.kwarg("requires_grad") && !in.truthy(a.kwarg("requires_grad")));
    p->t.setRequiresGrad(rg);
    p->parameter = true;
    return p;
  });
  nn->scope->vars["Parameter"] = param;
}

}  // namespace kiln::torchapi
