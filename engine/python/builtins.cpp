// Python builtins: functions, builtin classes and their methods, exceptions, repr/str.
#include "engine/python/bigint.h"
#include "engine/python/interpreter.h"

#include "engine/ir/text.h"
#include "engine/python/pyformat.h"
#include "engine/python/tensor_hooks.h"
#include "engine/python/trace_hooks.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace kiln::py {

namespace {
int64_t toInt(Interpreter& in, const Value& v, const char* what) {
  if (v->kind == VK::Int) return as<IntObj>(v)->small();
  if (v->kind == VK::Bool) return as<BoolObj>(v)->v;
  in.raise("TypeError", std::string("'") + typeName(v) + "' object cannot be interpreted as an integer" +
                            (what[0] ? std::string(" (") + what + ")" : ""));
}
double toDouble(Interpreter& in, const Value& v) {
  if (v->kind == VK::Float) return as<FloatObj>(v)->v;
  if (v->kind == VK::Int) return intToDouble(v);
  if (v->kind == VK::Bool) return as<BoolObj>(v)->v;
  in.raise("TypeError", "must be real number, not " + typeName(v));
}
void arity(Interpreter& in, const CallArgs& a, size_t lo, size_t hi, const std::string& name) {
  if (a.args.size() < lo || a.args.size() > hi) {
    if (lo == hi)
      in.raise("TypeError", name + "() takes exactly " + std::to_string(lo) + " argument" + (lo == 1 ? "" : "s") + " (" +
                                std::to_string(a.args.size()) + " given)");
    in.raise("TypeError", name + " expected at most " + std::to_string(hi) + " arguments, got " + std::to_string(a.args.size()));
  }
}
Value makeRange(int64_t a, int64_t b, int64_t s) {
  auto it = std::make_shared<IteratorObj>();
  it->rangeObject = true;
  it->rStart = it->rCur = a;
  it->rStop = b;
  it->rStep = s;
  return it;
}
}  // namespace

std::shared_ptr<ClassObj> Interpreter::builtinClass(const std::string& name) {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : it->second;
}

std::shared_ptr<ClassObj> Interpreter::exceptionClass(const std::string& name) {
  auto it = classes_.find(name);
  if (it != classes_.end() && it->second->isException) return it->second;
  // Unknown error types (from torch: RuntimeError variants) derive from Exception.
  auto cls = std::make_shared<ClassObj>();
  cls->name = name;
  cls->isException = true;
  cls->mro.push_back(cls);
  auto base = classes_["Exception"];
  for (auto& m : base->mro) cls->mro.push_back(m);
  classes_[name] = cls;
  return cls;
}

Interpreter::RecursionGuard::RecursionGuard(Interpreter& in, const char* where) : in_(in) {
  if (++in_.nativeDepth_ + static_cast<int>(in_.frames_.size()) > kMaxDepth || stackNearlyFull()) {
    --in_.nativeDepth_;
    in_.raise("RecursionError", std::string("maximum recursion depth exceeded") + where);
  }
}

void Interpreter::checkAllocation(uint64_t bytes) {
  if (!tensor::fitsMemoryLimit(bytes)) raise("MemoryError", "");
}

void Interpreter::raiseStopped() {
  const Interrupt p = pendingInterrupt();
  if (p != Interrupt::None && p != Interrupt::FlushOutput) handleInterrupt();
  raise("KeyboardInterrupt", "");
}

void Interpreter::handleInterrupt() {
  switch (pendingInterrupt()) {
    case Interrupt::FlushOutput:
      if (takeFlushOutput() && onFlushOutput) onFlushOutput();
      return;
    case Interrupt::KeyboardInterrupt: takeKeyboardInterrupt(); raise("KeyboardInterrupt", "");
    case Interrupt::Timeout: {
      char secs[32];
      std::snprintf(secs, sizeof secs, "%g", timeoutSeconds);
      raise("TimeoutError", std::string("the script ran past its time limit of ") + secs + " s (kiln run --timeout)");
    }
    case Interrupt::Terminate: raise("SystemExit", "terminated (SIGTERM)");
    case Interrupt::OutOfMemory:
      takeOutOfMemory();
      raise("MemoryError", "the script's objects grew past Kiln's memory limit of " + std::to_string(tensor::memoryLimit()) +
                               " bytes (kiln run --memory-limit)");
    case Interrupt::None: break;
  }
  raise("SystemError", "interrupt requested without a reason");
}

namespace {
// Marks a container as being printed for as long as its repr is built; `cyclic` is true when
// it already was (CPython's Py_ReprEnter), and the caller prints [...] or {...} instead.
struct ReprEnter {
  std::vector<const Obj*>& active;
  bool cyclic;
  ReprEnter(std::vector<const Obj*>& a, const Obj* o) : active(a), cyclic(std::find(a.begin(), a.end(), o) != a.end()) {
    if (!cyclic) active.push_back(o);
  }
  ~ReprEnter() {
    if (!cyclic) active.pop_back();
  }
};
}  // namespace

