// Python builtins: functions, builtin classes and their methods, exceptions, repr/str.
#include "engine/python/interpreter.h"

#include "engine/capture/tracer.h"
#include "engine/python/pyformat.h"
#include "engine/torch/tensor_protocol.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace kiln::py {

namespace {
int64_t toInt(Interpreter& in, const Value& v, const char* what) {
  if (v->kind == VK::Int) return static_cast<IntObj*>(v.get())->v;
  if (v->kind == VK::Bool) return static_cast<BoolObj*>(v.get())->v;
  in.raise("TypeError", std::string("'") + typeName(v) + "' object cannot be interpreted as an integer" + (what[0] ? std::string(" (") + what + ")" : ""));
}
double toDouble(Interpreter& in, const Value& v) {
  if (v->kind == VK::Float) return static_cast<FloatObj*>(v.get())->v;
  if (v->kind == VK::Int) return double(static_cast<IntObj*>(v.get())->v);
  if (v->kind == VK::Bool) return static_cast<BoolObj*>(v.get())->v;
  in.raise("TypeError", "must be real number, not " + typeName(v));
}
void arity(Interpreter& in, const CallArgs& a, size_t lo, size_t hi, const std::string& name) {
  if (a.args.size() < lo || a.args.size() > hi) {
    if (lo == hi)
      in.raise("TypeError", name + "() takes exactly " + std::to_string(lo) + " argument" + (lo == 1 ? "" : "s") + " (" + std::to_string(a.args.size()) + " given)");
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
std::shared_ptr<DictObj> setItems(const Value& v) { return std::static_pointer_cast<DictObj>(static_cast<InstanceObj*>(v.get())->native); }
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

std::string Interpreter::repr(const Value& v) {
  switch (v->kind) {
    case VK::None: return "None";
    case VK::Bool: return static_cast<BoolObj*>(v.get())->v ? "True" : "False";
    case VK::Int: return std::to_string(static_cast<IntObj*>(v.get())->v);
    case VK::Float: return floatRepr(static_cast<FloatObj*>(v.get())->v);
    case VK::Str: {
      const std::string& s = static_cast<StrObj*>(v.get())->v;
      char q = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
      std::string out(1, q);
      for (char c : s) {
        if (c == q || c == '\\') { out += '\\'; out += c; }
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else out += c;
      }
      return out + q;
    }
    case VK::Tuple: {
      auto& items = static_cast<TupleObj*>(v.get())->items;
      const bool size = static_cast<TupleObj*>(v.get())->torchSize;
      std::string out = size ? "torch.Size([" : "(";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i]);
      if (size) return out + "])";
      return out + (items.size() == 1 ? ",)" : ")");
    }
    case VK::List: {
      auto& items = static_cast<ListObj*>(v.get())->items;
      std::string out = "[";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i]);
      return out + "]";
    }
    case VK::Dict: {
      auto& items = static_cast<DictObj*>(v.get())->items;
      std::string out = "{";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i].first) + ": " + repr(items[i].second);
      return out + "}";
    }
    case VK::Tensor: return torchapi::tensorRepr(*this, v);
    case VK::DType: return std::string(ir::torchName(static_cast<DTypeObj*>(v.get())->d));
    case VK::Function: return "<function " + static_cast<FunctionObj*>(v.get())->qualname + ">";
    case VK::Builtin: return "<built-in function " + static_cast<BuiltinObj*>(v.get())->name + ">";
    case VK::Class: return "<class '" + static_cast<ClassObj*>(v.get())->name + "'>";
    case VK::Module: return "<module '" + static_cast<ModuleObj*>(v.get())->name + "'>";
    case VK::Ellipsis: return "Ellipsis";
    case VK::Slice: {
      auto* s = static_cast<SliceObj*>(v.get());
      return "slice(" + repr(s->start) + ", " + repr(s->stop) + ", " + repr(s->step) + ")";
    }
    case VK::Instance: {
      auto* inst = static_cast<InstanceObj*>(v.get());
      if (Value r = inst->cls->lookup("__repr__")) {
        CallArgs a;
        return str(call(std::make_shared<BoundMethodObj>(v, r), a));
      }
      if (inst->cls->isException) {
        Value args = inst->dict->getStr("args");
        auto items = args ? iterate(args) : std::vector<Value>{};
        std::string out = inst->cls->name + "(";
        for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i]);
        return out + ")";
      }
      return "<" + inst->cls->name + " object>";
    }
    default: return "<" + typeName(v) + ">";
  }
}

