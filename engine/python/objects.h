// Python values as Kiln's interpreter sees them. Values are reference counted (shared_ptr),
// so object lifetimes follow Python's: capture relies on knowing what is still alive.
#pragma once

#include "engine/ir/types.h"
#include "engine/python/ast.h"
#include "engine/tensor/tensor.h"

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::py {

enum class VK {
  None,
  Bool,
  Int,
  Float,
  Str,
  Tuple,
  List,
  Dict,
  Function,
  Builtin,
  Class,
  Instance,
  Module,
  BoundMethod,
  Tensor,
  DType,
  Slice,
  Ellipsis,
  Iterator,
  Generator,
};

struct Obj;
using Value = std::shared_ptr<Obj>;

struct ClassObj;
struct DictObj;
// An instance of a user subclass of a builtin type (class D(dict)): the value stays a dict (or
// list, tuple, int ...), with the subclass and its own attributes.
struct SubclassInfo {
  std::shared_ptr<ClassObj> cls;
  std::shared_ptr<DictObj> attrs;
};

struct Obj {
  explicit Obj(VK k);
  virtual ~Obj() = default;
  VK kind;
  uint64_t serial;  // creation order: capture tells objects made during a trace from older ones
  std::shared_ptr<SubclassInfo> sub;
  static uint64_t nextSerial();
};

// A Python int. Values beyond int64 carry a BigInt (engine/python/bigint.h) and are never
// stored small; code that needs a C integer calls small(), which raises OverflowError for a big
// value (CPython's "Python int too large to convert to C long") instead of truncating it.
struct BigInt;
struct IntObj : Obj {
  explicit IntObj(int64_t x) : Obj(VK::Int), v_(x) {}
  explicit IntObj(std::shared_ptr<const BigInt> b) : Obj(VK::Int), big(std::move(b)) {}
  int64_t small() const {
    if (big) throwIntTooLarge();
    return v_;
  }
  std::shared_ptr<const BigInt> big;
  [[noreturn]] static void throwIntTooLarge();

 private:
  int64_t v_ = 0;
};
struct BoolObj : Obj {
  explicit BoolObj(bool x) : Obj(VK::Bool), v(x) {}
  bool v;
};
struct FloatObj : Obj {
  explicit FloatObj(double x) : Obj(VK::Float), v(x) {}
  double v;
};
struct StrObj : Obj {
  explicit StrObj(std::string x) : Obj(VK::Str), v(std::move(x)) {}
  std::string v;
};
// `torchSize`: a torch.Size (tensor.shape, tensor.size()): a tuple that prints as
// torch.Size([2, 3]) and stays one when sliced or extended.
// Releases a container's items without recursing without bound: past a small nesting depth the
// items are queued and freed by the outermost release (CPython's "trashcan"), so freeing a list
// nested a million deep cannot overflow the stack.
void releaseItems(std::vector<Value>& items);
void releaseItems(std::vector<std::pair<Value, Value>>& items);
struct TupleObj : Obj {
  TupleObj() : Obj(VK::Tuple) {}
  ~TupleObj() override { releaseItems(items); }
  std::vector<Value> items;
  bool torchSize = false;
};
struct ListObj : Obj {
  ListObj() : Obj(VK::List) {}
  ~ListObj() override { releaseItems(items); }
  std::vector<Value> items;
};
struct DTypeObj : Obj {
  explicit DTypeObj(ir::DType d) : Obj(VK::DType), d(d) {}
  ir::DType d;
};
struct SliceObj : Obj {
  SliceObj() : Obj(VK::Slice) {}
  Value start, stop, step;
};

// A dict's entries in insertion order, with a hash index over their keys once there are
// kIndexFrom of them, so a lookup costs about one key comparison instead of a scan of every
// entry. Equal keys hash alike (1 == 1.0 == True; 2**70 == 2.0**70; tuples by their items; str by
// content; other objects by identity). Instances (user __eq__/__hash__) are not hashed here: a
// dict holding one, or a lookup of one, scans as before, comparing through __eq__.
// Invariant: a key is never assigned in place (entries[i].first = k); entries are added and
// removed through these members, which keep the index in step. Element access and iteration
// may change values. mutableVec() hands out the plain vector and drops the index.
class DictItems {
 public:
  using Entry = std::pair<Value, Value>;
  using Vec = std::vector<Entry>;
  using value_type = Entry;
  using iterator = Vec::iterator;
  using const_iterator = Vec::const_iterator;
  static constexpr size_t kIndexFrom = 8;
  // Off: every lookup scans, as before the index (bench/dict_bench.cpp measures both).
  static inline bool useIndex = true;

  DictItems() = default;
  DictItems(Vec v) : v_(std::move(v)) {}  // NOLINT: a vector of entries reads as a dict's
  DictItems(const DictItems& o) : v_(o.v_) {}
  DictItems(DictItems&& o) noexcept : v_(std::move(o.v_)) { o.dropIndex(); }
  DictItems& operator=(const DictItems& o) {
    if (this != &o) v_ = o.v_, dropIndex();
    return *this;
  }
  DictItems& operator=(DictItems&& o) noexcept {
    v_ = std::move(o.v_);
    dropIndex();
    o.dropIndex();
    return *this;
  }
  DictItems& operator=(Vec v) {
    v_ = std::move(v);
    dropIndex();
    return *this;
  }

  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  iterator begin() { return v_.begin(); }
  iterator end() { return v_.end(); }
  const_iterator begin() const { return v_.begin(); }
  const_iterator end() const { return v_.end(); }
  Entry& operator[](size_t i) { return v_[i]; }
  const Entry& operator[](size_t i) const { return v_[i]; }
  Entry& at(size_t i) { return v_.at(i); }
  const Entry& at(size_t i) const { return v_.at(i); }
  Entry& front() { return v_.front(); }
  const Entry& front() const { return v_.front(); }
  Entry& back() { return v_.back(); }
  const Entry& back() const { return v_.back(); }
  void reserve(size_t n) { v_.reserve(n); }
  const Vec& vec() const { return v_; }
  Vec& mutableVec() {
    dropIndex();
    return v_;
  }

  void push_back(Entry e) {
    v_.push_back(std::move(e));
    appended();
  }
  template <typename... A>
  Entry& emplace_back(A&&... a) {
    v_.emplace_back(std::forward<A>(a)...);
    appended();
    return v_.back();
  }
  iterator erase(const_iterator it) {
    dropIndex();
    return v_.erase(it);
  }
  iterator erase(const_iterator a, const_iterator b) {
    dropIndex();
    return v_.erase(a, b);
  }
  iterator insert(const_iterator pos, Entry e) {
    dropIndex();
    return v_.insert(pos, std::move(e));
  }
  void pop_back() {
    dropIndex();
    v_.pop_back();
  }
  void clear() {
    dropIndex();
    v_.clear();
  }

  // The position of the entry whose key equals `key`, or -1.
  int64_t find(const Value& key) const;
  // Through the index only: the position, -1, or -2 where the index cannot answer (a small dict,
  // an instance key): then the caller scans.
  int64_t findIndexed(const Value& key) const;
  // The same for a str key given as its content (attribute lookups: no key object is made).
  int64_t findStrIndexed(const std::string& key) const;

 private:
  void appended();
  void dropIndex() {
    indexed_ = scanOnly_ = false;
    table_.clear();
    hashes_.clear();
  }
  bool build() const;  // false: a key cannot be hashed here (scan instead)
  bool usable() const { return useIndex && v_.size() >= kIndexFrom && !scanOnly_ && (indexed_ || build()); }
  void place(uint32_t slot) const;

  Vec v_;
  mutable std::vector<uint32_t> table_;   // open addressing, linear probing: entry index + 1, 0 = empty
  mutable std::vector<uint64_t> hashes_;  // per entry, while indexed_
  mutable bool indexed_ = false;          // table_ covers every entry
  mutable bool scanOnly_ = false;         // an entry's key is an instance: lookups scan
};

// Insertion-ordered dict keyed by hashable values (str, int, bool, None, float, tuples of
// those, instances through their __hash__/__eq__, other objects by identity).
struct DictObj : Obj {
  DictObj() : Obj(VK::Dict) {}
  ~DictObj() override { releaseItems(items.mutableVec()); }
  DictItems items;
  Value get(const Value& key) const;
  void set(const Value& key, Value v);
  bool erase(const Value& key);
  Value getStr(const std::string& key) const;
  void setStr(const std::string& key, Value v);
};

// Variables of one function activation (or of a module). Closures keep their defining scope
// alive, which gives Python's cell semantics for reads and nonlocal writes.
struct Scope {
  Scope();
  std::unordered_map<std::string, Value> vars;
  std::shared_ptr<Scope> parent;  // enclosing function scope (not globals)
  uint64_t serial;                // creation order (capture tells scopes made during a trace)
  static uint64_t nextSerial();   // the serial the next scope gets
};

class Interpreter;

struct ModuleObj : Obj {
  explicit ModuleObj(std::string n) : Obj(VK::Module), name(std::move(n)), scope(std::make_shared<Scope>()) {}
  std::string name;
  std::string file;
  std::shared_ptr<Scope> scope;  // module attributes = its globals
  // Called with (name, value) before `module.name = value` stores it (it may throw): how a
  // native module's flag reaches the engine, as PyTorch's module-class properties
  // (torch.backends.cudnn.allow_tf32 calls torch._C._set_cudnn_allow_tf32). Empty for most.
  std::function<void(Interpreter&, const std::string&, const Value&)> onSetAttr;
};

struct FunctionObj : Obj {
  FunctionObj() : Obj(VK::Function) {}
  std::string name, qualname;
  StmtP def;     // FunctionDef (null for lambdas)
  ExprP lambda;  // Lambda expression
  std::vector<Param> params;
  std::vector<Value> defaults;     // one per param (null = no default)
  std::shared_ptr<Scope> closure;  // defining function scope (null at module level)
  std::shared_ptr<ModuleObj> module;
  std::unordered_map<std::string, Value> attrs;  // function attributes (__name__ etc. are computed)
};

class Interpreter;
struct CallArgs {
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
  Span span;  // call site
  Value kwarg(const std::string& name) const;
  bool hasKwarg(const std::string& name) const { return kwarg(name) != nullptr; }
};

using NativeFn = std::function<Value(Interpreter&, CallArgs&)>;

struct BuiltinObj : Obj {
  BuiltinObj(std::string n, NativeFn f) : Obj(VK::Builtin), name(std::move(n)), fn(std::move(f)) {}
  std::string name;  // qualified, e.g. "torch.cos", "print", "Tensor.relu"
  NativeFn fn;
  Value wrapped;                // the function a wrapper stands for (torch.compiler.disable(fn))
  bool isMethod = true;         // in a class, binds to the instance (a builtin type's method); module functions do not
  bool dynamoDisabled = false;  // torch.compiler.disable: never traced, a graph break when called from a trace
};

struct ClassObj : Obj {
  ClassObj() : Obj(VK::Class) {}
  std::string name, qualname;
  std::vector<std::shared_ptr<ClassObj>> bases;
  std::vector<std::shared_ptr<ClassObj>> mro;  // including itself
  std::map<std::string, Value> dict;
  std::shared_ptr<ModuleObj> module;
  std::shared_ptr<ClassObj> meta;  // its metaclass (null: type)
  std::vector<std::string> order;  // names the class body defined, in order
  bool isException = false;
  Value lookup(const std::string& name) const;  // along the MRO
  bool isSubclassOf(const ClassObj* other) const;
};

struct InstanceObj : Obj {
  explicit InstanceObj(std::shared_ptr<ClassObj> c) : Obj(VK::Instance), cls(std::move(c)) {}
  std::shared_ptr<ClassObj> cls;
  std::shared_ptr<DictObj> dict = std::make_shared<DictObj>();
  // Native state some builtin classes attach (compiled module state, context managers ...).
  std::shared_ptr<void> native;
};

struct BoundMethodObj : Obj {
  BoundMethodObj(Value s, Value f) : Obj(VK::BoundMethod), self(std::move(s)), fn(std::move(f)) {}
  Value self, fn;
};

// A tensor: real (eager) or fake (capture: only type + the graph node it stands for).
struct TensorObj : Obj {
  explicit TensorObj(tensor::Tensor x) : Obj(VK::Tensor), t(std::move(x)) {}
  TensorObj(ir::TensorType ty, int node) : Obj(VK::Tensor), fake(true), type(std::move(ty)), node(node) {}
  tensor::Tensor t;
  bool fake = false;
  ir::TensorType type;             // fake only
  int node = -1;                   // fake only: captured-graph node id
  Value grad;                      // .grad (None until set)
  bool parameter = false;          // an nn.Parameter
  std::shared_ptr<DictObj> attrs;  // attributes the program set (x.tag = 3, Dynamo's marks)
  ir::TensorType tensorType() const { return fake ? type : t.type(); }
};

// A Python iterator: over materialized items, a range, a live list or tuple (sees appends
// made while iterating, as Python's list iterator does), or produced lazily by `nextFn`
// (zip, map, enumerate over anything, including infinite generators).
// `rangeObject` marks a range itself (a re-iterable sequence), not an iterator over one.
struct IteratorObj : Obj {
  IteratorObj() : Obj(VK::Iterator) {}
  std::vector<Value> items;
  size_t pos = 0;
  bool isRange = false;
  bool rangeObject = false;
  int64_t rStart = 0, rStop = 0, rStep = 1, rCur = 0;
  Value seq;                          // live list/tuple
  std::function<Value()> nextFn;      // lazy: the next item, or null at the end
  std::string typeName = "iterator";  // what type() and repr() call it
};

class Coroutine;
// A generator: a function body (or generator expression) running on a coroutine of its own,
// suspended at each `yield`. Engine/python/generators.cpp drives it.
struct GeneratorObj : Obj {
  GeneratorObj();
  ~GeneratorObj() override;
  std::string name, qualname;
  Interpreter* in = nullptr;  // null once the interpreter is gone
  std::unique_ptr<Coroutine> co;
  std::shared_ptr<void> frame;      // its interpreter frame while suspended (Interpreter::Frame)
  std::shared_ptr<void> keepAlive;  // what the frame points to (a comprehension's local names)
  Value yielded;                    // the value of the last yield
  Value sent;                       // the value send() passes in (None for next())
  Value returned;                   // the return value (StopIteration.value)
  std::exception_ptr pending;       // thrown in at the yield by throw() / close()
  bool finished() const;
};

// Singletons and constructors.
Value None();
Value True();
Value False();
Value makeBool(bool b);
Value makeInt(int64_t v);
Value makeBigInt(std::shared_ptr<const BigInt> b);  // engine/python/bigint.h: makeIntFrom
Value makeFloat(double v);
Value makeStr(std::string s);
Value makeTuple(std::vector<Value> items);
Value makeTorchSize(std::vector<Value> items);
bool isTorchSize(const Value& v);
Value makeList(std::vector<Value> items);
Value makeTensor(tensor::Tensor t);
Value makeBuiltin(std::string name, NativeFn fn);
// A lazy native iterator: `next` returns the next item or null at the end.
Value makeLazyIterator(std::function<Value()> next, std::string typeName = "iterator");

// Dict keys that are instances of classes defining __eq__ compare through it (installed by the
// interpreter for its thread).
void setUserKeyEquals(std::function<bool(const Value&, const Value&)> f);
// Called with a dict key of a type Python cannot hash (a list, a dict, a set, an instance whose
// class sets __hash__ = None or defines __eq__ without __hash__, a tuple holding one): the
// interpreter raises TypeError: unhashable type: 'list' there (installed for its thread).
void setUnhashableKey(std::function<void(const Value&)> f);

// The Python type name of a value ("int", "Tensor", "MyModule").
std::string typeName(const Value& v);
bool isNone(const Value& v);

}  // namespace kiln::py

// py::as<T>(v): the checked downcast from a Value to its object type (every user of objects needs it).
#include "engine/python/cast.h"  // IWYU pragma: export