std::string Interpreter::repr(const Value& v) {
  RecursionGuard guard(*this, " while getting the repr of an object");
  if (tracer && (v->kind == VK::Int || v->kind == VK::Float || v->kind == VK::Bool)) tracer->specialize(v);  // a size printed is a constant
  if (v->sub && v->kind != VK::Instance) {
    // A subclass of a builtin (class F(float)) with its own __repr__ prints through it.
    auto cls = classOf(v);
    if (Value r = cls->lookup("__repr__"); r && r->kind == VK::Function) {
      CallArgs a;
      Value s = call(bindAttr(r, v, cls), a);
      if (s->kind != VK::Str) raise("TypeError", "__repr__ returned non-string (type " + typeName(s) + ")");
      return as<StrObj>(s)->v;
    }
  }
  switch (v->kind) {
    case VK::None: return "None";
    case VK::Bool: return as<BoolObj>(v)->v ? "True" : "False";
    case VK::Int: return intToDecimal(*this, v);
    case VK::Float: return ir::pyFloat(as<FloatObj>(v)->v);
    case VK::Str: {
      const std::string& s = as<StrObj>(v)->v;
      char q = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
      std::string out(1, q);
      for (char c : s) {
        if (c == q || c == '\\') {
          out += '\\';
          out += c;
        } else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else out += c;
      }
      return out + q;
    }
    case VK::Tuple: {
      auto& items = as<TupleObj>(v)->items;
      const bool size = as<TupleObj>(v)->torchSize;
      ReprEnter enter(reprActive, v.get());
      if (enter.cyclic) return "(...)";
      std::string out = size ? "torch.Size([" : "(";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i]);
      if (size) return out + "])";
      return out + (items.size() == 1 ? ",)" : ")");
    }
    case VK::List: {
      auto& items = as<ListObj>(v)->items;
      ReprEnter enter(reprActive, v.get());
      if (enter.cyclic) return "[...]";
      std::string out = "[";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i]);
      return out + "]";
    }
    case VK::Dict: {
      auto& items = as<DictObj>(v)->items;
      ReprEnter enter(reprActive, v.get());
      if (enter.cyclic) return "{...}";
      std::string out = "{";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i].first) + ": " + repr(items[i].second);
      return out + "}";
    }
    case VK::Tensor: return tensorHooks().repr(*this, v);
    case VK::DType: return std::string(ir::torchName(as<DTypeObj>(v)->d));
    case VK::Function: return "<function " + as<FunctionObj>(v)->qualname + ">";
    case VK::Builtin: return "<built-in function " + as<BuiltinObj>(v)->name + ">";
    case VK::Class: {
      auto* c = as<ClassObj>(v);
      if (c->meta)
        if (Value r = c->meta->lookup("__repr__"); r && r->kind == VK::Function) {
          CallArgs a;
          return str(call(bindAttr(r, v, c->meta), a));
        }
      return defaultRepr(v);
    }
    case VK::Module: return "<module '" + as<ModuleObj>(v)->name + "'>";
    case VK::Ellipsis: return "Ellipsis";
    case VK::Slice: {
      auto* s = as<SliceObj>(v);
      return "slice(" + repr(s->start) + ", " + repr(s->stop) + ", " + repr(s->step) + ")";
    }
    case VK::Instance: {
      auto* inst = as<InstanceObj>(v);
      Value r = inst->cls->lookup("__repr__");
      if (r && !(r->kind == VK::Builtin && as<BuiltinObj>(r)->name == "object.__repr__")) {
        CallArgs a;
        Value s = call(bindAttr(r, v, inst->cls), a);
        if (s->kind != VK::Str) raise("TypeError", "__repr__ returned non-string (type " + typeName(s) + ")");
        return as<StrObj>(s)->v;
      }
      if (inst->cls->isException) {
        Value args = inst->dict->getStr("args");
        auto items = args ? iterate(args) : std::vector<Value>{};
        std::string out = inst->cls->name + "(";
        for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i]);
        return out + ")";
      }
      return defaultRepr(v);
    }
    default: return "<" + typeName(v) + ">";
  }
}

std::string Interpreter::str(const Value& v) {
  if (v->kind == VK::Str && !v->sub) return as<StrObj>(v)->v;
  if (tracer && (v->kind == VK::Int || v->kind == VK::Float || v->kind == VK::Bool)) tracer->specialize(v);  // a size printed is a constant
  if (v->kind == VK::Instance || v->sub) {
    auto cls = classOf(v);
    Value s = cls->lookup("__str__");
    if (s && !(s->kind == VK::Builtin && as<BuiltinObj>(s)->name == "object.__str__")) {
      CallArgs a;
      Value r = call(bindAttr(s, v, cls), a);
      if (r->kind != VK::Str) raise("TypeError", "__str__ returned non-string (type " + typeName(r) + ")");
      return as<StrObj>(r)->v;
    }
    if (v->kind == VK::Instance && cls->isException) {
      auto* inst = as<InstanceObj>(v);
      auto items = iterate(inst->dict->getStr("args") ? inst->dict->getStr("args") : makeTuple({}));
      if (items.empty()) return "";
      // KeyError shows its key as a repr (str(KeyError('k')) is "'k'").
      if (items.size() == 1) return cls->isSubclassOf(builtinClass("KeyError").get()) ? repr(items[0]) : str(items[0]);
      return repr(makeTuple(items));
    }
    if (v->kind == VK::Str) return as<StrObj>(v)->v;
  }
  return repr(v);
}

std::string Interpreter::defaultRepr(const Value& v) {
  char addr[32];
  std::snprintf(addr, sizeof addr, "%p", static_cast<const void*>(v.get()));
  if (v->kind == VK::Class) {
    auto* c = as<ClassObj>(v);
    bool builtinType = !c->module && builtinClass(c->name).get() == c;
    return "<class '" + std::string(builtinType ? "" : (c->module ? c->module->name + "." : "")) + c->qualname + "'>";
  }
  auto cls = classOf(v);
  std::string mod = cls->module ? cls->module->name + "." : "";
  return "<" + mod + cls->qualname + " object at " + addr + ">";
}

// max(a, b) / min(a, b) on traced 0-dim tensors, as Dynamo's BuiltinVariable traces them:
// torch.maximum / torch.minimum of two tensors, torch.clamp(t, min=n) / (t, max=n) of a tensor
// and a number (either order), instead of a data-dependent comparison. (A tensor with more
// elements is left to the comparison, which fails as in eager.) Null when it does not apply.
static Value tracedMinMax(Interpreter& in, CallArgs& a, bool isMax) {
  if (!in.tracer || a.args.size() != 2 || !a.kwargs.empty()) return nullptr;
  auto traced0d = [](const Value& v) {
    return v->kind == VK::Tensor && as<TensorObj>(v)->fake && as<TensorObj>(v)->tensorType().sizes.empty();
  };
  auto number = [](const Value& v) { return v->kind == VK::Int || v->kind == VK::Float; };
  Value x = a.args[0], y = a.args[1];
  if (!traced0d(x) && !traced0d(y)) return nullptr;
  auto torch = in.importModule("torch");
  auto fn = [&](const char* name) { return in.getAttr(torch, name); };
  if (traced0d(x) && traced0d(y)) {
    CallArgs c{{x, y}, {}, {}};
    return in.call(fn(isMax ? "maximum" : "minimum"), c);
  }
  if (!traced0d(x)) std::swap(x, y);
  if (!number(y)) return nullptr;
  CallArgs c{{x}, {{isMax ? "min" : "max", y}}, {}};
  return in.call(fn("clamp"), c);
}

