// Python's object model: attribute lookup with descriptors (functions bind, staticmethod,
// classmethod, property with setter and deleter, any object with __get__/__set__), __getattr__
// and __setattr__ hooks, classes with metaclasses, __init_subclass__ and __set_name__,
// __new__ / __init__, super(), isinstance, and instances of user subclasses of builtin types
// (class D(dict) keeps its class while behaving as a dict).
#include "engine/autograd/grad_mode.h"
#include "engine/python/coroutine.h"
#include "engine/python/interpreter.h"
#include "engine/python/tensor_hooks.h"
#include "engine/python/trace_hooks.h"

#include <algorithm>
#include <set>

namespace kiln::py {

namespace {
// CPython's __class__ cell: a function written in a class body, also one a classmethod,
// staticmethod or property wraps, knows its class, so zero-argument super() works in it.
void markClassDef(const Value& v, const std::shared_ptr<ClassObj>& c) {
  if (v->kind == VK::Function) {
    as<FunctionObj>(v)->attrs["__class_def__"] = c;
    return;
  }
  if (v->kind != VK::Instance) return;
  auto* inst = as<InstanceObj>(v);
  const std::string& cn = inst->cls->name;
  if (inst->cls->module || (cn != "classmethod" && cn != "staticmethod" && cn != "property")) return;
  for (const char* slot : {"fn", "fget", "fset", "fdel"})
    if (Value f = inst->dict->getStr(slot); f && f->kind == VK::Function) as<FunctionObj>(f)->attrs["__class_def__"] = c;
}
}  // namespace

std::shared_ptr<ClassObj> Interpreter::classOf(const Value& v) {
  if (v->sub) return v->sub->cls;
  switch (v->kind) {
    case VK::Instance: return as<InstanceObj>(v)->cls;
    case VK::Class: {
      auto* c = as<ClassObj>(v);
      return c->meta ? c->meta : builtinClass("type");
    }
    default: {
      if (isTorchSize(v))
        if (auto c = builtinClass("Size")) return c;  // torch.Size, a tuple subclass (torch_module.cpp)
      const std::string name = typeName(v);
      if (auto c = builtinClass(name)) return c;
      // A type with no class of its own yet (function, generator, module ...): made on demand,
      // so type(x).__name__ and isinstance(x, object) work.
      auto c = std::make_shared<ClassObj>();
      c->name = c->qualname = name;
      c->mro.push_back(c);
      if (auto o = builtinClass("object")) c->mro.push_back(o);
      classes_[name] = c;
      return c;
    }
  }
}

bool Interpreter::isDataDescriptor(const Value& attr) {
  if (!attr || attr->kind != VK::Instance) return false;
  auto* inst = as<InstanceObj>(attr);
  if (inst->cls->name == "property") return true;
  return inst->cls->lookup("__set__") != nullptr || inst->cls->lookup("__delete__") != nullptr;
}

Value Interpreter::bindAttr(const Value& attr, const Value& instance, const std::shared_ptr<ClassObj>& owner) {
  switch (attr->kind) {
    case VK::Function: return instance ? std::make_shared<BoundMethodObj>(instance, attr) : attr;
    case VK::Builtin: return instance && as<BuiltinObj>(attr)->isMethod ? std::make_shared<BoundMethodObj>(instance, attr) : attr;
    case VK::Instance: {
      auto* d = as<InstanceObj>(attr);
      const std::string& cn = d->cls->name;
      if (cn == "staticmethod") return d->dict->getStr("fn");
      if (cn == "classmethod") {
        Value target = owner ? Value(owner) : (instance ? Value(classOf(instance)) : nullptr);
        return std::make_shared<BoundMethodObj>(target, d->dict->getStr("fn"));
      }
      if (cn == "property") {
        if (!instance) return attr;
        Value fget = d->dict->getStr("fget");
        if (!fget || isNone(fget)) raise("AttributeError", "property has no getter");
        CallArgs a;
        a.args.push_back(instance);
        return call(fget, a);
      }
      if (Value get = d->cls->lookup("__get__")) {
        CallArgs a;
        a.args = {instance ? instance : None(), owner ? Value(owner) : None()};
        return call(std::make_shared<BoundMethodObj>(attr, get), a);
      }
      return attr;
    }
    default: return attr;
  }
}

Value Interpreter::getAttrOrNull(const Value& obj, const std::string& name) {
  try {
    return getAttr(obj, name);
  } catch (const PyError& e) {
    if (e.type() == "AttributeError") return nullptr;
    throw;
  }
}

Value Interpreter::instanceAttr(const Value& obj, const std::shared_ptr<ClassObj>& cls, const std::shared_ptr<DictObj>& dict,
                                const std::string& name, bool* found) {
  *found = true;
  Value clsAttr = cls->lookup(name);
  // A data descriptor wins over the instance dict, unless it has no __get__ (only __set__):
  // then the instance's own value is read, as CPython does.
  const bool getter =
      isDataDescriptor(clsAttr) && (as<InstanceObj>(clsAttr)->cls->name == "property" || as<InstanceObj>(clsAttr)->cls->lookup("__get__"));
  if (getter) return bindAttr(clsAttr, obj, cls);
  if (dict)
    if (Value v = dict->getStr(name)) return v;
  if (clsAttr) return bindAttr(clsAttr, obj, cls);
  if (name == "__class__") return cls;
  if (name == "__dict__" && dict) return dict;
  *found = false;
  return nullptr;
}

Value Interpreter::objectGetAttribute(const Value& obj, const std::string& name, bool* found) {
  auto* inst = as<InstanceObj>(obj);
  return instanceAttr(obj, inst->cls, inst->dict, name, found);
}

Value Interpreter::getAttr(const Value& obj, const std::string& name) {
  // Instances of user subclasses of builtin types: the user's class first.
  if (obj->sub && obj->kind != VK::Instance) {
    bool found = false;
    Value v = instanceAttr(obj, obj->sub->cls, obj->sub->attrs, name, &found);
    if (found) return v;
  }
  switch (obj->kind) {
    case VK::Module: {
      auto* m = as<ModuleObj>(obj);
      auto it = m->scope->vars.find(name);
      if (it != m->scope->vars.end()) return it->second;
      auto sub = modules_.find(m->name + "." + name);
      if (sub != modules_.end()) return sub->second;
      if (name == "__name__") return makeStr(m->name);
      if (name == "__dict__") {
        auto d = std::make_shared<DictObj>();
        for (const auto& [k, v] : m->scope->vars) d->setStr(k, v);
        return d;
      }
      // PEP 562: a module-level __getattr__ answers names the module does not define.
      auto ga = m->scope->vars.find("__getattr__");
      if (ga != m->scope->vars.end() && name != "__getattr__") {
        CallArgs a;
        a.args.push_back(makeStr(name));
        return call(ga->second, a);
      }
      raise("AttributeError", "module '" + m->name + "' has no attribute '" + name + "'");
    }
    case VK::Instance: {
      auto* inst = as<InstanceObj>(obj);
      if (inst->cls->name == "super") return superAttr(obj, name);
      bool found = false;
      Value v = instanceAttr(obj, inst->cls, inst->dict, name, &found);
      if (found) return v;
      if (Value ga = inst->cls->lookup("__getattr__")) {
        CallArgs a;
        a.args.push_back(makeStr(name));
        return call(bindAttr(ga, obj, inst->cls), a);
      }
      raise("AttributeError", "'" + inst->cls->name + "' object has no attribute '" + name + "'");
    }
    case VK::Class: {
      auto c = asShared<ClassObj>(obj);
      // Its own MRO first (functions stay functions, classmethods bind to the class) ...
      if (Value v = c->lookup(name)) return bindAttr(v, nullptr, c);
      // ... then its metaclass (methods bind to the class object).
      if (c->meta)
        if (Value v = c->meta->lookup(name)) return bindAttr(v, obj, c->meta);
      if (name == "__name__") return makeStr(c->name);
      if (name == "__qualname__") return makeStr(c->qualname);
      if (name == "__module__") return makeStr(c->module ? c->module->name : "builtins");
      if (name == "__doc__") return None();
      if (name == "__bases__") {
        std::vector<Value> bases;
        for (auto& b : c->bases) bases.push_back(b);
        if (bases.empty() && c->name != "object")
          if (auto o = builtinClass("object")) bases.push_back(o);
        return makeTuple(bases);
      }
      if (name == "__base__") return c->bases.empty() ? (c->name == "object" ? None() : Value(builtinClass("object"))) : Value(c->bases[0]);
      if (name == "__mro__") {
        std::vector<Value> mro(c->mro.begin(), c->mro.end());
        return makeTuple(mro);
      }
      if (name == "__dict__") {
        auto d = std::make_shared<DictObj>();
        for (const auto& [k, v] : c->dict) d->setStr(k, v);
        return d;
      }
      if (name == "__class__") return classOf(obj);
      if (name == "__subclasses__")
        return makeBuiltin("type.__subclasses__", [](Interpreter& in, CallArgs&) -> Value {
          in.raise("AttributeError", "__subclasses__ is not available: Kiln runs scripts sandboxed");
        });
      if (c->meta)
        if (Value ga = c->meta->lookup("__getattr__")) {
          CallArgs a;
          a.args.push_back(makeStr(name));
          return call(bindAttr(ga, obj, c->meta), a);
        }
      raise("AttributeError", "type object '" + c->name + "' has no attribute '" + name + "'");
    }
    case VK::Tensor: {
      if (Value v = tensorHooks().getAttr(*this, obj, name)) return v;
      raise("AttributeError", "'Tensor' object has no attribute '" + name + "'");
    }
    case VK::Function: {
      auto* f = as<FunctionObj>(obj);
      auto it = f->attrs.find(name);
      if (it != f->attrs.end() && name != "__class_def__") return it->second;
      if (name == "__name__") return makeStr(f->name);
      if (name == "__qualname__") return makeStr(f->qualname);
      if (name == "__module__") return makeStr(f->module ? f->module->name : "builtins");
      if (name == "__doc__") return f->def && !f->def->docstring.empty() ? makeStr(f->def->docstring) : None();
      if (name == "__defaults__") {
        std::vector<Value> d;
        for (size_t i = 0; i < f->params.size(); ++i)
          if (f->params[i].kind == Param::Normal && f->defaults[i]) d.push_back(f->defaults[i]);
        return d.empty() ? None() : makeTuple(d);
      }
      if (name == "__kwdefaults__") {
        auto d = std::make_shared<DictObj>();
        for (size_t i = 0; i < f->params.size(); ++i)
          if (f->params[i].kind == Param::KwOnly && f->defaults[i]) d->setStr(f->params[i].name, f->defaults[i]);
        return d->items.empty() ? None() : Value(d);
      }
      if (name == "__dict__") {
        auto d = std::make_shared<DictObj>();
        for (const auto& [k, v] : f->attrs)
          if (k != "__class_def__") d->setStr(k, v);
        return d;
      }
      if (name == "__annotations__") return std::make_shared<DictObj>();
      if (name == "__code__") return functionCode(*f);
      if (name == "__get__")
        return makeBuiltin("function.__get__", [obj](Interpreter& in, CallArgs& a) -> Value {
          if (a.args.empty() || isNone(a.args[0])) return obj;
          (void)in;
          return std::make_shared<BoundMethodObj>(a.args[0], obj);
        });
      if (name == "__globals__" || name == "__closure__" || name == "__builtins__")
        raise("AttributeError", "function." + name + " is not available: Kiln runs scripts sandboxed");
      if (name == "__call__") return obj;
      raise("AttributeError", "'function' object has no attribute '" + name + "'");
    }
    case VK::Builtin: {
      auto* b = as<BuiltinObj>(obj);
      if (b->wrapped && name != "__wrapped__")
        if (Value v = getAttrOrNull(b->wrapped, name)) return v;  // torch.compiler.disable(fn).__name__
      if (name == "__name__") return makeStr(b->name.substr(b->name.rfind('.') + 1));
      if (name == "__qualname__") return makeStr(b->name);
      if (name == "__wrapped__" && b->wrapped) return b->wrapped;
      if (name == "__call__") return obj;
      if (name == "__doc__") return None();
      raise("AttributeError", "'builtin_function_or_method' object has no attribute '" + name + "'");
    }
    case VK::BoundMethod: {
      auto* bm = as<BoundMethodObj>(obj);
      if (name == "__self__") return bm->self;
      if (name == "__func__") return bm->fn;
      return getAttr(bm->fn, name);
    }
    case VK::Generator:
    case VK::Iterator: return iteratorAttr(obj, name);
    default: break;
  }
  // Methods of builtin types (str.join, list.append, dict.items ...) live on their classes.
  std::string tn = typeName(obj);
  if (auto cls = isTorchSize(obj) ? classOf(obj) : builtinClass(tn)) {
    if (Value m = cls->lookup(name)) return bindAttr(m, obj, cls);
    if (name == "__class__") return cls;
  }
  if (obj->kind == VK::DType) {
    auto d = as<DTypeObj>(obj)->d;
    if (name == "is_floating_point") return makeBool(ir::isFloating(d));
    if (name == "itemsize") return makeInt(static_cast<int64_t>(ir::itemSize(d)));
    if (name == "is_complex") return False();
    if (name == "is_signed") return makeBool(d != ir::DType::Bool);
  }
  raise("AttributeError", "'" + tn + "' object has no attribute '" + name + "'");
}

Value Interpreter::functionCode(const FunctionObj& f) {
  // A read-only stand-in for the code object: what introspection usually asks.
  auto cls = builtinClass("code");
  auto code = std::make_shared<InstanceObj>(cls);
  code->dict->setStr("co_name", makeStr(f.name));
  code->dict->setStr("co_qualname", makeStr(f.qualname));
  code->dict->setStr("co_filename", makeStr(f.module ? f.module->file : file_));
  code->dict->setStr("co_firstlineno", makeInt(f.def ? f.def->span.line : f.lambda ? f.lambda->span.line : 0));
  std::vector<Value> names;
  int64_t argc = 0, kwonly = 0;
  for (const auto& p : f.params) {
    names.push_back(makeStr(p.name));
    argc += p.kind == Param::Normal;
    kwonly += p.kind == Param::KwOnly;
  }
  code->dict->setStr("co_varnames", makeTuple(names));
  code->dict->setStr("co_argcount", makeInt(argc));
  code->dict->setStr("co_kwonlyargcount", makeInt(kwonly));
  int64_t flags = 0;
  for (const auto& p : f.params) flags |= p.kind == Param::VarArgs ? 0x04 : p.kind == Param::VarKw ? 0x08 : 0;
  if (f.def && f.def->isGenerator) flags |= 0x20;
  code->dict->setStr("co_flags", makeInt(flags));
  return code;
}

void Interpreter::setAttr(const Value& obj, const std::string& name, Value v) {
  if (tracer && name == "__class__" && obj->kind == VK::Instance) {
    // Dynamo's break at the STORE_ATTR (gb4271): the assignment runs eagerly, the rest resumes.
    GraphBreak u("KB045", "__class__ assignment on user-defined object",
                 "Dynamo does not support reassigning __class__ on user-defined objects.",
                 {"Move the __class__ assignment outside of the torch.compile region."});
    u.where = currentLocation();
    u.stack = userStack();
    throw u;
  }
  if (tracer) tracer->onSetAttr(obj, name, v);
  if (name == "__class__" && obj->kind == VK::Instance) {
    // obj.__class__ = Other: between classes written in Python (CPython refuses builtin types).
    if (v->kind != VK::Class) raise("TypeError", "__class__ must be set to a class, not '" + typeName(v) + "' object");
    auto* inst = as<InstanceObj>(obj);
    auto target = asShared<ClassObj>(v);
    auto builtin = [&](const std::shared_ptr<ClassObj>& c) { return !c->module && builtinClass(c->name) == c; };
    if (builtin(target) || builtin(inst->cls))
      raise("TypeError", "__class__ assignment only supported for mutable types or ModuleType subclasses");
    inst->cls = target;
    return;
  }
  std::shared_ptr<ClassObj> cls = obj->kind == VK::Instance || obj->sub ? classOf(obj) : nullptr;
  if (cls) {
    // A __setattr__ of the class (Python or native, as nn.Module's) decides; object's default
    // is the plain store below.
    Value sa = cls->lookup("__setattr__");
    if (sa && !(sa->kind == VK::Builtin && as<BuiltinObj>(sa)->name == "object.__setattr__")) {
      CallArgs a;
      a.args = {makeStr(name), std::move(v)};
      call(bindAttr(sa, obj, cls), a);
      return;
    }
    genericSetAttr(obj, name, std::move(v));
    return;
  }
  switch (obj->kind) {
    case VK::Function: {
      auto* f = as<FunctionObj>(obj);
      // The defaults a call binds: __defaults__ fills the last positional parameters,
      // __kwdefaults__ the keyword-only ones by name.
      if (name == "__defaults__") {
        if (!isNone(v) && v->kind != VK::Tuple) raise("TypeError", "__defaults__ must be set to a tuple object");
        std::vector<Value> d = isNone(v) ? std::vector<Value>{} : as<TupleObj>(v)->items;
        std::vector<size_t> positional;
        for (size_t i = 0; i < f->params.size(); ++i)
          if (f->params[i].kind == Param::Normal) positional.push_back(i), f->defaults[i] = nullptr;
        for (size_t k = 0; k < d.size() && k < positional.size(); ++k)
          f->defaults[positional[positional.size() - 1 - k]] = d[d.size() - 1 - k];
        return;
      }
      if (name == "__kwdefaults__") {
        if (!isNone(v) && v->kind != VK::Dict) raise("TypeError", "__kwdefaults__ must be set to a dict object");
        for (size_t i = 0; i < f->params.size(); ++i)
          if (f->params[i].kind == Param::KwOnly) f->defaults[i] = isNone(v) ? nullptr : as<DictObj>(v)->getStr(f->params[i].name);
        return;
      }
      f->attrs[name] = std::move(v);
      return;
    }
    case VK::Class: {
      auto* c = as<ClassObj>(obj);
      if (c->meta)
        if (Value sa = c->meta->lookup("__setattr__"); sa && sa->kind == VK::Function) {
          CallArgs a;
          a.args = {makeStr(name), std::move(v)};
          call(bindAttr(sa, obj, c->meta), a);
          return;
        }
      c->dict[name] = std::move(v);
      return;
    }
    case VK::Module: {
      auto* m = as<ModuleObj>(obj);
      if (m->onSetAttr) m->onSetAttr(*this, name, v);
      m->scope->vars[name] = std::move(v);
      return;
    }
    case VK::Tensor: {
      if (tensorHooks().setAutogradAttr(*this, obj, name, v)) return;  // .grad, .requires_grad, .data
      // Any other attribute is the program's own (x.tag = 3), as on a Python object; PyTorch's
      // own read-only attributes stay read-only.
      static const std::set<std::string> kReadOnly = {"shape", "dtype", "ndim", "device", "is_cuda", "T", "mT", "grad_fn", "is_leaf"};
      if (!kReadOnly.count(name)) {
        auto* t = as<TensorObj>(obj);
        if (!t->attrs) t->attrs = std::make_shared<DictObj>();
        t->attrs->setStr(name, std::move(v));
        return;
      }
      break;
    }
    default: break;
  }
  raise("AttributeError", "'" + typeName(obj) + "' object attribute '" + name + "' is read-only");
}

void Interpreter::genericSetAttr(const Value& obj, const std::string& name, Value v) {
  auto cls = classOf(obj);
  Value clsAttr = cls->lookup(name);
  if (clsAttr && clsAttr->kind == VK::Instance) {
    auto* d = as<InstanceObj>(clsAttr);
    if (d->cls->name == "property") {
      Value fset = d->dict->getStr("fset");
      if (!fset || isNone(fset)) raise("AttributeError", "property '" + name + "' of '" + cls->name + "' object has no setter");
      CallArgs a;
      a.args = {obj, std::move(v)};
      call(fset, a);
      return;
    }
    if (Value set = d->cls->lookup("__set__")) {
      CallArgs a;
      a.args = {obj, std::move(v)};
      call(std::make_shared<BoundMethodObj>(clsAttr, set), a);
      return;
    }
  }
  std::shared_ptr<DictObj> dict;
  if (obj->kind == VK::Instance) dict = as<InstanceObj>(obj)->dict;
  else if (obj->sub) {
    if (!obj->sub->attrs) obj->sub->attrs = std::make_shared<DictObj>();
    dict = obj->sub->attrs;
  }
  if (!dict) raise("AttributeError", "'" + typeName(obj) + "' object has no attribute '" + name + "'");
  dict->setStr(name, std::move(v));
}

// object.__delattr__: a property's deleter, a descriptor's __delete__, else the instance dict.
void Interpreter::genericDelAttr(const Value& obj, const std::string& name) {
  auto cls = classOf(obj);
  Value clsAttr = cls->lookup(name);
  if (clsAttr && clsAttr->kind == VK::Instance) {
    auto* d = as<InstanceObj>(clsAttr);
    if (d->cls->name == "property") {
      Value fdel = d->dict->getStr("fdel");
      if (!fdel || isNone(fdel)) raise("AttributeError", "property '" + name + "' of '" + cls->name + "' object has no deleter");
      CallArgs a;
      a.args = {obj};
      call(fdel, a);
      return;
    }
    if (Value del = d->cls->lookup("__delete__")) {
      CallArgs a;
      a.args = {obj};
      call(std::make_shared<BoundMethodObj>(clsAttr, del), a);
      return;
    }
  }
  std::shared_ptr<DictObj> dict = obj->kind == VK::Instance ? as<InstanceObj>(obj)->dict : obj->sub ? obj->sub->attrs : nullptr;
  if (!dict || !dict->erase(makeStr(name))) raise("AttributeError", "'" + cls->name + "' object has no attribute '" + name + "'");
}

void Interpreter::delAttr(const Value& obj, const std::string& name) {
  if (tracer) tracer->onSetAttr(obj, name, nullptr);
  if (obj->kind == VK::Instance || obj->sub) {
    auto cls = classOf(obj);
    // A class's own __delattr__ (Python or native, as nn.Module's); object's is the code below.
    Value da = cls->lookup("__delattr__");
    if (da && !(da->kind == VK::Builtin && as<BuiltinObj>(da)->name == "object.__delattr__")) {
      CallArgs a;
      a.args = {makeStr(name)};
      call(bindAttr(da, obj, cls), a);
      return;
    }
    genericDelAttr(obj, name);
    return;
  }
  if (obj->kind == VK::Class) {
    auto* c = as<ClassObj>(obj);
    if (!c->dict.erase(name)) raise("AttributeError", "type object '" + c->name + "' has no attribute '" + name + "'");
    return;
  }
  if (obj->kind == VK::Function) {
    if (!as<FunctionObj>(obj)->attrs.erase(name)) raise("AttributeError", "'function' object has no attribute '" + name + "'");
    return;
  }
  if (obj->kind == VK::Tensor) {
    auto* t = as<TensorObj>(obj);
    if (t->attrs && t->attrs->erase(makeStr(name))) return;
  }
  if (obj->kind == VK::Module) {
    if (as<ModuleObj>(obj)->scope->vars.erase(name)) return;
  }
  raise("AttributeError", "'" + typeName(obj) + "' object has no attribute '" + name + "'");
}

// ---- instances ----

Value Interpreter::instantiate(const std::shared_ptr<ClassObj>& cls, CallArgs& args) {
  // A metaclass's __call__ (a Python one) takes over instance creation.
  if (cls->meta)
    if (Value mc = cls->meta->lookup("__call__"); mc && mc->kind == VK::Function) {
      CallArgs a = args;
      return callFunction(*as<FunctionObj>(mc), a, cls);
    }
  return createInstance(cls, args);
}

Value Interpreter::createInstance(const std::shared_ptr<ClassObj>& cls, CallArgs& args) {
  Value obj;
  Value nw = cls->lookup("__new__");
  if (nw && !(nw->kind == VK::Builtin && as<BuiltinObj>(nw)->name == "object.__new__")) {
    // __new__ is a static method taking the class (Python's, or a builtin type's native one).
    if (nw->kind == VK::Instance && as<InstanceObj>(nw)->cls->name == "staticmethod") nw = as<InstanceObj>(nw)->dict->getStr("fn");
    CallArgs a = args;
    a.args.insert(a.args.begin(), cls);
    obj = call(nw, a);
    // A builtin type's __new__ makes the builtin value: a user subclass gets its class.
    if (obj->kind != VK::Instance && obj->kind != VK::Class && !obj->sub && classOf(obj).get() != cls.get() &&
        cls->isSubclassOf(classOf(obj).get())) {
      obj->sub = std::make_shared<SubclassInfo>();
      obj->sub->cls = cls;
    }
    if (!isInstance(obj, cls)) return obj;  // __new__ returned something else: no __init__
  } else {
    obj = std::make_shared<InstanceObj>(cls);
  }
  Value init = cls->lookup("__init__");
  bool defaultInit = !init || (init->kind == VK::Builtin && as<BuiltinObj>(init)->name == "object.__init__");
  if (!defaultInit) {
    if (init->kind == VK::Function) {
      CallArgs a = args;
      callFunction(*as<FunctionObj>(init), a, obj);
    } else {
      CallArgs a = args;
      a.args.insert(a.args.begin(), obj);
      call(init, a);
    }
  } else if (!args.args.empty() && !cls->isException && !nw) {
    raise("TypeError", cls->name + "() takes no arguments");
  }
  if (cls->isException && obj->kind == VK::Instance && !as<InstanceObj>(obj)->dict->getStr("args"))
    as<InstanceObj>(obj)->dict->setStr("args", makeTuple(args.args));
  return obj;
}

bool Interpreter::isInstance(const Value& v, const Value& clsOrTuple) {
  if (clsOrTuple->kind == VK::Tuple) {
    for (auto& c : as<TupleObj>(clsOrTuple)->items)
      if (isInstance(v, c)) return true;
    return false;
  }
  if (clsOrTuple->kind != VK::Class) raise("TypeError", "isinstance() arg 2 must be a type, a tuple of types, or a union");
  auto* cls = as<ClassObj>(clsOrTuple);
  // An ABC's __instancecheck__ (on its metaclass) decides.
  if (cls->meta)
    if (Value ic = cls->meta->lookup("__instancecheck__"); ic && ic->kind == VK::Function) {
      CallArgs a;
      a.args = {v};
      return truthy(call(bindAttr(ic, clsOrTuple, cls->meta), a));
    }
  if (cls->name == "object" && !cls->module) return true;
  if (v->kind == VK::Tensor && cls->name == "Parameter") return as<TensorObj>(v)->parameter || as<TensorObj>(v)->t.requiresGrad();
  auto c = classOf(v);
  if (c && c->isSubclassOf(cls)) return true;
  if (v->kind == VK::Bool && cls->name == "int" && !cls->module) return true;
  return false;
}

// ---- classes ----

std::shared_ptr<ClassObj> Interpreter::newClass(const std::string& name, const std::vector<std::shared_ptr<ClassObj>>& bases,
                                                const std::shared_ptr<ModuleObj>& module) {
  auto cls = std::make_shared<ClassObj>();
  cls->name = name;
  cls->qualname = name;
  cls->module = module;
  cls->bases = bases;
  // C3 linearization (Python's MRO), falling back to depth-first for inconsistent hierarchies.
  std::vector<std::vector<std::shared_ptr<ClassObj>>> seqs;
  for (const auto& b : bases) seqs.push_back(b->mro);
  seqs.push_back(bases);
  cls->mro.push_back(cls);
  while (true) {
    seqs.erase(std::remove_if(seqs.begin(), seqs.end(), [](const auto& s) { return s.empty(); }), seqs.end());
    if (seqs.empty()) break;
    std::shared_ptr<ClassObj> next;
    for (const auto& s : seqs) {
      auto cand = s.front();
      bool inTail = false;
      for (const auto& t : seqs)
        if (std::find(t.begin() + 1, t.end(), cand) != t.end()) inTail = true;
      if (!inTail) {
        next = cand;
        break;
      }
    }
    if (!next) {  // no consistent order: Python raises; keep going depth-first
      for (const auto& b : bases)
        for (const auto& m : b->mro)
          if (std::find(cls->mro.begin(), cls->mro.end(), m) == cls->mro.end()) cls->mro.push_back(m);
      break;
    }
    cls->mro.push_back(next);
    for (auto& s : seqs)
      if (!s.empty() && s.front() == next) s.erase(s.begin());
  }
  if (bases.empty()) {
    auto obj = builtinClass("object");
    if (obj && obj.get() != cls.get()) cls->mro.push_back(obj);
  }
  for (const auto& m : cls->mro) cls->isException = cls->isException || m->isException;
  for (const auto& b : bases)
    if (b->meta && !cls->meta) cls->meta = b->meta;  // a class's metaclass is inherited
  return cls;
}

bool Interpreter::classBreakable(const Stmt& s) {
  const Frame& f = frames_.back();
  if (!s.decorators.empty() || !s.classKeywords.empty() || !f.locals) return false;
  for (const auto& n : tracer->classStatementNames(s))
    if (f.locals->count(n)) return false;
  return true;
}

void Interpreter::classBreak(const Stmt& s, GraphBreak& u) {
  const Frame& f = frames_.back();
  u.at = GraphBreak::At::Call;
  u.occurrence = 1;
  u.gradEnabled = autograd::isGradEnabled();
  u.inferenceMode = tensor::inferenceModeEnabled();
  u.globalState = tracer->globalState();
  u.stmt = &s;
  u.expr = nullptr;  // (the statement itself is the call)
  u.args.clear();
  u.kwargs.clear();
  u.graphSize = tracer->graphSize();
  u.scope = f.scope;
  // What runs after the graph: the class statement, in a frame of its own standing for the
  // function's (it reads none of its locals), so the class is qualified by the function.
  auto owner = std::make_shared<FunctionObj>();
  owner->name = f.fn ? f.fn->name : f.function;
  owner->qualname = f.fn ? f.fn->qualname : f.function;
  std::shared_ptr<Scope> closure = f.scope ? f.scope->parent : nullptr;
  std::shared_ptr<ModuleObj> module = f.module;
  const Stmt* stmt = &s;
  u.callee = makeBuiltin("__build_class__", [owner, closure, module, stmt](Interpreter& in, CallArgs&) -> Value {
    static const std::set<std::string> noLocals;
    Frame fr;
    fr.scope = std::make_shared<Scope>();
    fr.scope->parent = closure;
    fr.module = module;
    fr.locals = &noLocals;
    fr.function = owner->name;
    fr.fn = owner.get();
    fr.span = stmt->span;
    fr.stmt = stmt;
    FrameGuard g(in, fr);
    return in.makeClass(*stmt);
  });
}

Value Interpreter::makeClass(const Stmt& s) {
  std::vector<std::shared_ptr<ClassObj>> bases;
  for (const auto& b : s.bases) {
    Value bv = eval(*b);
    if (bv->kind == VK::Instance)
      if (Value mro = getAttrOrNull(bv, "__mro_entries__")) {  // typing.Generic[T], NamedTuple ...
        CallArgs a;
        a.args.push_back(makeTuple({}));
        for (auto& e : iterate(call(mro, a)))
          if (e->kind == VK::Class) bases.push_back(asShared<ClassObj>(e));
        continue;
      }
    if (bv->kind != VK::Class) raise("TypeError", "bases must be types");
    bases.push_back(asShared<ClassObj>(bv));
  }
  Value metaclass;
  CallArgs classKw;
  for (const auto& k : s.classKeywords) {
    Value v = eval(*k.value);
    if (k.name == "metaclass") metaclass = v;
    else classKw.kwargs.emplace_back(k.name, v);
  }
  // Execute the body in its own scope (its names are readable in later statements of the
  // body); functions defined there become methods.
  std::vector<std::string> order;
  Frame f;
  f.scope = std::make_shared<Scope>();
  f.scope->parent = frames_.back().locals ? frames_.back().scope : (frames_.back().classBody ? frames_.back().scope->parent : nullptr);
  f.module = frames_.back().module;
  f.function = s.name;
  f.span = s.span;
  f.classBody = true;
  f.scope->vars["__module__"] = makeStr(f.module ? f.module->name : "__main__");
  // Qualified as Python does: by the enclosing class, or by the function (f.<locals>.Name).
  std::string qualname = s.name;
  if (const Frame& outer = frames_.back(); outer.classBody) {
    if (auto q = outer.scope->vars.find("__qualname__"); q != outer.scope->vars.end() && q->second->kind == VK::Str)
      qualname = str(q->second) + "." + s.name;
  } else if (outer.fn && outer.locals) {
    qualname = outer.fn->qualname + ".<locals>." + s.name;
  }
  f.scope->vars["__qualname__"] = makeStr(qualname);
  {
    FrameGuard g(*this, f);
    try {
      execBody(s.body);
    } catch (PyError& e) {
      e.traceback.insert(e.traceback.begin(), TraceFrame{f.module ? f.module->file : file_, s.name, frames_.back().span});
      throw;
    }
    order = frames_.back().scopeOrder;
  }
  Value cls;
  std::shared_ptr<ClassObj> meta = metaclass && metaclass->kind == VK::Class ? asShared<ClassObj>(metaclass) : nullptr;
  if (!meta)
    for (const auto& b : bases)
      if (b->meta) meta = b->meta;
  if (meta && meta->lookup("__new__") && meta->lookup("__new__")->kind != VK::Builtin) {
    // A Python metaclass: M(name, bases, namespace, **kw) makes the class.
    auto nsDict = std::make_shared<DictObj>();
    for (const auto& name : order) {
      auto it = f.scope->vars.find(name);
      if (it != f.scope->vars.end()) nsDict->setStr(name, it->second);
    }
    for (auto& [k, v] : f.scope->vars)
      if (!nsDict->getStr(k)) nsDict->setStr(k, v);
    std::vector<Value> bv(bases.begin(), bases.end());
    CallArgs a;
    a.args = {makeStr(s.name), makeTuple(bv), nsDict};
    a.kwargs = classKw.kwargs;
    cls = call(meta, a);
    if (cls->kind == VK::Class) {
      auto c = asShared<ClassObj>(cls);
      for (auto& [k, v] : c->dict) markClassDef(v, c);
    }
  } else {
    auto c = newClass(s.name, bases, f.module);
    c->qualname = qualname;
    if (meta) c->meta = meta;
    finishClass(c, f.scope->vars, order, s.docstring);
    if (meta)
      if (Value mi = meta->lookup("__init__"); mi && mi->kind == VK::Function) {
        auto nsDict = std::make_shared<DictObj>();
        for (auto& [k, v] : c->dict) nsDict->setStr(k, v);
        std::vector<Value> bv(bases.begin(), bases.end());
        CallArgs a;
        a.args = {makeStr(s.name), makeTuple(bv), nsDict};
        callFunction(*as<FunctionObj>(mi), a, c);
      }
    initSubclass(c, classKw);
    cls = c;
  }
  return cls;
}

void Interpreter::finishClass(const std::shared_ptr<ClassObj>& c, const std::unordered_map<std::string, Value>& vars,
                              const std::vector<std::string>& order, const std::string& docstring) {
  for (auto& [k, v] : vars) {
    markClassDef(v, c);
    if (v->kind == VK::Function) {
      auto* fn = as<FunctionObj>(v);
      if (fn->qualname.find('.') == std::string::npos) fn->qualname = c->qualname + "." + fn->name;
    }
    c->dict[k] = v;
  }
  // __new__ is a static method and __init_subclass__ / __class_getitem__ class methods, as in Python.
  auto wrap = [&](const char* name, const char* kind) {
    auto it = c->dict.find(name);
    if (it == c->dict.end() || it->second->kind != VK::Function) return;
    auto inst = std::make_shared<InstanceObj>(builtinClass(kind));
    inst->dict->setStr("fn", it->second);
    it->second = inst;
  };
  wrap("__new__", "staticmethod");
  wrap("__init_subclass__", "classmethod");
  wrap("__class_getitem__", "classmethod");
  c->dict["__name__"] = makeStr(c->name);
  c->dict["__doc__"] = docstring.empty() ? None() : makeStr(docstring);
  if (!c->dict.count("__annotations__")) c->dict["__annotations__"] = std::make_shared<DictObj>();
  c->order = order;
  // __set_name__ on the descriptors of the body, in definition order.
  for (const auto& name : order) {
    auto it = c->dict.find(name);
    if (it == c->dict.end() || it->second->kind != VK::Instance) continue;
    if (Value sn = as<InstanceObj>(it->second)->cls->lookup("__set_name__")) {
      CallArgs a;
      a.args = {c, makeStr(name)};
      call(std::make_shared<BoundMethodObj>(it->second, sn), a);
    }
  }
}

void Interpreter::initSubclass(const std::shared_ptr<ClassObj>& c, CallArgs& kwargs) {
  // The nearest base's __init_subclass__ (a class method) sees the new class.
  for (size_t i = 1; i < c->mro.size(); ++i) {
    auto it = c->mro[i]->dict.find("__init_subclass__");
    if (it == c->mro[i]->dict.end()) continue;
    CallArgs a = kwargs;
    a.args.clear();
    call(bindAttr(it->second, nullptr, c), a);
    return;
  }
  if (!kwargs.kwargs.empty()) raise("TypeError", c->name + ".__init_subclass__() takes no keyword arguments");
}

// ---- super() ----

Value Interpreter::superProxy(CallArgs& a) {
  std::shared_ptr<ClassObj> start;
  Value self;
  if (a.args.size() == 2) {
    if (a.args[0]->kind != VK::Class) raise("TypeError", "super() argument 1 must be a type, not " + typeName(a.args[0]));
    start = asShared<ClassObj>(a.args[0]);
    self = a.args[1];
  } else {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (it->classDef) {
        start = it->classDef;
        self = it->classSelf;
        break;
      }
  }
  if (!start || !self) raise("RuntimeError", "super(): no arguments");
  auto proxy = std::make_shared<InstanceObj>(builtinClass("super"));
  proxy->dict->setStr("__thisclass__", start);
  proxy->dict->setStr("__self__", self);
  return proxy;
}

Value Interpreter::superAttr(const Value& proxy, const std::string& name) {
  auto* p = as<InstanceObj>(proxy);
  auto start = asShared<ClassObj>(p->dict->getStr("__thisclass__"));
  Value self = p->dict->getStr("__self__");
  if (name == "__thisclass__") return start;
  if (name == "__self__") return self;
  // Look the attribute up after `start` in the MRO of self's class; when self is a class that
  // is not an instance of `start` (a classmethod's super()), in self's own MRO.
  std::shared_ptr<ClassObj> mroOwner;
  Value instance;
  if (isInstance(self, start)) {
    mroOwner = classOf(self);
    instance = self;
  } else if (self->kind == VK::Class && as<ClassObj>(self)->isSubclassOf(start.get())) {
    mroOwner = asShared<ClassObj>(self);
  } else {
    raise("TypeError", "super(type, obj): obj must be an instance or subtype of type");
  }
  bool after = false;
  for (const auto& m : mroOwner->mro) {
    if (after) {
      auto it = m->dict.find(name);
      if (it != m->dict.end()) return bindAttr(it->second, instance, instance ? mroOwner : asShared<ClassObj>(self));
    }
    if (m == start) after = true;
  }
  raise("AttributeError", "'super' object has no attribute '" + name + "'");
}

}  // namespace kiln::py
