#include "engine/python/objects.h"
#include "engine/python/bigint.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>

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

Value None() {
  static Value v = std::make_shared<Obj>(VK::None);
  return v;
}
Value True() {
  static Value v = std::make_shared<BoolObj>(true);
  return v;
}
Value False() {
  static Value v = std::make_shared<BoolObj>(false);
  return v;
}
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
  release(items, [](Value& v) {
    if (v) releaseQueue.push_back(std::move(v));
  });
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
Value makeTuple(std::vector<Value> items) {
  auto t = std::make_shared<TupleObj>();
  t->items = std::move(items);
  return t;
}
Value makeTorchSize(std::vector<Value> items) {
  auto t = std::make_shared<TupleObj>();
  t->items = std::move(items);
  t->torchSize = true;
  return t;
}
bool isTorchSize(const Value& v) { return v && v->kind == VK::Tuple && as<TupleObj>(v)->torchSize; }
Value makeList(std::vector<Value> items) {
  auto t = std::make_shared<ListObj>();
  t->items = std::move(items);
  return t;
}
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
    if (v->kind == VK::Bool) return *out = as<BoolObj>(v)->v, true;
    auto* i = as<IntObj>(v);
    return i->big ? false : (*out = i->small(), true);
  };
  int64_t x, y;
  if (intLike(a) && intLike(b)) return smallOf(a, &x) && smallOf(b, &y) ? x == y : toMpz(a) == toMpz(b);
  bool unordered = false;
  if (intLike(a) && b->kind == VK::Float) return compareIntDouble(a, as<FloatObj>(b)->v, &unordered) == 0 && !unordered;
  if (a->kind == VK::Float && intLike(b)) return compareIntDouble(b, as<FloatObj>(a)->v, &unordered) == 0 && !unordered;
  if (a->kind == VK::Float && b->kind == VK::Float) return as<FloatObj>(a)->v == as<FloatObj>(b)->v;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case VK::Str: return as<StrObj>(a)->v == as<StrObj>(b)->v;
    case VK::None: return true;
    case VK::DType: return as<DTypeObj>(a)->d == as<DTypeObj>(b)->d;
    case VK::Tuple: {
      auto& p = as<TupleObj>(a)->items;
      auto& q = as<TupleObj>(b)->items;
      if (p.size() != q.size()) return false;
      for (size_t i = 0; i < p.size(); ++i)
        if (!keyEquals(p[i], q[i])) return false;
      return true;
    }
    default: return false;  // identity only
  }
}
}  // namespace

thread_local std::function<void(const Value&)> gUnhashableKey;
void setUnhashableKey(std::function<void(const Value&)> f) { gUnhashableKey = std::move(f); }

namespace {

// splitmix64's finalizer: spreads nearby ints over the table.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t strHash(const std::string& s) { return mix(std::hash<std::string>()(s)); }

// An integer beyond int64 (a BigInt, or an integral float that large), by its low 64 bits: equal
// values hash alike whichever type holds them.
uint64_t bigHash(const mpz_class& m) {
  mpz_class low;
  mpz_fdiv_r_2exp(low.get_mpz_t(), m.get_mpz_t(), 64);
  return mix(static_cast<uint64_t>(mpz_get_ui(low.get_mpz_t())) ^ 0x9e3779b97f4a7c15ULL);
}

// The index's hash of a key, consistent with keyEquals: false where the key is an instance (its
// equality is the user's __eq__), or holds one.
bool keyHash(const Value& k, uint64_t* out) {
  switch (k->kind) {
    case VK::Bool: *out = mix(static_cast<uint64_t>(as<BoolObj>(k)->v ? 1 : 0)); return true;
    case VK::Int: {
      auto* i = as<IntObj>(k);
      *out = i->big ? bigHash(toMpz(k)) : mix(static_cast<uint64_t>(i->small()));
      return true;
    }
    case VK::Float: {
      const double d = as<FloatObj>(k)->v;
      if (std::isfinite(d) && std::floor(d) == d) {
        // Equal to an int: hashed as that int (-0.0 as 0).
        if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) *out = mix(static_cast<uint64_t>(static_cast<int64_t>(d)));
        else *out = bigHash(mpz_class(d));
        return true;
      }
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      *out = mix(bits ^ 0x5bd1e995ULL);
      return true;
    }
    case VK::Str: *out = strHash(as<StrObj>(k)->v); return true;
    case VK::None: *out = 0x6a09e667f3bcc908ULL; return true;
    case VK::DType: *out = mix(static_cast<uint64_t>(as<DTypeObj>(k)->d) + 0x1000); return true;
    case VK::Tuple: {
      uint64_t h = 0x345678;
      for (const auto& x : as<TupleObj>(k)->items) {
        uint64_t e;
        if (!keyHash(x, &e)) return false;
        h = (h ^ e) * 1000003;
      }
      *out = mix(h);
      return true;
    }
    case VK::Instance: return false;
    default: *out = mix(reinterpret_cast<uintptr_t>(k.get())); return true;  // identity, as keyEquals
  }
}