void Interpreter::installBuiltins() {
  auto& B = builtins_;
  auto def = [&](const std::string& name, NativeFn fn) {
    B[name] = makeBuiltin(name, std::move(fn));
    as<BuiltinObj>(B[name])->isMethod = false;  // a function, not a method
  };
  auto cls = [&](const std::string& name, std::shared_ptr<ClassObj> base = nullptr) {
    auto c = std::make_shared<ClassObj>();
    c->name = c->qualname = name;
    c->mro.push_back(c);
    if (base) {
      c->bases.push_back(base);
      for (auto& m : base->mro) c->mro.push_back(m);
      c->isException = base->isException;
    }
    classes_[name] = c;
    B[name] = c;
    return c;
  };
  auto method = [&](const std::shared_ptr<ClassObj>& c, const std::string& name, NativeFn fn) {
    c->dict[name] = makeBuiltin(c->name + "." + name, std::move(fn));
  };

  auto object = cls("object");
  method(object, "__init__", [](Interpreter&, CallArgs&) { return None(); });
  method(object, "__new__", [](Interpreter& in, CallArgs& a) -> Value {
    if (a.args.empty() || a.args[0]->kind != VK::Class) in.raise("TypeError", "object.__new__(X): X is not a type object");
    auto c = asShared<ClassObj>(a.args[0]);
    if (c->isSubclassOf(in.builtinClass("type").get()))
      in.raise("TypeError", "object.__new__(" + c->name + ") is not safe, use type.__new__()");
    return std::make_shared<InstanceObj>(c);
  });
  method(object, "__setattr__", [](Interpreter& in, CallArgs& a) {
    if (in.tracer) in.tracer->onSetAttr(a.args.at(0), in.str(a.args.at(1)), a.args.at(2), /*raw=*/true);
    in.genericSetAttr(a.args.at(0), in.str(a.args.at(1)), a.args.at(2));
    return None();
  });
  method(object, "__delattr__", [](Interpreter& in, CallArgs& a) {
    Value self = a.args.at(0);
    std::string name = in.str(a.args.at(1));
    if (self->kind == VK::Instance || self->sub) {
      in.genericDelAttr(self, name);
      return None();
    }
    in.raise("AttributeError", "'" + typeName(self) + "' object has no attribute '" + name + "'");
  });
  method(object, "__getattribute__", [](Interpreter& in, CallArgs& a) {
    Value self = a.args.at(0);
    std::string name = in.str(a.args.at(1));
    if (self->kind == VK::Instance) {
      bool found = false;
      Value v = in.objectGetAttribute(self, name, &found);
      if (found) return v;
      in.raise("AttributeError", "'" + typeName(self) + "' object has no attribute '" + name + "'");
    }
    return in.getAttr(self, name);
  });
  method(object, "__eq__",
         [](Interpreter& in, CallArgs& a) { return a.args.at(0) == a.args.at(1) ? True() : in.builtin("NotImplemented"); });
  method(object, "__ne__", [](Interpreter& in, CallArgs& a) {
    Value eq = in.compare("==", a.args.at(0), a.args.at(1));
    return makeBool(!in.truthy(eq));
  });
  method(object, "__hash__",
         [](Interpreter&, CallArgs& a) { return makeInt(static_cast<int64_t>(reinterpret_cast<intptr_t>(a.args.at(0).get()) >> 4)); });
  method(object, "__repr__", [](Interpreter& in, CallArgs& a) { return makeStr(in.defaultRepr(a.args.at(0))); });
  method(object, "__str__", [](Interpreter& in, CallArgs& a) { return makeStr(in.repr(a.args.at(0))); });
  method(object, "__format__", [](Interpreter& in, CallArgs& a) {
    std::string spec = a.args.size() > 1 ? in.str(a.args[1]) : "";
    if (!spec.empty()) in.raise("TypeError", "unsupported format string passed to " + typeName(a.args[0]) + ".__format__");
    return makeStr(in.str(a.args.at(0)));
  });
  // Pickle protocol 2 for plain instances: (copyreg.__newobj__, (cls,), __dict__). Objects with
  // native state (builtin-type subclasses, compiled modules) cannot be rebuilt that way.
  method(object, "__reduce_ex__", [](Interpreter& in, CallArgs& a) -> Value {
    static const Value newobj = makeBuiltin("copyreg.__newobj__", [](Interpreter& in, CallArgs& a) -> Value {
      if (a.args.empty()) in.raise("TypeError", "__newobj__() missing required argument 'cls'");
      CallArgs na;
      na.args = a.args;
      return in.call(in.getAttr(a.args[0], "__new__"), na);
    });
    Value self = a.args.at(0);
    auto* inst = self->kind == VK::Instance ? as<InstanceObj>(self) : nullptr;
    if (!inst || inst->native || self->sub) in.raise("TypeError", "cannot pickle '" + typeName(self) + "' object");
    Value state = inst->dict->items.empty() ? None() : Value(inst->dict);
    return makeTuple({newobj, makeTuple({inst->cls}), state});
  });
  object->dict["__reduce__"] = object->dict["__reduce_ex__"];
  // type: the class of classes. type(x) is x's class; type(name, bases, dict) makes a class;
  // metaclasses derive from it.
  auto typeCls = cls("type", object);
  method(typeCls, "__new__", [](Interpreter& in, CallArgs& a) -> Value {
    if (a.args.size() == 2) {
      if (in.tracer) in.tracer->onType(a.args[1]);
      return in.classOf(a.args[1]);
    }
    if (a.args.size() != 4) in.raise("TypeError", "type() takes 1 or 3 arguments");
    auto meta = asShared<ClassObj>(a.args[0]);
    // CPython's argument checks (type.__new__'s "UO!O!"), in its order.
    const char* wants[] = {nullptr, "str", "tuple", "dict"};
    const VK kinds[] = {VK::None, VK::Str, VK::Tuple, VK::Dict};
    for (int i = 1; i <= 3; ++i)
      if (a.args[i]->kind != kinds[i])
        in.raise("TypeError", "type.__new__() argument " + std::to_string(i) + " must be " + wants[i] + ", not " + typeName(a.args[i]));
    std::vector<std::shared_ptr<ClassObj>> bases;
    for (auto& b : in.iterate(a.args[2])) {
      if (b->kind != VK::Class) in.raise("TypeError", "bases must be types");
      bases.push_back(asShared<ClassObj>(b));
    }
    auto c = in.newClass(in.str(a.args[1]), bases, in.mainModule());
    if (meta->name != "type" || meta->module) c->meta = meta;
    std::unordered_map<std::string, Value> vars;
    std::vector<std::string> order;
    for (auto& [k, v] : as<DictObj>(a.args[3])->items) {
      vars[in.str(k)] = v;
      order.push_back(in.str(k));
    }
    std::string doc = vars.count("__doc__") && vars["__doc__"]->kind == VK::Str ? in.str(vars["__doc__"]) : "";
    in.finishClass(c, vars, order, doc);
    CallArgs kw;
    kw.kwargs = a.kwargs;
    in.initSubclass(c, kw);
    return c;
  });
  method(typeCls, "__init__", [](Interpreter&, CallArgs&) { return None(); });
  method(typeCls, "__setattr__", [](Interpreter& in, CallArgs& a) {
    if (a.args.at(0)->kind != VK::Class) in.raise("TypeError", "descriptor '__setattr__' requires a 'type' object");
    as<ClassObj>(a.args[0])->dict[in.str(a.args.at(1))] = a.args.at(2);
    return None();
  });
  method(typeCls, "__delattr__", [](Interpreter& in, CallArgs& a) {
    as<ClassObj>(a.args.at(0))->dict.erase(in.str(a.args.at(1)));
    return None();
  });
  method(typeCls, "__getattribute__", [](Interpreter& in, CallArgs& a) { return in.getAttr(a.args.at(0), in.str(a.args.at(1))); });
  method(typeCls, "__call__", [](Interpreter& in, CallArgs& a) -> Value {
    auto c = asShared<ClassObj>(a.args.at(0));
    CallArgs rest = a;
    rest.args.erase(rest.args.begin());
    return in.createInstance(c, rest);
  });
  method(typeCls, "__repr__", [](Interpreter& in, CallArgs& a) { return makeStr(in.defaultRepr(a.args.at(0))); });
  method(typeCls, "mro", [](Interpreter&, CallArgs& a) {
    std::vector<Value> m;
    for (auto& c : as<ClassObj>(a.args.at(0))->mro) m.push_back(c);
    return makeList(m);
  });
  cls("super", object);
  cls("code", object);
  // Exceptions: Python's hierarchy (the parts scripts meet).
  auto baseExc = cls("BaseException", object);
  baseExc->isException = true;
  const std::pair<const char*, const char*> kHierarchy[] = {{"Exception", "BaseException"},
                                                            {"GeneratorExit", "BaseException"},
                                                            {"KeyboardInterrupt", "BaseException"},
                                                            {"SystemExit", "BaseException"},
                                                            {"ArithmeticError", "Exception"},
                                                            {"ZeroDivisionError", "ArithmeticError"},
                                                            {"OverflowError", "ArithmeticError"},
                                                            {"FloatingPointError", "ArithmeticError"},
                                                            {"LookupError", "Exception"},
                                                            {"IndexError", "LookupError"},
                                                            {"KeyError", "LookupError"},
                                                            {"RuntimeError", "Exception"},
                                                            {"RecursionError", "RuntimeError"},
                                                            {"NotImplementedError", "RuntimeError"},
                                                            {"TypeError", "Exception"},
                                                            {"ValueError", "Exception"},
                                                            {"UnicodeError", "ValueError"},
                                                            {"UnicodeDecodeError", "UnicodeError"},
                                                            {"UnicodeEncodeError", "UnicodeError"},
                                                            {"NameError", "Exception"},
                                                            {"UnboundLocalError", "NameError"},
                                                            {"AttributeError", "Exception"},
                                                            {"AssertionError", "Exception"},
                                                            {"StopIteration", "Exception"},
                                                            {"StopAsyncIteration", "Exception"},
                                                            {"ImportError", "Exception"},
                                                            {"ModuleNotFoundError", "ImportError"},
                                                            {"MemoryError", "Exception"},
                                                            {"BufferError", "Exception"},
                                                            {"EOFError", "Exception"},
                                                            {"ReferenceError", "Exception"},
                                                            {"SyntaxError", "Exception"},
                                                            {"IndentationError", "SyntaxError"},
                                                            {"TabError", "IndentationError"},
                                                            {"OSError", "Exception"},
                                                            {"FileNotFoundError", "OSError"},
                                                            {"FileExistsError", "OSError"},
                                                            {"PermissionError", "OSError"},
                                                            {"TimeoutError", "OSError"},
                                                            {"ConnectionError", "OSError"},
                                                            {"IsADirectoryError", "OSError"},
                                                            {"NotADirectoryError", "OSError"},
                                                            {"Warning", "Exception"},
                                                            {"UserWarning", "Warning"},
                                                            {"DeprecationWarning", "Warning"},
                                                            {"PendingDeprecationWarning", "Warning"},
                                                            {"RuntimeWarning", "Warning"},
                                                            {"SyntaxWarning", "Warning"},
                                                            {"FutureWarning", "Warning"},
                                                            {"ImportWarning", "Warning"},
                                                            {"UnicodeWarning", "Warning"},
                                                            {"BytesWarning", "Warning"},
                                                            {"ResourceWarning", "Warning"},
                                                            {"EncodingWarning", "Warning"}};
  for (const auto& [child, parent] : kHierarchy) cls(child, classes_.at(parent));
  B["EnvironmentError"] = classes_["OSError"];
  B["IOError"] = classes_["OSError"];
  method(baseExc, "__init__", [](Interpreter&, CallArgs& a) {
    auto* inst = as<InstanceObj>(a.args[0]);
    inst->dict->setStr("args", makeTuple(std::vector<Value>(a.args.begin() + 1, a.args.end())));
    return None();
  });
  method(baseExc, "with_traceback", [](Interpreter&, CallArgs& a) { return a.args.at(0); });
  method(baseExc, "add_note", [](Interpreter& in, CallArgs& a) {
    auto* inst = as<InstanceObj>(a.args.at(0));
    Value notes = inst->dict->getStr("__notes__");
    if (!notes) {
      notes = makeList({});
      inst->dict->setStr("__notes__", notes);
    }
    as<ListObj>(notes)->items.push_back(a.args.at(1));
    (void)in;
    return None();
  });
  for (const char* attr : {"__context__", "__cause__", "__traceback__"}) baseExc->dict[attr] = None();
  baseExc->dict["__suppress_context__"] = False();
  // Scalar types: calling them converts. A tensor converts through item() when it has one
  // element (Tensor.__int__ / __float__).
  auto tensorItem = [](Interpreter& in, const Value& t) {
    CallArgs none;
    // While capturing, Dynamo turns float(t) / int(t) of a traced tensor into t.item() itself
    // (which breaks, or fails on the fake tensor): no eager size check first.
    if (in.tracer && in.tracer->dependsOnInputs(t)) return in.call(in.getAttr(t, "item"), none);
    if (!in.equals(in.call(in.getAttr(t, "numel"), none), makeInt(1)))
      in.raise("ValueError", "only one element tensors can be converted to Python scalars");
    return in.call(in.getAttr(t, "item"), none);
  };
  auto intCls = cls("int", object);
  method(intCls, "__new__", [tensorItem](Interpreter& in, CallArgs& a) -> Value {
    if (a.args.size() < 2) return makeInt(0);
    const Value& v = a.args[1];
    if (v->kind == VK::Float) {
      double d = as<FloatObj>(v)->v;
      if (std::isnan(d)) in.raise("ValueError", "cannot convert float NaN to integer");
      if (std::isinf(d)) in.raise("OverflowError", "cannot convert float infinity to integer");
      Value r = intFromDouble(d);  // exact: int(1e300) has 301 digits
      return in.tracer ? in.tracer->onSymbolicUnary("int", v, r) : r;
    }
    if (v->kind == VK::Int && !v->sub) return v;
    if (v->kind == VK::Str) return parseIntString(in, as<StrObj>(v)->v, a.args.size() > 2 ? toInt(in, a.args[2], "") : 10);
    if (v->kind == VK::Tensor) {
      // int() of the item: a float item truncates (int(torch.tensor(7.5)) is 7), a captured one converts after the graph.
      Value item = tensorItem(in, v);
      if (item->kind == VK::Instance) return in.call(in.getAttr(item, "__int__"), *std::make_unique<CallArgs>());
      CallArgs again;
      again.args.push_back(item);
      return in.call(in.builtin("int"), again);
    }
    return makeInt(toInt(in, v, ""));
  });
  method(intCls, "__int__",
         [](Interpreter& in, CallArgs& a) { return a.args[0]->kind == VK::Int ? a.args[0] : makeInt(toInt(in, a.args[0], "")); });
  method(intCls, "bit_length", [](Interpreter&, CallArgs& a) { return makeInt(static_cast<int64_t>(bitLength(a.args.at(0)))); });
  auto floatCls = cls("float", object);
  method(floatCls, "__new__", [tensorItem](Interpreter& in, CallArgs& a) -> Value {
    if (a.args.size() < 2) return makeFloat(0.0);
    const Value& v = a.args[1];
    if (v->kind == VK::Str) {
      std::string s = as<StrObj>(v)->v;
      std::string l = s;
      std::transform(l.begin(), l.end(), l.begin(), ::tolower);
      if (l == "inf" || l == "+inf" || l == "infinity") return makeFloat(INFINITY);
      if (l == "-inf" || l == "-infinity") return makeFloat(-INFINITY);
      if (l == "nan") return makeFloat(NAN);
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (s.empty() || (end && *end)) in.raise("ValueError", "could not convert string to float: " + in.repr(v));
      return makeFloat(d);
    }
    // float(obj) is obj.__float__() (a tensor's item may be such an object while capturing).
    Value x = v->kind == VK::Tensor ? tensorItem(in, v) : v;
    if (x->kind == VK::Instance && in.classOf(x)->lookup("__float__"))
      x = in.call(in.getAttr(x, "__float__"), *std::make_unique<CallArgs>());
    if (in.tracer && in.tracer->isUnbacked(x)) return x;  // float() of a captured Tensor.item(): converted after the graph
    return makeFloat(toDouble(in, x));
  });
  method(floatCls, "is_integer", [](Interpreter& in, CallArgs& a) {
    double d = toDouble(in, a.args[0]);
    return makeBool(std::floor(d) == d);
  });
  auto boolCls = cls("bool", intCls);
  method(boolCls, "__new__", [](Interpreter& in, CallArgs& a) { return makeBool(a.args.size() > 1 && in.truthy(a.args[1])); });
  cls("str", object);
  installStrMethods();
  for (const char* n : {"list", "tuple", "dict", "set", "frozenset", "dict_keys", "dict_values", "dict_items"}) cls(n, object);
  auto prop = cls("property", object);
  auto makeProperty = [](Interpreter& in, Value fget, Value fset, Value fdel, Value doc) {
    auto inst = std::make_shared<InstanceObj>(in.builtinClass("property"));
    inst->dict->setStr("fget", fget ? fget : None());
    inst->dict->setStr("fset", fset ? fset : None());
    inst->dict->setStr("fdel", fdel ? fdel : None());
    inst->dict->setStr("__doc__", doc ? doc : None());
    return Value(inst);
  };
  method(prop, "__new__", [makeProperty](Interpreter& in, CallArgs& a) {
    auto arg = [&](size_t i, const char* kw) -> Value { return i < a.args.size() ? a.args[i] : a.kwarg(kw); };
    return makeProperty(in, arg(1, "fget"), arg(2, "fset"), arg(3, "fdel"), arg(4, "doc"));
  });
  for (const char* which : {"getter", "setter", "deleter"}) {
    std::string w = which;
    method(prop, w, [w, makeProperty](Interpreter& in, CallArgs& a) {
      auto* self = as<InstanceObj>(a.args.at(0));
      Value fget = self->dict->getStr("fget"), fset = self->dict->getStr("fset"), fdel = self->dict->getStr("fdel");
      (w == "getter" ? fget : w == "setter" ? fset : fdel) = a.args.at(1);
      return makeProperty(in, fget, fset, fdel, self->dict->getStr("__doc__"));
    });
  }
  // StopIteration.value (and SystemExit.code) read the first argument.
  for (auto [name, attr] : {std::pair{"StopIteration", "value"}, {"SystemExit", "code"}}) {
    auto getter = makeBuiltin(std::string(name) + "." + attr, [](Interpreter& in, CallArgs& a) -> Value {
      auto* inst = as<InstanceObj>(a.args.at(0));
      Value args = inst->dict->getStr("args");
      auto items = args ? in.iterate(args) : std::vector<Value>{};
      return items.empty() ? None() : items[0];
    });
    classes_[name]->dict[attr] = makeProperty(*this, getter, nullptr, nullptr, nullptr);
  }
  for (const char* n : {"staticmethod", "classmethod"}) {
    auto c = cls(n, object);
    std::string name = n;
    method(c, "__new__", [name](Interpreter& in, CallArgs& a) {
      auto inst = std::make_shared<InstanceObj>(in.builtinClass(name));
      inst->dict->setStr("fn", a.args.at(1));
      return Value(inst);
    });
  }

  def("print", [](Interpreter& in, CallArgs& a) {
    if (in.tracer) {
      // print cannot be traced: a graph break, worded as Dynamo words it.
      std::string types;
      for (size_t i = 0; i < a.args.size(); ++i) types += (i ? ", '" : "'") + typeName(a.args[i]) + "'";
      std::string sig = "[" + types + "]";
      GraphBreak u("KB002", "Failed to trace builtin operator",
                   "Dynamo does not know how to trace builtin operator `print` with argument types " + sig + " (has_kwargs " +
                       (a.kwargs.empty() ? "False" : "True") + ")",
                   {"Avoid calling builtin `print` with argument types " + sig +
                        ". Consider using an equivalent alternative function/method to `print`.",
                    "If you are attempting to call a logging function (e.g. `print`), you can try adding it to "
                    "`torch._dynamo.config.reorderable_logging_functions`.",
                    "Please report an issue to PyTorch."});
      u.where = in.currentLocation();
      u.stack = in.userStack();
      throw u;
    }
    std::string sep = " ", end = "\n";
    if (Value s = a.kwarg("sep"); s && !isNone(s)) sep = in.str(s);
    if (Value e = a.kwarg("end"); e && !isNone(e)) end = in.str(e);
    std::string line;
    for (size_t i = 0; i < a.args.size(); ++i) line += (i ? sep : "") + in.str(a.args[i]);
    in.out() << line << end;
    if (Value f = a.kwarg("flush"); f && in.truthy(f)) in.out().flush();
    return None();
  });
  def("len", [](Interpreter& in, CallArgs& a) -> Value {
    arity(in, a, 1, 1, "len");
    const Value& v = a.args[0];
    if (in.tracer) in.tracer->onSequence(v);
    if (v->sub || v->kind == VK::Class)
      if (Value m = in.classOf(v)->lookup("__len__"); m && (m->kind == VK::Function || v->kind == VK::Class)) {
        Value r = in.callDunder(v, "__len__", {});
        if (r->kind != VK::Int) in.raise("TypeError", "'" + typeName(r) + "' object cannot be interpreted as an integer");
        return r;
      }
    switch (v->kind) {
      case VK::Str: return makeInt(strLength(as<StrObj>(v)->v));
      case VK::List: return makeInt(static_cast<int64_t>(as<ListObj>(v)->items.size()));
      case VK::Tuple: return makeInt(static_cast<int64_t>(as<TupleObj>(v)->items.size()));
      case VK::Dict: return makeInt(static_cast<int64_t>(as<DictObj>(v)->items.size()));
      case VK::Tensor: {
        auto ty = as<TensorObj>(v)->tensorType();
        if (ty.sizes.empty()) in.raise("TypeError", "len() of a 0-d tensor");
        return in.tracer ? in.tracer->symbolicSize(v, 0, makeInt(ty.sizes[0].value)) : makeInt(ty.sizes[0].value);
      }
      case VK::Iterator: {
        auto* it = as<IteratorObj>(v);
        if (it->rangeObject) {
          int64_t n =
              it->rStep > 0 ? (it->rStop - it->rStart + it->rStep - 1) / it->rStep : (it->rStart - it->rStop - it->rStep - 1) / -it->rStep;
          return makeInt(std::max<int64_t>(n, 0));
        }
        break;
      }
      case VK::Instance:
        if (Value m = as<InstanceObj>(v)->cls->lookup("__len__")) {
          CallArgs c;
          return in.call(std::make_shared<BoundMethodObj>(v, m), c);
        }
        break;
      default: break;
    }
    in.raise("TypeError", "object of type '" + typeName(v) + "' has no len()");
  });
  def("range", [](Interpreter& in, CallArgs& a) {
    arity(in, a, 1, 3, "range");
    if (in.tracer)  // a loop over a symbolic size unrolls for its value
      for (const auto& x : a.args) in.tracer->specialize(x);
    int64_t s = 0, e, st = 1;
    if (a.args.size() == 1) e = toInt(in, a.args[0], "");
    else {
      s = toInt(in, a.args[0], "");
      e = toInt(in, a.args[1], "");
    }
    if (a.args.size() == 3) st = toInt(in, a.args[2], "");
    if (st == 0) in.raise("ValueError", "range() arg 3 must not be zero");
    return makeRange(s, e, st);
  });
  def("enumerate", [](Interpreter& in, CallArgs& a) {
    if (a.args.empty()) in.raise("TypeError", "enumerate() missing required argument 'iterable'");
    Value it = in.getIter(a.args[0]);
    int64_t start = a.args.size() > 1 ? toInt(in, a.args[1], "") : (a.kwarg("start") ? toInt(in, a.kwarg("start"), "") : 0);
    auto n = std::make_shared<int64_t>(start);
    return makeLazyIterator(
        [&in, it, n]() -> Value {
          Value v = in.nextItem(it);
          if (!v) return nullptr;
          return makeTuple({makeInt((*n)++), v});
        },
        "enumerate");
  });
  def("zip", [](Interpreter& in, CallArgs& a) {
    std::vector<Value> its;
    for (auto& x : a.args) its.push_back(in.getIter(x));
    bool strict = a.kwarg("strict") && in.truthy(a.kwarg("strict"));
    return makeLazyIterator(
        [&in, its, strict]() -> Value {
          if (its.empty()) return nullptr;
          std::vector<Value> t;
          for (size_t i = 0; i < its.size(); ++i) {
            Value v = in.nextItem(its[i]);
            if (!v) {
              if (strict && in.tracer) {
                // Dynamo checks the lengths of zip(strict=True)'s arguments and fails with
                // UserError (an Unsupported: a graph break without fullgraph).
                bool differ = i > 0;
                for (size_t j = 1; j < its.size() && !differ; ++j) differ = in.nextItem(its[j]) != nullptr;
                if (differ) {
                  GraphBreak u("KB041", "zip() has one argument of len differing from others",
                               "zip(strict=True) was given arguments of different lengths.");
                  u.errorClass = "UserError";
                  u.where = in.currentLocation();
                  u.stack = in.userStack();
                  throw u;
                }
                return nullptr;
              }
              if (strict) {
                if (i > 0)
                  in.raise("ValueError", "zip() argument " + std::to_string(i + 1) + " is shorter than argument" +
                                             (i > 1 ? "s 1-" + std::to_string(i) : " 1"));
                for (size_t j = 1; j < its.size(); ++j)
                  if (in.nextItem(its[j]))
                    in.raise("ValueError", "zip() argument " + std::to_string(j + 1) + " is longer than argument" +
                                               (j > 1 ? "s 1-" + std::to_string(j) : " 1"));
              }
              return nullptr;
            }
            t.push_back(v);
          }
          return makeTuple(t);
        },
        "zip");
  });
  def("reversed", [](Interpreter& in, CallArgs& a) {
    const Value& v = a.args.at(0);
    if (v->kind == VK::Instance)
      if (Value m = as<InstanceObj>(v)->cls->lookup("__reversed__")) {
        CallArgs c;
        return in.call(std::make_shared<BoundMethodObj>(v, m), c);
      }
    if (v->kind == VK::Iterator && !as<IteratorObj>(v)->rangeObject)
      in.raise("TypeError", "'" + typeName(v) + "' object is not reversible");
    auto items = in.iterate(v);
    std::reverse(items.begin(), items.end());
    auto it = std::make_shared<IteratorObj>();
    it->items = std::move(items);
    it->typeName = "list_reverseiterator";
    return Value(it);
  });
  def("iter", [](Interpreter& in, CallArgs& a) {
    arity(in, a, 1, 2, "iter");
    if (a.args.size() == 2) {
      // iter(callable, sentinel)
      Value fn = a.args[0], sentinel = a.args[1];
      return makeLazyIterator(
          [&in, fn, sentinel]() -> Value {
            CallArgs c;
            Value v = in.call(fn, c);
            return in.equals(v, sentinel) ? nullptr : v;
          },
          "callable_iterator");
    }
    return in.getIter(a.args[0]);
  });
  def("next", [](Interpreter& in, CallArgs& a) {
    arity(in, a, 1, 2, "next");
    const Value& it = a.args[0];
    bool isIter =
        it->kind == VK::Iterator || it->kind == VK::Generator || (it->kind == VK::Instance && as<InstanceObj>(it)->cls->lookup("__next__"));
    if (!isIter || (it->kind == VK::Iterator && as<IteratorObj>(it)->rangeObject))
      in.raise("TypeError", "'" + typeName(it) + "' object is not an iterator");
    if (it->kind == VK::Instance) {
      // A user iterator's StopIteration (with its value) propagates as raised.
      CallArgs c;
      if (a.args.size() == 1) return in.call(std::make_shared<BoundMethodObj>(it, as<InstanceObj>(it)->cls->lookup("__next__")), c);
    }
    Value v = in.nextItem(it);
    if (v) return v;
    if (a.args.size() > 1) return a.args[1];
    if (it->kind == VK::Generator) {
      auto* g = as<GeneratorObj>(it);
      if (g->returned && !isNone(g->returned)) {
        CallArgs c;
        c.args = {g->returned};
        Value exc = in.call(in.exceptionClass("StopIteration"), c);
        throw PyError("StopIteration", in.str(g->returned), exc);
      }
    }
    in.raise("StopIteration", "");
  });
  def("isinstance", [](Interpreter& in, CallArgs& a) {
    arity(in, a, 2, 2, "isinstance");
    if (in.tracer) in.tracer->onType(a.args[0]);
    return makeBool(in.isInstance(a.args[0], a.args[1]));
  });
  def("getattr", [](Interpreter& in, CallArgs& a) {
    arity(in, a, 2, 3, "getattr");
    if (a.args[1]->kind != VK::Str) in.raise("TypeError", "attribute name must be string, not '" + typeName(a.args[1]) + "'");
    const std::string& name = as<StrObj>(a.args[1])->v;
    if (a.args.size() == 3) {
      Value v = in.getAttrOrNull(a.args[0], name);
      if (in.tracer && !v) in.tracer->onHasattr(a.args[0], name, false);
      // A found attribute is read as `obj.name` is: guarded (getattr(o, "flag", False)).
      if (in.tracer && v) v = in.tracer->onAttribute(a.args[0], name, v);
      return v ? v : a.args[2];
    }
    Value v = in.getAttr(a.args[0], name);
    return in.tracer ? in.tracer->onAttribute(a.args[0], name, v) : v;
  });
  def("setattr", [](Interpreter& in, CallArgs& a) {
    arity(in, a, 3, 3, "setattr");
    in.setAttr(a.args[0], in.str(a.args[1]), a.args[2]);
    return None();
  });
  def("hasattr", [](Interpreter& in, CallArgs& a) {
    arity(in, a, 2, 2, "hasattr");
    bool has = in.getAttrOrNull(a.args[0], in.str(a.args[1])) != nullptr;
    if (in.tracer) in.tracer->onHasattr(a.args[0], in.str(a.args[1]), has);
    return makeBool(has);
  });
  auto minmax = [](bool isMax) {
    return [isMax](Interpreter& in, CallArgs& a) -> Value {
      if (Value traced = tracedMinMax(in, a, isMax)) return traced;
      std::vector<Value> items = a.args.size() == 1 ? in.iterate(a.args[0]) : a.args;
      Value key = a.kwarg("key");
      if (items.empty()) {
        if (Value d = a.kwarg("default")) return d;
        in.raise("ValueError", std::string(isMax ? "max" : "min") + "() iterable argument is empty");
      }
      Value best = items[0], bestKey = key ? in.call(key, *std::make_unique<CallArgs>(CallArgs{{items[0]}, {}, {}})) : items[0];
      for (size_t i = 1; i < items.size(); ++i) {
        Value k = key ? in.call(key, *std::make_unique<CallArgs>(CallArgs{{items[i]}, {}, {}})) : items[i];
        if (in.truthy(in.compare(isMax ? ">" : "<", k, bestKey))) {
          best = items[i];
          bestKey = k;
        }
      }
      return best;
    };
  };
  def("max", minmax(true));
  def("min", minmax(false));
  def("sum", [](Interpreter& in, CallArgs& a) {
    Value acc = a.args.size() > 1 ? a.args[1] : (a.kwarg("start") ? a.kwarg("start") : makeInt(0));
    for (auto& v : in.iterate(a.args.at(0))) acc = in.binaryOp("+", acc, v);
    return acc;
  });
  def("round", [](Interpreter& in, CallArgs& a) -> Value {
    const Value& x = a.args.at(0);
    const bool noDigits = a.args.size() < 2 || isNone(a.args[1]);
    if (x->kind == VK::Int || x->kind == VK::Bool) {
      // Exact for ints of any size: round half to even at 10**-ndigits.
      int64_t nd = noDigits ? 0 : toInt(in, a.args[1], "");
      if (nd >= 0) return x->kind == VK::Bool ? makeInt(as<BoolObj>(x)->v) : x;
      if (nd < -100000) return makeInt(0);
      mpz_class v = toMpz(x), q, r, p;
      mpz_ui_pow_ui(p.get_mpz_t(), 10, static_cast<unsigned long>(-nd));
      mpz_fdiv_qr(q.get_mpz_t(), r.get_mpz_t(), v.get_mpz_t(), p.get_mpz_t());
      int c = cmp(mpz_class(2 * r), p);
      if (c > 0 || (c == 0 && mpz_odd_p(q.get_mpz_t()))) q += 1;
      return makeIntFrom(q * p);
    }
    double d = toDouble(in, x);
    if (noDigits) return intFromDouble(std::nearbyint(d));  // banker's rounding (FE_TONEAREST)
    int64_t nd = toInt(in, a.args[1], "");
    if (nd > 400 || !std::isfinite(d)) return makeFloat(d);
    if (nd < -400) return makeFloat(0.0 * d);
    double m = std::pow(10.0, static_cast<double>(nd));
    return makeFloat(std::nearbyint(d * m) / m);
  });
  def("sorted", [](Interpreter& in, CallArgs& a) {
    auto items = in.iterate(a.args.at(0));
    Value key = a.kwarg("key");
    bool rev = a.kwarg("reverse") && in.truthy(a.kwarg("reverse"));
    std::vector<std::pair<Value, Value>> keyed;
    for (auto& v : items) {
      CallArgs c;
      c.args.push_back(v);
      keyed.emplace_back(key && !isNone(key) ? in.call(key, c) : v, v);
    }
    uint64_t compares = 0;
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
      if ((++compares & 0xffff) == 0) in.checkInterrupt();  // a huge sort stops at Ctrl-C / a time limit
      return in.truthy(in.compare("<", rev ? y.first : x.first, rev ? x.first : y.first));
    });
    std::vector<Value> out;
    for (auto& kv : keyed) out.push_back(kv.second);
    return makeList(out);
  });
  def("any", [](Interpreter& in, CallArgs& a) {
    for (auto& v : in.iterate(a.args.at(0)))
      if (in.truthy(v)) return True();
    return False();
  });
  def("all", [](Interpreter& in, CallArgs& a) {
    for (auto& v : in.iterate(a.args.at(0)))
      if (!in.truthy(v)) return False();
    return True();
  });
  def("map", [](Interpreter& in, CallArgs& a) {
    if (a.args.size() < 2) in.raise("TypeError", "map() must have at least two arguments.");
    std::vector<Value> its;
    for (size_t i = 1; i < a.args.size(); ++i) its.push_back(in.getIter(a.args[i]));
    Value fn = a.args[0];
    return makeLazyIterator(
        [&in, its, fn]() -> Value {
          CallArgs c;
          for (const auto& it : its) {
            Value v = in.nextItem(it);
            if (!v) return nullptr;
            c.args.push_back(v);
          }
          return in.call(fn, c);
        },
        "map");
  });
  def("filter", [](Interpreter& in, CallArgs& a) {
    arity(in, a, 2, 2, "filter");
    Value it = in.getIter(a.args[1]);
    Value fn = a.args[0];
    return makeLazyIterator(
        [&in, it, fn]() -> Value {
          while (Value v = in.nextItem(it)) {
            CallArgs c;
            c.args.push_back(v);
            if (isNone(fn) ? in.truthy(v) : in.truthy(in.call(fn, c))) return v;
          }
          return nullptr;
        },
        "filter");
  });
  def("id", [](Interpreter&, CallArgs& a) { return makeInt(static_cast<int64_t>(reinterpret_cast<intptr_t>(a.args.at(0).get()))); });
  def("callable", [](Interpreter& in, CallArgs& a) {
    const Value& v = a.args.at(0);
    if (in.tracer) in.tracer->onType(v);  // the answer is the type's: TYPE_MATCH
    bool c = v->kind == VK::Function || v->kind == VK::Builtin || v->kind == VK::BoundMethod || v->kind == VK::Class ||
             (v->kind == VK::Instance && in.getAttrOrNull(v, "__call__"));
    return makeBool(c);
  });
  def("repr", [](Interpreter& in, CallArgs& a) { return makeStr(in.repr(a.args.at(0))); });
  def("format",
      [](Interpreter& in, CallArgs& a) { return makeStr(formatValue(in, a.args.at(0), a.args.size() > 1 ? in.str(a.args[1]) : "")); });
  def("divmod", [](Interpreter& in, CallArgs& a) {
    return makeTuple({in.binaryOp("//", a.args.at(0), a.args.at(1)), in.binaryOp("%", a.args[0], a.args[1])});
  });

  builtinClass("super")->dict["__new__"] = makeBuiltin("super.__new__", [](Interpreter& in, CallArgs& a) {
    CallArgs rest = a;
    rest.args.erase(rest.args.begin());
    return in.superProxy(rest);
  });
  def("open", [](Interpreter& in, CallArgs&) -> Value {
    in.raise("PermissionError", "open() is not available: Kiln runs scripts sandboxed (no files)");
  });
  def("exec", [](Interpreter& in, CallArgs&) -> Value { in.raise("NotImplementedError", "exec() is not supported by Kiln"); });
  def("eval", [](Interpreter& in, CallArgs&) -> Value { in.raise("NotImplementedError", "eval() is not supported by Kiln"); });
  def("input", [](Interpreter& in, CallArgs&) -> Value {
    in.raise("NotImplementedError", "input() is not available: scripts run without standard input");
  });
  B["__name__"] = makeStr("builtins");
  B["Ellipsis"] = std::make_shared<Obj>(VK::Ellipsis);
  {
    auto ni = cls("NotImplementedType", object);
    method(ni, "__repr__", [](Interpreter&, CallArgs&) { return makeStr("NotImplemented"); });
    method(ni, "__bool__", [](Interpreter&, CallArgs&) { return True(); });
    B["NotImplemented"] = std::make_shared<InstanceObj>(ni);
    B.erase("NotImplementedType");
  }
  installContainerMethods();
  installMoreBuiltins();
}

