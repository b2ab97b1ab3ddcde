#include "engine/python/bigint.h"
#include "engine/python/objects.h"

#include <atomic>
#include <cmath>

namespace kiln::py {

namespace {
std::atomic<uint64_t> gScopeSerial{0};
}
Scope::Scope() : serial(gScopeSerial++) {}
namespace {
uint64_t gObjSerial = 0;  // the interpreter is single-threaded; a race would only misorder, not corrupt
}
Obj::Obj(VK k) : kind(k), serial(gObjSerial++) {}
uint64_t Obj::nextSerial() { return gObjSerial; }
uint64_t Scope::nextSerial() { return gScopeSerial.load(); }

Value None() { static Value v = std::make_shared<Obj>(VK::None); return v; }
Value True() { static Value v = std::make_shared<BoolObj>(true); return v; }
Value False() { static Value v = std::make_shared<BoolObj>(false); return v; }
Value makeBool(bool b) { return b ? True() : False(); }
namespace {
// Nesting depth of container destructors on this thread, and what deeper ones left to free.
thread_local int releaseDepth = 0;
thread_local std::vector<Value> releaseQueue;
constexpr int kMaxReleaseDepth = 64;

template <typename Items, typename Move>
void release(Items& items, Move moveOut) {
  if (releaseDepth >= kMaxReleaseDepth) {
    for (auto& it : items) moveOut(it);
    items.clear();
    return;
  }
  ++releaseDepth;
  items.clear();
  if (releaseDepth == 1) {
    // The outermost release frees what deeper ones queued, one at a time (each may queue more).
    while (!releaseQueue.empty()) {
      Value v = std::move(releaseQueue.back());
      releaseQueue.pop_back();
      v.reset();
    }
  }
  --releaseDepth;
}
}  // namespace

void releaseItems(std::vector<Value>& items) {
  release(items, [](Value& v) { if (v) releaseQueue.push_back(std::move(v)); });
}

void releaseItems(std::vector<std::pair<Value, Value>>& items) {
  release(items, [](std::pair<Value, Value>& p) {
    if (p.first) releaseQueue.push_back(std::move(p.first));
    if (p.second) releaseQueue.push_back(std::move(p.second));
  });
}

Value makeInt(int64_t v) { return std::make_shared<IntObj>(v); }
Value makeBigInt(std::shared_ptr<const BigInt> b) { return std::make_shared<IntObj>(std::move(b)); }
Value makeFloat(double v) { return std::make_shared<FloatObj>(v); }
Value makeStr(std::string s) { return std::make_shared<StrObj>(std::move(s)); }
Value makeTuple(std::vector<Value> items) { auto t = std::make_shared<TupleObj>(); t->items = std::move(items); return t; }
Value makeTorchSize(std::vector<Value> items) {
  auto t = std::make_shared<TupleObj>();
  t->items = std::move(items);
  t->torchSize = true;
  return t;
}
bool isTorchSize(const Value& v) { return v && v->kind == VK::Tuple && static_cast<TupleObj*>(v.get())->torchSize; }
Value makeList(std::vector<Value> items) { auto t = std::make_shared<ListObj>(); t->items = std::move(items); return t; }
Value makeTensor(tensor::Tensor t) { return std::make_shared<TensorObj>(std::move(t)); }
Value makeBuiltin(std::string name, NativeFn fn) { return std::make_shared<BuiltinObj>(std::move(name), std::move(fn)); }
bool isNone(const Value& v) { return !v || v->kind == VK::None; }
Value makeLazyIterator(std::function<Value()> next, std::string typeName) {
  auto it = std::make_shared<IteratorObj>();
  it->nextFn = std::move(next);
  it->typeName = std::move(typeName);
  return it;
}

// Set by the interpreter: == between instances whose class defines __eq__ (a frozen dataclass
// as a dict key). Null outside an interpreter: identity.
thread_local std::function<bool(const Value&, const Value&)> gUserKeyEquals;
void setUserKeyEquals(std::function<bool(const Value&, const Value&)> f) { gUserKeyEquals = std::move(f); }

namespace {
bool keyEquals(const Value& a, const Value& b) {
  if (a == b) return true;
  if ((a->kind == VK::Instance || b->kind == VK::Instance) && gUserKeyEquals) return gUserKeyEquals(a, b);
  // Numbers equal as keys when their values are equal, exactly (1 == 1.0 == True, and
  // 2**53 + 1 != 2.0**53, which a comparison through double would confuse).
  auto intLike = [](const Value& v) { return v->kind == VK::Int || v->kind == VK::Bool; };
  // Small ints (the common key) compare without building GMP integers.
  auto smallOf = [](const Value& v, int64_t* out) {
    if (v->kind == VK::Bool) return *out = static_cast<BoolObj*>(v.get())->v, true;
    auto* i = static_cast<IntObj*>(v.get());
    return i->big ? false : (*out = i->small(), true);
  };
  int64_t x, y;
  if (intLike(a) && intLike(b)) return smallOf(a, &x) && smallOf(b, &y) ? x == y : toMpz(a) == toMpz(b);
  bool unordered = false;
  if (intLike(a) && b->kind == VK::Float) return compareIntDouble(a, static_cast<FloatObj*>(b.get())->v, &unordered) == 0 && !unordered;
  if (a->kind == VK::Float && intLike(b)) return compareIntDouble(b, static_cast<FloatObj*>(a.get())->v, &unordered) == 0 && !unordered;
  if (a->kind == VK::Float && b->kind == VK::Float) return static_cast<FloatObj*>(a.get())->v == static_cast<FloatObj*>(b.get())->v;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case VK::Str: return static_cast<StrObj*>(a.get())->v == static_cast<StrObj*>(b.get())->v;
    case VK::None: return true;
    case VK::DType: return static_cast<DTypeObj*>(a.get())->d == static_cast<DTypeObj*>(b.get())->d;
    case VK::Tuple: {
      auto& p = static_cast<TupleObj*>(a.get())->items;
      auto& q = static_cast<TupleObj*>(b.get())->items;
      if (p.size() != q.size()) return false;
      for (size_t i = 0; i < p.size(); ++i)
        if (!keyEquals(p[i], q[i])) return false;
      return true;
    }
    default: return false;  // identity only
  }
}
}  // namespace

