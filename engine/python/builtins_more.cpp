// More builtin functions: hash, chr/ord, bin/hex/oct, vars/dir/locals/globals, slice, delattr,
// issubclass with tuples, abs through __abs__, pow with a modulus, sum(start=) ... (the rest
// are in builtins.cpp).
#include "engine/python/bigint.h"
#include "engine/python/interpreter.h"
#include "engine/python/trace_hooks.h"

#include <algorithm>
#include <cmath>

namespace kiln::py {

namespace {

int64_t intOf(Interpreter& in, const Value& v, const std::string& fn) {
  if (v->kind == VK::Int) return as<IntObj>(v)->small();
  if (v->kind == VK::Bool) return as<BoolObj>(v)->v;
  if (v->kind == VK::Instance)
    if (Value r = in.callDunder(v, "__index__", {}); r && r->kind == VK::Int) return as<IntObj>(r)->small();
  in.raise("TypeError", "'" + typeName(v) + "' object cannot be interpreted as an integer" + (fn.empty() ? "" : ""));
}

std::string toBase(int64_t v, int base, const char* prefix) {
  bool neg = v < 0;
  uint64_t u = neg ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  std::string digits;
  do {
    int d = static_cast<int>(u % static_cast<uint64_t>(base));
    digits += static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10);
    u /= static_cast<uint64_t>(base);
  } while (u);
  std::reverse(digits.begin(), digits.end());
  return (neg ? "-" : "") + std::string(prefix) + digits;
}

// Raises TypeError: unhashable type: 'list' for what Python cannot hash: lists, dicts, sets,
// instances whose class sets __hash__ = None or defines __eq__ without __hash__, and tuples
// holding one. Calls no user code.
void raiseIfUnhashable(Interpreter& in, const Value& v) {
  switch (v->kind) {
    case VK::List:
    case VK::Dict: in.raise("TypeError", "unhashable type: '" + typeName(v) + "'");
    case VK::Tuple:
      for (const auto& x : as<TupleObj>(v)->items) raiseIfUnhashable(in, x);
      return;
    case VK::Instance: break;
    default: return;
  }
  auto cls = in.classOf(v);
  if (cls->name == "set") in.raise("TypeError", "unhashable type: 'set'");
  Value h = cls->lookup("__hash__");
  if (h && isNone(h)) in.raise("TypeError", "unhashable type: '" + cls->name + "'");
  // A class that defines __eq__ without __hash__ is unhashable, as in Python.
  if (!h || (h->kind == VK::Builtin && as<BuiltinObj>(h)->name == "object.__hash__")) {
    for (const auto& m : cls->mro) {
      if (m->dict.count("__hash__")) break;
      if (m->dict.count("__eq__") && m->dict.at("__eq__")->kind == VK::Function)
        in.raise("TypeError", "unhashable type: '" + cls->name + "'");
    }
  }
}

// The hash Python would give equal values (equal ints and floats hash alike; strings by
// content). Used by hash() and by user __hash__ results.
int64_t hashOf(Interpreter& in, const Value& v) {
  switch (v->kind) {
    case VK::None: return 0xFCA86420;
    case VK::Bool: return as<BoolObj>(v)->v;
    case VK::Int: {
      // CPython's int hash: the value modulo the Mersenne prime 2**61 - 1 (sign kept).
      if (int64_t x = isBigInt(v) ? 0 : as<IntObj>(v)->small(); !isBigInt(v) && x > -(int64_t{1} << 61) + 1 && x < (int64_t{1} << 61) - 1)
        return x == -1 ? -2 : x;
      {
        mpz_class m = toMpz(v), a = abs(m), p("2305843009213693951"), r;
        mpz_fdiv_r(r.get_mpz_t(), a.get_mpz_t(), p.get_mpz_t());
        int64_t h = r.get_si();
        if (m < 0) h = -h;
        return h == -1 ? -2 : h;
      }
    }
    case VK::Float: {
      double d = as<FloatObj>(v)->v;
      if (std::floor(d) == d && std::fabs(d) < 9.2e18) {
        int64_t x = static_cast<int64_t>(d);
        return x == -1 ? -2 : x;
      }
      return static_cast<int64_t>(std::hash<double>()(d) >> 1);
    }
    case VK::Str: return static_cast<int64_t>(std::hash<std::string>()(as<StrObj>(v)->v) >> 1);
    case VK::Tuple: {
      uint64_t h = 0x345678;
      for (const auto& x : as<TupleObj>(v)->items) h = (h ^ static_cast<uint64_t>(hashOf(in, x))) * 1000003;
      return static_cast<int64_t>(h >> 1);
    }
    case VK::List:
    case VK::Dict: in.raise("TypeError", "unhashable type: '" + typeName(v) + "'");
    default: break;
  }
  if (v->kind == VK::Instance) {
    raiseIfUnhashable(in, v);
    Value h = in.classOf(v)->lookup("__hash__");
    if (h && h->kind == VK::Function) {
      Value r = in.callDunder(v, "__hash__", {});
      if (r->kind != VK::Int && r->kind != VK::Bool) in.raise("TypeError", "__hash__ method should return an integer");
      return hashOf(in, r);
    }
  }
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(v.get()) >> 4);
}

}  // namespace