// ---- tracebacks ----

std::string sourceLine(const std::string& source, int line, bool stripIndent) {
  int cur = 1;
  size_t p = 0;
  while (cur < line && p < source.size()) {
    if (source[p] == '\n') ++cur;
    ++p;
  }
  if (cur != line) return "";
  size_t e = source.find('\n', p);
  std::string text = source.substr(p, e == std::string::npos ? std::string::npos : e - p);
  if (!stripIndent) return text;
  size_t b = text.find_first_not_of(" \t");
  return b == std::string::npos ? "" : text.substr(b);
}

std::string formatTraceback(const PyError& e, const std::string& source) {
  std::map<std::string, std::string> one;
  for (const auto& f : e.traceback) one[f.file] = source;
  return formatTraceback(e, one);
}

std::string formatTraceback(const PyError& e, const std::map<std::string, std::string>& sources) {
  std::string out = "Traceback (most recent call last):\n";
  for (size_t i = 0; i < e.traceback.size(); ++i) {
    const TraceFrame& f = e.traceback[i];
    out += "  File \"" + f.file + "\", line " + std::to_string(f.span.line) + ", in " + f.function + "\n";
    auto src = sources.find(f.file);
    std::string text = src == sources.end() ? "" : sourceLine(src->second, f.span.line);
    size_t indent = text.find_first_not_of(" \t");
    if (indent == std::string::npos) continue;
    out += "    " + text.substr(indent) + "\n";
    // Carets under the failing expression, as CPython 3.11+ prints them (not when the
    // expression is the whole line).
    int c0 = f.span.col - 1 - static_cast<int>(indent);
    int c1 = (f.span.endLine == f.span.line ? f.span.endCol - 1 : static_cast<int>(text.size())) - static_cast<int>(indent);
    std::string stripped = text.substr(indent);
    while (!stripped.empty() && (stripped.back() == ' ' || stripped.back() == '\r')) stripped.pop_back();
    if (c0 >= 0 && c1 > c0 && !(c0 == 0 && c1 >= static_cast<int>(stripped.size())))
      out += "    " + std::string(static_cast<size_t>(c0), ' ') + std::string(static_cast<size_t>(c1 - c0), '^') + "\n";
  }
  out += e.type();
  if (!e.message().empty()) out += ": " + e.message();
  return out + "\n";
}

std::string formatSyntaxError(const std::string& message, const std::string& file, int line, int col, const std::string& source) {
  std::string out = "  File \"" + file + "\", line " + std::to_string(line) + "\n";
  std::string text = sourceLine(source, line);
  size_t indent = text.find_first_not_of(" \t");
  if (indent != std::string::npos) {
    out += "    " + text.substr(indent) + "\n";
    int c = col - 1 - static_cast<int>(indent);
    out += "    " + std::string(static_cast<size_t>(std::max(c, 0)), ' ') + "^\n";
  }
  return out + message + "\n";
}

}  // namespace kiln::py