// Lists, dicts and instances (sets, classes that set __hash__ = None) may be unhashable in
// Python: the interpreter decides and raises (setUnhashableKey). Cheap for the common keys.
void checkHashable(const Value& k) {
  if (!gUnhashableKey) return;
  switch (k->kind) {
    case VK::List:
    case VK::Dict:
    case VK::Instance: gUnhashableKey(k); return;
    case VK::Tuple:
      for (const auto& x : as<TupleObj>(k)->items) checkHashable(x);
      return;
    default: return;
  }
}

}  // namespace

void DictItems::place(uint32_t slot) const {
  const size_t mask = table_.size() - 1;
  for (size_t i = hashes_[slot] & mask;; i = (i + 1) & mask)
    if (!table_[i]) {
      table_[i] = slot + 1;
      return;
    }
}

bool DictItems::build() const {
  hashes_.resize(v_.size());
  for (size_t i = 0; i < v_.size(); ++i)
    if (!keyHash(v_[i].first, &hashes_[i])) {
      hashes_.clear();
      scanOnly_ = true;
      return false;
    }
  size_t cap = 16;
  while (cap < 2 * v_.size()) cap *= 2;
  table_.assign(cap, 0);
  for (size_t i = 0; i < v_.size(); ++i) place(static_cast<uint32_t>(i));
  indexed_ = true;
  return true;
}

void DictItems::appended() {
  if (!indexed_ || !useIndex) return;  // built on the next lookup
  uint64_t h;
  if (!keyHash(v_.back().first, &h)) {
    dropIndex();
    scanOnly_ = true;
    return;
  }
  hashes_.push_back(h);
  if (2 * v_.size() > table_.size()) {
    indexed_ = false;
    build();  // grows the table
    return;
  }
  place(static_cast<uint32_t>(v_.size() - 1));
}

int64_t DictItems::findStrIndexed(const std::string& key) const {
  if (!usable()) return -2;
  const uint64_t h = strHash(key);
  const size_t mask = table_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const uint32_t s = table_[i];
    if (!s) return -1;
    const Value& k = v_[s - 1].first;
    if (hashes_[s - 1] == h && k->kind == VK::Str && as<StrObj>(k)->v == key) return s - 1;
  }
}

int64_t DictItems::findIndexed(const Value& key) const {
  uint64_t h = 0;
  if (!keyHash(key, &h) || !usable()) return -2;
  const size_t mask = table_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const uint32_t s = table_[i];
    if (!s) return -1;
    if (hashes_[s - 1] == h && keyEquals(v_[s - 1].first, key)) return s - 1;
  }
}

int64_t DictItems::find(const Value& key) const {
  if (const int64_t i = findIndexed(key); i != -2) return i;
  // Small dicts, instance keys (compared through the user's __eq__): a scan, as Python would
  // find the same entry (equal keys hash alike).
  for (size_t i = 0; i < v_.size(); ++i)
    if (keyEquals(v_[i].first, key)) return static_cast<int64_t>(i);
  return -1;
}

Value DictObj::get(const Value& key) const {
  checkHashable(key);
  const int64_t i = items.find(key);
  return i < 0 ? nullptr : items[static_cast<size_t>(i)].second;
}

void DictObj::set(const Value& key, Value v) {
  checkHashable(key);
  const int64_t i = items.find(key);
  if (i >= 0) items[static_cast<size_t>(i)].second = std::move(v);
  else items.emplace_back(key, std::move(v));
}

bool DictObj::erase(const Value& key) {
  checkHashable(key);
  const int64_t i = items.find(key);
  if (i < 0) return false;
  items.erase(items.begin() + i);
  return true;
}

// By content among the str keys only (no user __eq__ runs), through the index where it answers.
Value DictObj::getStr(const std::string& key) const {
  if (items.size() >= DictItems::kIndexFrom)
    if (const int64_t i = items.findStrIndexed(key); i != -2) return i < 0 ? nullptr : items[static_cast<size_t>(i)].second;
  for (const auto& [k, v] : items)
    if (k->kind == VK::Str && as<StrObj>(k)->v == key) return v;
  return nullptr;
}

void DictObj::setStr(const std::string& key, Value v) {
  if (items.size() >= DictItems::kIndexFrom) {
    if (const int64_t i = items.findStrIndexed(key); i != -2) {
      if (i >= 0) items[static_cast<size_t>(i)].second = std::move(v);
      else items.emplace_back(makeStr(key), std::move(v));
      return;
    }
  }
  for (auto& kv : items)
    if (kv.first->kind == VK::Str && as<StrObj>(kv.first)->v == key) {
      kv.second = std::move(v);
      return;
    }
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
    case VK::Instance: return as<InstanceObj>(v)->cls->name;
    case VK::Module: return "module";
    case VK::BoundMethod: return "method";
    case VK::Tensor: return "Tensor";
    case VK::DType: return "dtype";
    case VK::Slice: return "slice";
    case VK::Ellipsis: return "ellipsis";
    case VK::Iterator: return as<IteratorObj>(v)->rangeObject ? "range" : as<IteratorObj>(v)->typeName;
    case VK::Generator: return "generator";
  }
  return "object";
}

}  // namespace kiln::py