Value DictObj::get(const Value& key) const {
  for (const auto& [k, v] : items)
    if (keyEquals(k, key)) return v;
  return nullptr;
}

void DictObj::set(const Value& key, Value v) {
  for (auto& kv : items)
    if (keyEquals(kv.first, key)) { kv.second = std::move(v); return; }
  items.emplace_back(key, std::move(v));
}

bool DictObj::erase(const Value& key) {
  for (auto it = items.begin(); it != items.end(); ++it)
    if (keyEquals(it->first, key)) { items.erase(it); return true; }
  return false;
}

Value DictObj::getStr(const std::string& key) const {
  for (const auto& [k, v] : items)
    if (k->kind == VK::Str && static_cast<StrObj*>(k.get())->v == key) return v;
  return nullptr;
}

void DictObj::setStr(const std::string& key, Value v) {
  for (auto& kv : items)
    if (kv.first->kind == VK::Str && static_cast<StrObj*>(kv.first.get())->v == key) { kv.second = std::move(v); return; }
  items.emplace_back(makeStr(key), std::move(v));
}

Value CallArgs::kwarg(const std::string& name) const {
  for (const auto& [k, v] : kwargs)
    if (k == name) return v;
  return nullptr;
}

Value ClassObj::lookup(const std::string& name) const {
  for (const auto& c : mro) {
    auto it = c->dict.find(name);
    if (it != c->dict.end()) return it->second;
  }
  return nullptr;
}

bool ClassObj::isSubclassOf(const ClassObj* other) const {
  for (const auto& c : mro)
    if (c.get() == other) return true;
  return false;
}

std::string typeName(const Value& v) {
  switch (v->kind) {
    case VK::None: return "NoneType";
    case VK::Bool: return "bool";
    case VK::Int: return "int";
    case VK::Float: return "float";
    case VK::Str: return "str";
    case VK::Tuple: return "tuple";
    case VK::List: return "list";
    case VK::Dict: return "dict";
    case VK::Function: return "function";
    case VK::Builtin: return "builtin_function_or_method";
    case VK::Class: return "type";
    case VK::Instance: return static_cast<InstanceObj*>(v.get())->cls->name;
    case VK::Module: return "module";
    case VK::BoundMethod: return "method";
    case VK::Tensor: return "Tensor";
    case VK::DType: return "dtype";
    case VK::Slice: return "slice";
    case VK::Ellipsis: return "ellipsis";
    case VK::Iterator: return static_cast<IteratorObj*>(v.get())->rangeObject ? "range" : static_cast<IteratorObj*>(v.get())->typeName;
    case VK::Generator: return "generator";
  }
  return "object";
}

}  // namespace kiln::py