void Interpreter::installMoreBuiltins() {
  auto def = [&](const std::string& name, NativeFn fn) {
    Value b = makeBuiltin(name, std::move(fn));
    as<BuiltinObj>(b)->isMethod = false;
    builtins_[name] = b;
  };
  def("hash", [](Interpreter& in, CallArgs& a) { return makeInt(hashOf(in, a.args.at(0))); });
  // Dict and set keys (engine/python/objects.cpp asks only for lists, dicts, instances and tuples).
  setUnhashableKey([this](const Value& k) { raiseIfUnhashable(*this, k); });
  def("chr", [](Interpreter& in, CallArgs& a) {
    int64_t cp = intOf(in, a.args.at(0), "chr");
    if (cp < 0 || cp > 0x10FFFF) in.raise("ValueError", "chr() arg not in range(0x110000)");
    std::string s;
    auto u = static_cast<uint32_t>(cp);
    if (u < 0x80) s += static_cast<char>(u);
    else if (u < 0x800) {
      s += static_cast<char>(0xC0 | (u >> 6));
      s += static_cast<char>(0x80 | (u & 0x3F));
    } else if (u < 0x10000) {
      s += static_cast<char>(0xE0 | (u >> 12));
      s += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (u & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (u >> 18));
      s += static_cast<char>(0x80 | ((u >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (u & 0x3F));
    }
    return makeStr(s);
  });
  def("ord", [](Interpreter& in, CallArgs& a) {
    if (a.args.at(0)->kind != VK::Str) in.raise("TypeError", "ord() expected string of length 1, but " + typeName(a.args[0]) + " found");
    const std::string& s = as<StrObj>(a.args[0])->v;
    auto u = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i])); };
    if (s.empty()) in.raise("TypeError", "ord() expected a character, but string of length 0 found");
    uint32_t c = u(0);
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (s.size() != n) in.raise("TypeError", "ord() expected a character, but string of length " + std::to_string(s.size()) + " found");
    if (n == 1) return makeInt(c);
    uint32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (size_t i = 1; i < n; ++i) cp = (cp << 6) | (u(i) & 0x3F);
    return makeInt(cp);
  });
  def("bin", [](Interpreter& in, CallArgs& a) { return makeStr(toBase(intOf(in, a.args.at(0), "bin"), 2, "0b")); });
  def("oct", [](Interpreter& in, CallArgs& a) { return makeStr(toBase(intOf(in, a.args.at(0), "oct"), 8, "0o")); });
  def("hex", [](Interpreter& in, CallArgs& a) { return makeStr(toBase(intOf(in, a.args.at(0), "hex"), 16, "0x")); });
  def("vars", [](Interpreter& in, CallArgs& a) -> Value {
    if (a.args.empty()) return in.callBuiltin("locals", {});
    Value d = in.getAttrOrNull(a.args[0], "__dict__");
    if (!d) in.raise("TypeError", "vars() argument must have __dict__ attribute");
    return d;
  });
  def("locals", [](Interpreter& in, CallArgs&) -> Value {
    // A snapshot of the calling frame's variables (a copy, as CPython's is for functions).
    auto d = std::make_shared<DictObj>();
    if (!in.frames_.empty())
      for (const auto& [k, v] : in.frames_.back().scope->vars) d->setStr(k, v);
    return d;
  });
  def("globals", [](Interpreter& in, CallArgs&) -> Value {
    auto d = std::make_shared<DictObj>();
    if (!in.frames_.empty() && in.frames_.back().module)
      for (const auto& [k, v] : in.frames_.back().module->scope->vars) d->setStr(k, v);
    return d;
  });
  def("dir", [](Interpreter& in, CallArgs& a) -> Value {
    std::set<std::string> names;
    if (a.args.empty()) {
      for (const auto& [k, v] : in.frames_.back().scope->vars) names.insert(k);
    } else {
      const Value& o = a.args[0];
      if (o->kind == VK::Module)
        for (const auto& [k, v] : as<ModuleObj>(o)->scope->vars) names.insert(k);
      if (o->kind == VK::Instance)
        for (const auto& [k, v] : as<InstanceObj>(o)->dict->items) names.insert(in.str(k));
      auto cls = o->kind == VK::Class ? asShared<ClassObj>(o) : in.classOf(o);
      for (const auto& m : cls->mro)
        for (const auto& [k, v] : m->dict) names.insert(k);
    }
    std::vector<Value> out;
    for (const auto& n : names) out.push_back(makeStr(n));
    return makeList(out);
  });
  def("delattr", [](Interpreter& in, CallArgs& a) {
    in.delAttr(a.args.at(0), in.str(a.args.at(1)));
    return None();
  });
  def("issubclass", [](Interpreter& in, CallArgs& a) {
    if (a.args.size() != 2) in.raise("TypeError", "issubclass expected 2 arguments, got " + std::to_string(a.args.size()));
    if (a.args[0]->kind != VK::Class) in.raise("TypeError", "issubclass() arg 1 must be a class");
    auto* c = as<ClassObj>(a.args[0]);
    std::vector<Value> targets = a.args[1]->kind == VK::Tuple ? in.iterate(a.args[1]) : std::vector<Value>{a.args[1]};
    for (auto& t : targets) {
      if (t->kind != VK::Class) in.raise("TypeError", "issubclass() arg 2 must be a class, a tuple of classes, or a union");
      auto* tc = as<ClassObj>(t);
      if (tc->meta)
        if (Value sc = tc->meta->lookup("__subclasscheck__"); sc && sc->kind == VK::Function) {
          CallArgs c2;
          c2.args = {a.args[0]};
          if (in.truthy(in.call(in.bindAttr(sc, t, tc->meta), c2))) return True();
          continue;
        }
      if (c->isSubclassOf(tc)) return True();
    }
    return False();
  });
  def("abs", [](Interpreter& in, CallArgs& a) -> Value {
    if (a.args.size() != 1) in.raise("TypeError", "abs() takes exactly one argument (" + std::to_string(a.args.size()) + " given)");
    const Value& v = a.args[0];
    if (v->kind == VK::Int) {
      if (isBigInt(v)) return makeIntFrom(abs(toMpz(v)));
      int64_t x = as<IntObj>(v)->small();
      if (x == INT64_MIN) return makeIntFrom(abs(toMpz(v)));
      return makeInt(x < 0 ? -x : x);
    }
    if (v->kind == VK::Bool) return makeInt(as<BoolObj>(v)->v);
    if (v->kind == VK::Float) return makeFloat(std::fabs(as<FloatObj>(v)->v));
    if (v->kind == VK::Tensor) {
      CallArgs c;
      return in.call(in.getAttr(v, "abs"), c);
    }
    if (Value r = in.isUserObject(v) ? in.callDunder(v, "__abs__", {}) : nullptr) return r;
    in.raise("TypeError", "bad operand type for abs(): '" + typeName(v) + "'");
  });
  def("slice", [](Interpreter& in, CallArgs& a) -> Value {
    if (a.args.empty() || a.args.size() > 3) in.raise("TypeError", "slice expected at least 1 argument, got 0");
    auto s = std::make_shared<SliceObj>();
    if (a.args.size() == 1) {
      s->start = None();
      s->stop = a.args[0];
      s->step = None();
    } else {
      s->start = a.args[0];
      s->stop = a.args[1];
      s->step = a.args.size() > 2 ? a.args[2] : None();
    }
    return s;
  });
  def("pow", [](Interpreter& in, CallArgs& a) -> Value {
    Value mod = a.args.size() > 2 ? a.args[2] : a.kwarg("mod");
    if (!mod || isNone(mod)) return in.binaryOp("**", a.args.at(0), a.args.at(1));
    int64_t b = intOf(in, a.args.at(0), "pow"), e = intOf(in, a.args.at(1), "pow"), m = intOf(in, mod, "pow");
    if (m == 0) in.raise("ValueError", "pow() 3rd argument cannot be 0");
    if (e < 0) in.raise("ValueError", "pow() 2nd argument cannot be negative when 3rd argument specified");
    __int128 r = 1, x = ((b % m) + m) % m;
    for (; e > 0; e >>= 1) {
      if (e & 1) r = r * x % m;
      x = x * x % m;
    }
    int64_t out = static_cast<int64_t>(r);
    if (m < 0 && out > 0) out += m;
    return makeInt(out);
  });
  def("ascii", [](Interpreter& in, CallArgs& a) { return makeStr(in.repr(a.args.at(0))); });
}

Value Interpreter::callBuiltin(const std::string& name, std::vector<Value> args) {
  CallArgs a;
  a.args = std::move(args);
  return call(builtins_.at(name), a);
}

}  // namespace kiln::py