std::string Interpreter::str(const Value& v) {
  if (v->kind == VK::Str) return static_cast<StrObj*>(v.get())->v;
  if (v->kind == VK::Instance) {
    auto* inst = static_cast<InstanceObj*>(v.get());
    if (Value s = inst->cls->lookup("__str__")) {
      CallArgs a;
      return str(call(std::make_shared<BoundMethodObj>(v, s), a));
    }
    if (inst->cls->isException) {
      auto items = iterate(inst->dict->getStr("args") ? inst->dict->getStr("args") : makeTuple({}));
      if (items.empty()) return "";
      if (items.size() == 1) return str(items[0]);
      return repr(makeTuple(items));
    }
  }
  return repr(v);
}

void Interpreter::installBuiltins() {
  auto& B = builtins_;
  auto def = [&](const std::string& name, NativeFn fn) { B[name] = makeBuiltin(name, std::move(fn)); };
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
  // Exceptions
  auto baseExc = cls("BaseException", object);
  baseExc->isException = true;
  auto exc = cls("Exception", baseExc);
  for (const char* n : {"TypeError", "ValueError", "NameError", "AttributeError", "IndexError", "KeyError", "RuntimeError",
                        "ZeroDivisionError", "AssertionError", "ImportError", "StopIteration", "NotImplementedError",
                        "OverflowError", "MemoryError", "RecursionError", "LookupError", "ArithmeticError", "SyntaxError"})
    cls(n, exc);
  classes_["ModuleNotFoundError"] = nullptr;
  cls("ModuleNotFoundError", classes_["ImportError"]);
  cls("UnboundLocalError", classes_["NameError"]);
  // IndexError/KeyError are LookupErrors; ZeroDivisionError/OverflowError ArithmeticErrors.
  for (auto [child, parent] : {std::pair{"IndexError", "LookupError"}, {"KeyError", "LookupError"},
                               {"ZeroDivisionError", "ArithmeticError"}, {"OverflowError", "ArithmeticError"},
                               {"RecursionError", "RuntimeError"}, {"NotImplementedError", "RuntimeError"}}) {
    auto c = classes_[child];
    auto p = classes_[parent];
    c->mro = {c};
    for (auto& m : p->mro) c->mro.push_back(m);
  }
  for (auto& [n, c] : classes_)
    if (c && c->isException) {
      c->dict["__init__"] = makeBuiltin(n + ".__init__", [](Interpreter&, CallArgs& a) {
        auto* inst = static_cast<InstanceObj*>(a.args[0].get());
        inst->dict->setStr("args", makeTuple(std::vector<Value>(a.args.begin() + 1, a.args.end())));
        return None();
      });
    }

  // Scalar types: calling them converts.
  auto intCls = cls("int", object);
  method(intCls, "__new__", [](Interpreter& in, CallArgs& a) -> Value {
    if (a.args.size() < 2) return makeInt(0);
    const Value& v = a.args[1];
    if (v->kind == VK::Float) {
      double d = static_cast<FloatObj*>(v.get())->v;
      if (std::isnan(d)) in.raise("ValueError", "cannot convert float NaN to integer");
      if (std::isinf(d)) in.raise("OverflowError", "cannot convert float infinity to integer");
      return makeInt(static_cast<int64_t>(std::trunc(d)));
    }
    if (v->kind == VK::Str) {
      const std::string& s = static_cast<StrObj*>(v.get())->v;
      char* end = nullptr;
      long long r = std::strtoll(s.c_str(), &end, a.args.size() > 2 ? static_cast<int>(toInt(in, a.args[2], "")) : 10);
      while (end && *end == ' ') ++end;
      if (s.empty() || (end && *end)) in.raise("ValueError", "invalid literal for int() with base 10: " + in.repr(v));
      return makeInt(r);
    }
    if (v->kind == VK::Tensor) return in.call(in.getAttr(in.call(in.getAttr(v, "item"), *std::make_unique<CallArgs>()), "__int__"), *std::make_unique<CallArgs>());
    return makeInt(toInt(in, v, ""));
  });
  method(intCls, "__int__", [](Interpreter& in, CallArgs& a) { return makeInt(toInt(in, a.args[0], "")); });
  auto floatCls = cls("float", object);
  method(floatCls, "__new__", [](Interpreter& in, CallArgs& a) -> Value {
    if (a.args.size() < 2) return makeFloat(0.0);
    const Value& v = a.args[1];
    if (v->kind == VK::Str) {
      std::string s = static_cast<StrObj*>(v.get())->v;
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
    if (v->kind == VK::Tensor) {
      CallArgs none;
      Value item = in.call(in.getAttr(v, "item"), none);
      return makeFloat(toDouble(in, item));
    }
    return makeFloat(toDouble(in, v));
  });
  method(floatCls, "is_integer", [](Interpreter& in, CallArgs& a) { double d = toDouble(in, a.args[0]); return makeBool(std::floor(d) == d); });
  auto boolCls = cls("bool", intCls);
  method(boolCls, "__new__", [](Interpreter& in, CallArgs& a) { return makeBool(a.args.size() > 1 && in.truthy(a.args[1])); });
  auto strCls = cls("str", object);
  method(strCls, "__new__", [](Interpreter& in, CallArgs& a) { return a.args.size() > 1 ? makeStr(in.str(a.args[1])) : makeStr(""); });
  auto sv = [](const Value& v) -> const std::string& { return static_cast<StrObj*>(v.get())->v; };
  method(strCls, "join", [sv](Interpreter& in, CallArgs& a) {
    std::string out;
    auto items = in.iterate(a.args.at(1));
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i]->kind != VK::Str) in.raise("TypeError", "sequence item " + std::to_string(i) + ": expected str instance, " + typeName(items[i]) + " found");
      out += (i ? sv(a.args[0]) : "") + sv(items[i]);
    }
    return makeStr(out);
  });
  method(strCls, "format", [sv](Interpreter& in, CallArgs& a) {
    const std::string& f = sv(a.args[0]);
    std::string out;
    size_t auto_ = 1;
    for (size_t i = 0; i < f.size(); ++i) {
      if (f[i] == '{' && i + 1 < f.size() && f[i + 1] == '{') { out += '{'; ++i; continue; }
      if (f[i] == '}' && i + 1 < f.size() && f[i + 1] == '}') { out += '}'; ++i; continue; }
      if (f[i] != '{') { out += f[i]; continue; }
      size_t j = f.find('}', i);
      if (j == std::string::npos) in.raise("ValueError", "Single '{' encountered in format string");
      std::string field = f.substr(i + 1, j - i - 1), spec;
      auto colon = field.find(':');
      if (colon != std::string::npos) { spec = field.substr(colon + 1); field = field.substr(0, colon); }
      Value v;
      if (field.empty()) {
        if (auto_ >= a.args.size()) in.raise("IndexError", "Replacement index " + std::to_string(auto_ - 1) + " out of range for positional args tuple");
        v = a.args[auto_++];
      } else if (std::isdigit(static_cast<unsigned char>(field[0]))) {
        size_t k = std::stoul(field) + 1;
        if (k >= a.args.size()) in.raise("IndexError", "Replacement index " + field + " out of range for positional args tuple");
        v = a.args[k];
      } else {
        v = a.kwarg(field);
        if (!v) in.raise("KeyError", "'" + field + "'");
      }
      out += spec.empty() ? in.str(v) : formatValue(in, v, spec);
      i = j;
    }
    return makeStr(out);
  });
  method(strCls, "startswith", [sv](Interpreter&, CallArgs& a) { return makeBool(sv(a.args[0]).rfind(sv(a.args.at(1)), 0) == 0); });
  method(strCls, "endswith", [sv](Interpreter&, CallArgs& a) {
    const std::string &s = sv(a.args[0]), &x = sv(a.args.at(1));
    return makeBool(s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0);
  });
  method(strCls, "upper", [sv](Interpreter&, CallArgs& a) { std::string s = sv(a.args[0]); for (auto& c : s) c = static_cast<char>(toupper(c)); return makeStr(s); });
  method(strCls, "lower", [sv](Interpreter&, CallArgs& a) { std::string s = sv(a.args[0]); for (auto& c : s) c = static_cast<char>(tolower(c)); return makeStr(s); });
  method(strCls, "strip", [sv](Interpreter&, CallArgs& a) {
    std::string s = sv(a.args[0]);
    size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
    return makeStr(b == std::string::npos ? "" : s.substr(b, e - b + 1));
  });
  method(strCls, "split", [sv](Interpreter& in, CallArgs& a) {
    const std::string& s = sv(a.args[0]);
    std::vector<Value> out;
    if (a.args.size() < 2 || isNone(a.args[1])) {
      std::istringstream is(s);
      std::string w;
      while (is >> w) out.push_back(makeStr(w));
      return makeList(out);
    }
    const std::string& sep = sv(a.args[1]);
    if (sep.empty()) in.raise("ValueError", "empty separator");
    size_t p = 0, q;
    while ((q = s.find(sep, p)) != std::string::npos) { out.push_back(makeStr(s.substr(p, q - p))); p = q + sep.size(); }
    out.push_back(makeStr(s.substr(p)));
    return makeList(out);
  });
  method(strCls, "replace", [sv](Interpreter&, CallArgs& a) {
    std::string s = sv(a.args[0]);
    const std::string &from = sv(a.args.at(1)), &to = sv(a.args.at(2));
    if (from.empty()) return makeStr(s);
    std::string out;
    size_t p = 0, q;
    while ((q = s.find(from, p)) != std::string::npos) { out += s.substr(p, q - p) + to; p = q + from.size(); }
    return makeStr(out + s.substr(p));
  });

  for (const char* n : {"list", "tuple", "dict", "set", "frozenset", "dict_keys", "dict_values", "dict_items"}) cls(n, object);
  auto prop = cls("property", object);
  method(prop, "__new__", [](Interpreter& in, CallArgs& a) {
    auto inst = std::make_shared<InstanceObj>(in.builtinClass("property"));
    inst->dict->setStr("fget", a.args.at(1));
    return Value(inst);
  });
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
      capture::Unsupported u("KB002", "Failed to trace builtin operator",
                             "Dynamo does not know how to trace builtin operator `print` with argument types " + sig +
                                 " (has_kwargs " + (a.kwargs.empty() ? "False" : "True") + ")",
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
    switch (v->kind) {
      case VK::Str: return makeInt(static_cast<int64_t>(static_cast<StrObj*>(v.get())->v.size()));
      case VK::List: return makeInt(static_cast<int64_t>(static_cast<ListObj*>(v.get())->items.size()));
      case VK::Tuple: return makeInt(static_cast<int64_t>(static_cast<TupleObj*>(v.get())->items.size()));
      case VK::Dict: return makeInt(static_cast<int64_t>(static_cast<DictObj*>(v.get())->items.size()));
      case VK::Tensor: {
        auto ty = static_cast<TensorObj*>(v.get())->tensorType();
        if (ty.sizes.empty()) in.raise("TypeError", "len() of a 0-d tensor");
        return makeInt(ty.sizes[0].value);
      }
      case VK::Iterator: {
        auto* it = static_cast<IteratorObj*>(v.get());
        if (it->rangeObject) {
          int64_t n = it->rStep > 0 ? (it->rStop - it->rStart + it->rStep - 1) / it->rStep : (it->rStart - it->rStop - it->rStep - 1) / -it->rStep;
          return makeInt(std::max<int64_t>(n, 0));
        }
        break;
      }
      case VK::Instance:
        if (Value m = static_cast<InstanceObj*>(v.get())->cls->lookup("__len__")) {
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
    int64_t s = 0, e, st = 1;
    if (a.args.size() == 1) e = toInt(in, a.args[0], "");
    else { s = toInt(in, a.args[0], ""); e = toInt(in, a.args[1], ""); }
    if (a.args.size() == 3) st = toInt(in, a.args[2], "");
    if (st == 0) in.raise("ValueError", "range() arg 3 must not be zero");
    return makeRange(s, e, st);
  });
  def("enumerate", [](Interpreter& in, CallArgs& a) {
    if (a.args.empty()) in.raise("TypeError", "enumerate() missing required argument 'iterable'");
    Value it = in.getIter(a.args[0]);
    int64_t start = a.args.size() > 1 ? toInt(in, a.args[1], "") : (a.kwarg("start") ? toInt(in, a.kwarg("start"), "") : 0);
    auto n = std::make_shared<int64_t>(start);
    return makeLazyIterator([&in, it, n]() -> Value {
      Value v = in.nextItem(it);
      if (!v) return nullptr;
      return makeTuple({makeInt((*n)++), v});
    }, "enumerate");
  });
  def("zip", [](Interpreter& in, CallArgs& a) {
    std::vector<Value> its;
    for (auto& x : a.args) its.push_back(in.getIter(x));
    bool strict = a.kwarg("strict") && in.truthy(a.kwarg("strict"));
    return makeLazyIterator([&in, its, strict]() -> Value {
      if (its.empty()) return nullptr;
      std::vector<Value> t;
      for (size_t i = 0; i < its.size(); ++i) {
        Value v = in.nextItem(its[i]);
        if (!v) {
          if (strict) {
            if (i > 0) in.raise("ValueError", "zip() argument " + std::to_string(i + 1) + " is shorter than argument" + (i > 1 ? "s 1-" + std::to_string(i) : " 1"));
            for (size_t j = 1; j < its.size(); ++j)
              if (in.nextItem(its[j])) in.raise("ValueError", "zip() argument " + std::to_string(j + 1) + " is longer than argument" + (j > 1 ? "s 1-" + std::to_string(j) : " 1"));
          }
          return nullptr;
        }
        t.push_back(v);
      }
      return makeTuple(t);
    }, "zip");
  });
  def("reversed", [](Interpreter& in, CallArgs& a) {
    const Value& v = a.args.at(0);
    if (v->kind == VK::Instance)
      if (Value m = static_cast<InstanceObj*>(v.get())->cls->lookup("__reversed__")) {
        CallArgs c;
        return in.call(std::make_shared<BoundMethodObj>(v, m), c);
      }
    if (v->kind == VK::Iterator && !static_cast<IteratorObj*>(v.get())->rangeObject)
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
      return makeLazyIterator([&in, fn, sentinel]() -> Value {
        CallArgs c;
        Value v = in.call(fn, c);
        return in.equals(v, sentinel) ? nullptr : v;
      }, "callable_iterator");
    }
    return in.getIter(a.args[0]);
  });
  def("next", [](Interpreter& in, CallArgs& a) {
    arity(in, a, 1, 2, "next");
    const Value& it = a.args[0];
    bool isIter = it->kind == VK::Iterator || it->kind == VK::Generator ||
                  (it->kind == VK::Instance && static_cast<InstanceObj*>(it.get())->cls->lookup("__next__"));
    if (!isIter || (it->kind == VK::Iterator && static_cast<IteratorObj*>(it.get())->rangeObject))
      in.raise("TypeError", "'" + typeName(it) + "' object is not an iterator");
    if (it->kind == VK::Instance) {
      // A user iterator's StopIteration (with its value) propagates as raised.
      CallArgs c;
      if (a.args.size() == 1) return in.call(std::make_shared<BoundMethodObj>(it, static_cast<InstanceObj*>(it.get())->cls->lookup("__next__")), c);
    }
    Value v = in.nextItem(it);
    if (v) return v;
    if (a.args.size() > 1) return a.args[1];
    if (it->kind == VK::Generator) {
      auto* g = static_cast<GeneratorObj*>(it.get());
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
  def("issubclass", [](Interpreter& in, CallArgs& a) {
    if (a.args.at(0)->kind != VK::Class) in.raise("TypeError", "issubclass() arg 1 must be a class");
    if (a.args.at(1)->kind != VK::Class) in.raise("TypeError", "issubclass() arg 2 must be a class");
    return makeBool(static_cast<ClassObj*>(a.args[0].get())->isSubclassOf(static_cast<ClassObj*>(a.args[1].get())));
  });
  def("getattr", [](Interpreter& in, CallArgs& a) {
    arity(in, a, 2, 3, "getattr");
    if (a.args[1]->kind != VK::Str) in.raise("TypeError", "attribute name must be string, not '" + typeName(a.args[1]) + "'");
    if (a.args.size() == 3) {
      Value v = in.getAttrOrNull(a.args[0], static_cast<StrObj*>(a.args[1].get())->v);
      return v ? v : a.args[2];
    }
    return in.getAttr(a.args[0], static_cast<StrObj*>(a.args[1].get())->v);
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
      std::vector<Value> items = a.args.size() == 1 ? in.iterate(a.args[0]) : a.args;
      Value key = a.kwarg("key");
      if (items.empty()) {
        if (Value d = a.kwarg("default")) return d;
        in.raise("ValueError", std::string(isMax ? "max" : "min") + "() iterable argument is empty");
      }
      Value best = items[0], bestKey = key ? in.call(key, *std::make_unique<CallArgs>(CallArgs{{items[0]}, {}, {}})) : items[0];
      for (size_t i = 1; i < items.size(); ++i) {
        Value k = key ? in.call(key, *std::make_unique<CallArgs>(CallArgs{{items[i]}, {}, {}})) : items[i];
        if (in.truthy(in.compare(isMax ? ">" : "<", k, bestKey))) { best = items[i]; bestKey = k; }
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
  def("abs", [](Interpreter& in, CallArgs& a) -> Value {
    arity(in, a, 1, 1, "abs");
    const Value& v = a.args[0];
    if (v->kind == VK::Int) return makeInt(std::llabs(static_cast<IntObj*>(v.get())->v));
    if (v->kind == VK::Bool) return makeInt(static_cast<BoolObj*>(v.get())->v);
    if (v->kind == VK::Float) return makeFloat(std::fabs(static_cast<FloatObj*>(v.get())->v));
    if (v->kind == VK::Tensor) { CallArgs c; return in.call(in.getAttr(v, "abs"), c); }
    in.raise("TypeError", "bad operand type for abs(): '" + typeName(v) + "'");
  });
  def("round", [](Interpreter& in, CallArgs& a) -> Value {
    double d = toDouble(in, a.args.at(0));
    if (a.args.size() < 2 || isNone(a.args[1])) {
      if (a.args[0]->kind != VK::Float) return a.args[0];
      double r = std::nearbyint(d);  // banker's rounding under the default FE_TONEAREST
      return makeInt(static_cast<int64_t>(r));
    }
    int64_t nd = toInt(in, a.args[1], "");
    double m = std::pow(10.0, static_cast<double>(nd));
    double r = std::nearbyint(d * m) / m;
    if (a.args[0]->kind != VK::Float) return makeInt(static_cast<int64_t>(r));
    return makeFloat(r);
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
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
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
    return makeLazyIterator([&in, its, fn]() -> Value {
      CallArgs c;
      for (const auto& it : its) {
        Value v = in.nextItem(it);
        if (!v) return nullptr;
        c.args.push_back(v);
      }
      return in.call(fn, c);
    }, "map");
  });
  def("filter", [](Interpreter& in, CallArgs& a) {
    arity(in, a, 2, 2, "filter");
    Value it = in.getIter(a.args[1]);
    Value fn = a.args[0];
    return makeLazyIterator([&in, it, fn]() -> Value {
      while (Value v = in.nextItem(it)) {
        CallArgs c;
        c.args.push_back(v);
        if (isNone(fn) ? in.truthy(v) : in.truthy(in.call(fn, c))) return v;
      }
      return nullptr;
    }, "filter");
  });
  def("id", [](Interpreter&, CallArgs& a) { return makeInt(static_cast<int64_t>(reinterpret_cast<intptr_t>(a.args.at(0).get()))); });
  def("type", [](Interpreter& in, CallArgs& a) -> Value {
    const Value& v = a.args.at(0);
    if (in.tracer && a.args.size() == 1) in.tracer->onType(v);
    if (v->kind == VK::Instance) return static_cast<InstanceObj*>(v.get())->cls;
    if (auto c = in.builtinClass(typeName(v))) return c;
    auto c = std::make_shared<ClassObj>();
    c->name = typeName(v);
    c->mro.push_back(c);
    return Value(c);
  });
  def("callable", [](Interpreter& in, CallArgs& a) {
    const Value& v = a.args.at(0);
    bool c = v->kind == VK::Function || v->kind == VK::Builtin || v->kind == VK::BoundMethod || v->kind == VK::Class ||
             (v->kind == VK::Instance && in.getAttrOrNull(v, "__call__"));
    return makeBool(c);
  });
  def("repr", [](Interpreter& in, CallArgs& a) { return makeStr(in.repr(a.args.at(0))); });
  def("format", [](Interpreter& in, CallArgs& a) { return makeStr(formatValue(in, a.args.at(0), a.args.size() > 1 ? in.str(a.args[1]) : "")); });
  def("divmod", [](Interpreter& in, CallArgs& a) { return makeTuple({in.binaryOp("//", a.args.at(0), a.args.at(1)), in.binaryOp("%", a.args[0], a.args[1])}); });
  def("pow", [](Interpreter& in, CallArgs& a) { return in.binaryOp("**", a.args.at(0), a.args.at(1)); });
  def("super", [](Interpreter& in, CallArgs& a) { return in.superProxy(a); });
  def("open", [](Interpreter& in, CallArgs&) -> Value { in.raise("PermissionError", "open() is not available: Kiln runs scripts sandboxed (no files)"); });
  def("exec", [](Interpreter& in, CallArgs&) -> Value { in.raise("NotImplementedError", "exec() is not supported by Kiln"); });
  def("eval", [](Interpreter& in, CallArgs&) -> Value { in.raise("NotImplementedError", "eval() is not supported by Kiln"); });
  def("input", [](Interpreter& in, CallArgs&) -> Value { in.raise("NotImplementedError", "input() is not available: scripts run without standard input"); });
  B["__name__"] = makeStr("builtins");
  B["Ellipsis"] = std::make_shared<Obj>(VK::Ellipsis);
  B["NotImplemented"] = makeStr("NotImplemented");
  installContainerMethods();
}

Value Interpreter::superProxy(CallArgs& a) {
  // super() in a method: look the attribute up after the defining class in self's MRO.
  std::shared_ptr<ClassObj> start;
  Value self;
  if (a.args.size() == 2) {
    start = std::static_pointer_cast<ClassObj>(a.args[0]);
    self = a.args[1];
  } else {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (it->classDef) { start = it->classDef; self = it->classSelf; break; }
  }
  if (!start || !self) raise("RuntimeError", "super(): no arguments");
  auto proxyCls = std::make_shared<ClassObj>();
  proxyCls->name = "super";
  proxyCls->mro.push_back(proxyCls);
  std::shared_ptr<ClassObj> selfCls = self->kind == VK::Instance ? static_cast<InstanceObj*>(self.get())->cls : std::static_pointer_cast<ClassObj>(self);
  bool after = false;
  for (auto& m : selfCls->mro) {
    if (after) proxyCls->mro.push_back(m);
    if (m == start) after = true;
  }
  auto proxy = std::make_shared<InstanceObj>(proxyCls);
  // Bind lookups to the real self: copy methods as bound methods.
  for (auto& m : proxyCls->mro)
    for (auto& [k, v] : m->dict)
      if (!proxy->dict->getStr(k) && (v->kind == VK::Function || v->kind == VK::Builtin))
        proxy->dict->setStr(k, std::make_shared<BoundMethodObj>(self, v));
  return proxy;
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
