// The methods of list, tuple, dict (with its live keys/values/items views), set and frozenset.
// Every method that changes a container first tells the tracer (while capturing, a change to a
// container that existed before capture is a side effect the compiled entry replays).
#include "engine/python/interpreter.h"
#include "engine/python/trace_hooks.h"

#include <algorithm>

namespace kiln::py {

namespace {

int64_t intArg(Interpreter& in, const Value& v) {
  if (v->kind == VK::Int) return as<IntObj>(v)->small();
  if (v->kind == VK::Bool) return as<BoolObj>(v)->v;
  in.raise("TypeError", "'" + typeName(v) + "' object cannot be interpreted as an integer");
}

std::vector<Value>& listItems(const Value& v) { return as<ListObj>(v)->items; }
DictObj& dictOf(const Value& v) { return *as<DictObj>(v); }

bool isSetLike(const Value& v) {
  if (v->kind != VK::Instance) return false;
  const std::string& n = as<InstanceObj>(v)->cls->name;
  return n == "set" || n == "frozenset";
}
std::shared_ptr<DictObj> members(const Value& v) { return std::static_pointer_cast<DictObj>(as<InstanceObj>(v)->native); }

void touch(Interpreter& in, const Value& container) {
  if (in.tracer) in.tracer->onMutate(container);
}

// Python's sort: stable, by key, comparing with `<` only.
void sortValues(Interpreter& in, std::vector<Value>& items, const Value& key, bool reverse) {
  std::vector<std::pair<Value, Value>> keyed;
  for (auto& v : items) {
    Value k = v;
    if (key && !isNone(key)) {
      CallArgs c;
      c.args.push_back(v);
      k = in.call(key, c);
    }
    keyed.emplace_back(k, v);
  }
  // Every 2^16 comparisons a stop request (Ctrl-C, a time limit) is raised: int comparisons never
  // reach the interpreter's own checks. The list keeps its items then (only `keyed` was sorted).
  uint64_t compares = 0;
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    if ((++compares & 0xffff) == 0) in.checkInterrupt();
    return reverse ? in.truthy(in.compare("<", b.first, a.first)) : in.truthy(in.compare("<", a.first, b.first));
  });
  for (size_t i = 0; i < items.size(); ++i) items[i] = keyed[i].second;
}

}  // namespace

Value Interpreter::makeSet(std::vector<Value> items, bool frozen) {
  auto d = std::make_shared<DictObj>();
  for (auto& v : items) d->set(v, None());
  auto inst = std::make_shared<InstanceObj>(builtinClass(frozen ? "frozenset" : "set"));
  inst->native = d;
  return inst;
}

void Interpreter::installContainerMethods() {
  auto method = [&](const std::string& cls, const std::string& name, NativeFn fn) {
    auto c = builtinClass(cls);
    c->dict[name] = makeBuiltin(cls + "." + name, std::move(fn));
  };

  auto isExactly = [](Interpreter& in, const Value& cls, const char* name) { return cls.get() == in.builtinClass(name).get(); };
  // ---- list ----
  method("list", "__new__", [isExactly](Interpreter& in, CallArgs& a) {
    if (!isExactly(in, a.args.at(0), "list")) return makeList({});
    return makeList(a.args.size() > 1 ? in.iterate(a.args[1]) : std::vector<Value>{});
  });
  method("list", "__init__", [](Interpreter& in, CallArgs& a) {
    if (a.args.at(0)->kind != VK::List || !a.args[0]->sub) return None();
    listItems(a.args[0]) = a.args.size() > 1 ? in.iterate(a.args[1]) : std::vector<Value>{};
    return None();
  });
  method("list", "append", [](Interpreter& in, CallArgs& a) {
    touch(in, a.args[0]);
    listItems(a.args[0]).push_back(a.args.at(1));
    return None();
  });
  method("list", "extend", [](Interpreter& in, CallArgs& a) {
    auto x = in.iterate(a.args.at(1));
    touch(in, a.args[0]);
    auto& l = listItems(a.args[0]);
    l.insert(l.end(), x.begin(), x.end());
    return None();
  });
  method("list", "insert", [](Interpreter& in, CallArgs& a) {
    touch(in, a.args[0]);
    auto& l = listItems(a.args[0]);
    int64_t i = intArg(in, a.args.at(1)), n = static_cast<int64_t>(l.size());
    if (i < 0) i = std::max<int64_t>(0, i + n);
    l.insert(l.begin() + std::min(i, n), a.args.at(2));
    return None();
  });
  method("list", "pop", [](Interpreter& in, CallArgs& a) {
    auto& l = listItems(a.args[0]);
    if (l.empty()) in.raise("IndexError", "pop from empty list");
    int64_t i = a.args.size() > 1 ? intArg(in, a.args[1]) : -1, n = static_cast<int64_t>(l.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) in.raise("IndexError", "pop index out of range");
    touch(in, a.args[0]);
    Value v = l[static_cast<size_t>(i)];
    l.erase(l.begin() + i);
    return v;
  });
  method("list", "remove", [](Interpreter& in, CallArgs& a) {
    auto& l = listItems(a.args[0]);
    for (size_t i = 0; i < l.size(); ++i)
      if (l[i] == a.args.at(1) || in.equals(l[i], a.args[1])) {
        touch(in, a.args[0]);
        l.erase(l.begin() + static_cast<int64_t>(i));
        return None();
      }
    in.raise("ValueError", "list.remove(x): x not in list");
  });
  method("list", "index", [](Interpreter& in, CallArgs& a) {
    auto& l = listItems(a.args[0]);
    int64_t n = static_cast<int64_t>(l.size());
    int64_t start = a.args.size() > 2 ? intArg(in, a.args[2]) : 0, stop = a.args.size() > 3 ? intArg(in, a.args[3]) : n;
    if (start < 0) start = std::max<int64_t>(0, start + n);
    if (stop < 0) stop = std::max<int64_t>(0, stop + n);
    for (int64_t i = start; i < std::min(stop, n); ++i)
      if (l[static_cast<size_t>(i)] == a.args.at(1) || in.equals(l[static_cast<size_t>(i)], a.args[1])) return makeInt(i);
    in.raise("ValueError", in.repr(a.args[1]) + " is not in list");
  });
  method("list", "count", [](Interpreter& in, CallArgs& a) {
    int64_t c = 0;
    for (auto& v : listItems(a.args[0])) c += v == a.args.at(1) || in.equals(v, a.args[1]);
    return makeInt(c);
  });
  method("list", "reverse", [](Interpreter& in, CallArgs& a) {
    touch(in, a.args[0]);
    std::reverse(listItems(a.args[0]).begin(), listItems(a.args[0]).end());
    return None();
  });
  method("list", "sort", [](Interpreter& in, CallArgs& a) {
    if (a.args.size() > 1) in.raise("TypeError", "sort() takes no positional arguments");
    touch(in, a.args[0]);
    std::vector<Value> items = listItems(a.args[0]);
    Value rev = a.kwarg("reverse");
    sortValues(in, items, a.kwarg("key"), rev && in.truthy(rev));
    listItems(a.args[0]) = std::move(items);
    return None();
  });
  method("list", "copy", [](Interpreter&, CallArgs& a) { return makeList(listItems(a.args[0])); });
  method("list", "clear", [](Interpreter& in, CallArgs& a) {
    touch(in, a.args[0]);
    listItems(a.args[0]).clear();
    return None();
  });

  // ---- tuple ----
  method("tuple", "__new__",
         [](Interpreter& in, CallArgs& a) { return makeTuple(a.args.size() > 1 ? in.iterate(a.args[1]) : std::vector<Value>{}); });
  method("tuple", "index", [](Interpreter& in, CallArgs& a) {
    auto items = in.iterate(a.args[0]);
    int64_t n = static_cast<int64_t>(items.size());
    int64_t start = a.args.size() > 2 ? intArg(in, a.args[2]) : 0, stop = a.args.size() > 3 ? intArg(in, a.args[3]) : n;
    if (start < 0) start = std::max<int64_t>(0, start + n);
    if (stop < 0) stop = std::max<int64_t>(0, stop + n);
    for (int64_t i = start; i < std::min(stop, n); ++i)
      if (items[static_cast<size_t>(i)] == a.args.at(1) || in.equals(items[static_cast<size_t>(i)], a.args[1])) return makeInt(i);
    in.raise("ValueError", "tuple.index(x): x not in tuple");
  });
  // The builtin item access and length, callable unbound (tuple.__getitem__(self, i) in a
  // namedtuple's field property): they read the native items, never a subclass's override.
  for (const char* cls : {"tuple", "list", "dict"}) {
    const std::string name = cls;
    const VK kind = name == "tuple" ? VK::Tuple : name == "list" ? VK::List : VK::Dict;
    auto self = [name, kind](Interpreter& in, CallArgs& a, const char* method) {
      if (a.args.empty() || a.args[0]->kind != kind)
        in.raise("TypeError", "descriptor '" + std::string(method) + "' requires a '" + name + "' object but received a '" +
                                  (a.args.empty() ? std::string("NoneType") : typeName(a.args[0])) + "'");
      return a.args[0];
    };
    method(name, "__getitem__", [self, kind](Interpreter& in, CallArgs& a) -> Value {
      Value obj = self(in, a, "__getitem__");
      if (a.args.size() != 2) in.raise("TypeError", "expected 1 argument, got " + std::to_string(a.args.size() - 1));
      if (!obj->sub) return in.subscript(obj, a.args[1]);
      if (kind == VK::Dict) {
        Value v = as<DictObj>(obj)->get(a.args[1]);
        if (!v) in.raiseWith("KeyError", {a.args[1]});
        return v;
      }
      // A plain copy of a subclass's items, so its own __getitem__ is not called again.
      std::vector<Value> items = kind == VK::Tuple ? as<TupleObj>(obj)->items : listItems(obj);
      return in.subscript(kind == VK::Tuple ? makeTuple(std::move(items)) : makeList(std::move(items)), a.args[1]);
    });
    method(name, "__len__", [self, kind](Interpreter& in, CallArgs& a) {
      Value obj = self(in, a, "__len__");
      size_t n = kind == VK::Tuple  ? as<TupleObj>(obj)->items.size()
                 : kind == VK::List ? listItems(obj).size()
                                    : as<DictObj>(obj)->items.size();
      return makeInt(static_cast<int64_t>(n));
    });
  }
  method("tuple", "count", [](Interpreter& in, CallArgs& a) {
    int64_t c = 0;
    for (auto& v : in.iterate(a.args[0])) c += v == a.args.at(1) || in.equals(v, a.args[1]);
    return makeInt(c);
  });

  // ---- dict ----
  // Adds a mapping or an iterable of pairs (dict(x), d.update(x)).
  auto addFrom = [](Interpreter& in, DictObj& d, const Value& src) {
    if (src->kind == VK::Dict) {
      for (auto& [k, v] : dictOf(src).items) d.set(k, v);
      return;
    }
    if (Value keys = src->kind == VK::Instance ? in.getAttrOrNull(src, "keys") : nullptr) {
      CallArgs none;
      for (auto& k : in.iterate(in.call(keys, none))) d.set(k, in.subscript(src, k));
      return;
    }
    size_t i = 0;
    for (auto& kv : in.iterate(src)) {
      auto p = in.iterate(kv);
      if (p.size() != 2)
        in.raise("ValueError", "dictionary update sequence element #" + std::to_string(i) + " has length " + std::to_string(p.size()) +
                                   "; 2 is required");
      d.set(p[0], p[1]);
      ++i;
    }
  };
  // dict(...) builds its items in __new__; a subclass's instance starts empty and its
  // __init__ (dict.__init__ through super()) fills it, as in Python.
  method("dict", "__new__", [addFrom, isExactly](Interpreter& in, CallArgs& a) {
    auto d = std::make_shared<DictObj>();
    if (!isExactly(in, a.args.at(0), "dict")) return Value(d);
    if (a.args.size() > 2) in.raise("TypeError", "dict expected at most 1 argument, got " + std::to_string(a.args.size() - 1));
    if (a.args.size() > 1) addFrom(in, *d, a.args[1]);
    for (auto& [k, v] : a.kwargs) d->setStr(k, v);
    return Value(d);
  });
  method("dict", "__init__", [addFrom](Interpreter& in, CallArgs& a) {
    if (a.args.at(0)->kind != VK::Dict || !a.args[0]->sub) return None();  // dict(...) already filled it
    if (a.args.size() > 1) addFrom(in, dictOf(a.args[0]), a.args[1]);
    for (auto& [k, v] : a.kwargs) dictOf(a.args[0]).setStr(k, v);
    return None();
  });
  for (const char* view : {"keys", "values", "items"}) {
    std::string kind = view;
    method("dict", view, [kind](Interpreter& in, CallArgs& a) {
      if (in.tracer) in.tracer->onDictKeys(a.args[0]);
      auto inst = std::make_shared<InstanceObj>(in.builtinClass("dict_" + kind));
      inst->dict->setStr("_mapping", a.args[0]);
      return Value(inst);
    });
  }
  method("dict", "get", [](Interpreter& in, CallArgs& a) {
    Value v = dictOf(a.args[0]).get(a.args.at(1));
    // While capturing, d.get(k) is d[k] (guarded) or the entry holds while k is absent.
    if (in.tracer && !v) in.tracer->onContains(a.args[0], a.args[1], false);
    if (in.tracer && v) v = in.tracer->onItem(a.args[0], a.args[1], v);
    return v ? v : (a.args.size() > 2 ? a.args[2] : None());
  });
  method("dict", "pop", [](Interpreter& in, CallArgs& a) {
    Value v = dictOf(a.args[0]).get(a.args.at(1));
    if (!v && in.tracer) in.tracer->onContains(a.args[0], a.args[1], false);
    if (!v) {
      if (a.args.size() > 2) return a.args[2];
      in.raise("KeyError", in.repr(a.args[1]));
    }
    touch(in, a.args[0]);
    dictOf(a.args[0]).erase(a.args[1]);
    return v;
  });
  method("dict", "popitem", [](Interpreter& in, CallArgs& a) {
    auto& items = dictOf(a.args[0]).items;
    if (items.empty()) in.raise("KeyError", "'popitem(): dictionary is empty'");
    touch(in, a.args[0]);
    auto kv = items.back();
    items.pop_back();
    return makeTuple({kv.first, kv.second});
  });
  method("dict", "setdefault", [](Interpreter& in, CallArgs& a) {
    Value v = dictOf(a.args[0]).get(a.args.at(1));
    if (v) return v;
    Value d = a.args.size() > 2 ? a.args[2] : None();
    touch(in, a.args[0]);
    dictOf(a.args[0]).set(a.args[1], d);
    return d;
  });
  method("dict", "update", [addFrom](Interpreter& in, CallArgs& a) {
    touch(in, a.args[0]);
    if (a.args.size() > 1) addFrom(in, dictOf(a.args[0]), a.args[1]);
    for (auto& [k, v] : a.kwargs) dictOf(a.args[0]).setStr(k, v);
    return None();
  });
  method("dict", "clear", [](Interpreter& in, CallArgs& a) {
    touch(in, a.args[0]);
    dictOf(a.args[0]).items.clear();
    return None();
  });
  method("dict", "copy", [](Interpreter&, CallArgs& a) {
    auto d = std::make_shared<DictObj>();
    d->items = dictOf(a.args[0]).items;
    return Value(d);
  });
  builtinClass("dict")->dict["fromkeys"] = [&] {
    auto cm = std::make_shared<InstanceObj>(builtinClass("classmethod"));
    cm->dict->setStr("fn", makeBuiltin("dict.fromkeys", [](Interpreter& in, CallArgs& a) {
                       auto d = std::make_shared<DictObj>();
                       Value v = a.args.size() > 2 ? a.args[2] : None();
                       for (auto& k : in.iterate(a.args.at(1))) d->set(k, v);
                       return Value(d);
                     }));
    return Value(cm);
  }();
  method("dict", "__or__", [](Interpreter& in, CallArgs& a) -> Value {
    if (a.args.at(1)->kind != VK::Dict)
      in.raise("TypeError", "unsupported operand type(s) for |: 'dict' and '" + typeName(a.args[1]) + "'");
    auto d = std::make_shared<DictObj>();
    d->items = dictOf(a.args[0]).items;
    for (auto& [k, v] : dictOf(a.args[1]).items) d->set(k, v);
    return d;
  });

  // Live views: d.keys() sees keys added later, as in Python.
  for (const char* kind : {"keys", "values", "items"}) {
    std::string k = kind, cls = std::string("dict_") + kind;
    auto mapping = [](const Value& self) { return as<InstanceObj>(self)->dict->getStr("_mapping"); };
    auto snapshot = [k, mapping](const Value& self) {
      std::vector<Value> out;
      for (auto& [key, v] : dictOf(mapping(self)).items) out.push_back(k == "keys" ? key : k == "values" ? v : makeTuple({key, v}));
      return out;
    };
    method(cls, "__iter__", [snapshot, mapping](Interpreter& in, CallArgs& a) {
      Value d = mapping(a.args[0]);
      size_t size = dictOf(d).items.size();
      auto items = std::make_shared<std::vector<Value>>(snapshot(a.args[0]));
      auto pos = std::make_shared<size_t>(0);
      return makeLazyIterator([&in, d, size, items, pos]() -> Value {
        if (dictOf(d).items.size() != size) in.raise("RuntimeError", "dictionary changed size during iteration");
        if (*pos >= items->size()) return nullptr;
        return (*items)[(*pos)++];
      });
    });
    method(cls, "__len__",
           [mapping](Interpreter&, CallArgs& a) { return makeInt(static_cast<int64_t>(dictOf(mapping(a.args[0])).items.size())); });
    method(cls, "__contains__", [k, snapshot, mapping](Interpreter& in, CallArgs& a) {
      if (k == "keys") return makeBool(dictOf(mapping(a.args[0])).get(a.args.at(1)) != nullptr);
      for (auto& v : snapshot(a.args[0]))
        if (in.equals(v, a.args.at(1))) return True();
      return False();
    });
    method(cls, "__repr__",
           [cls, snapshot](Interpreter& in, CallArgs& a) { return makeStr(cls + "(" + in.repr(makeList(snapshot(a.args[0]))) + ")"); });
    if (k != "values") {
      // A keys or items view equals any set-like of the same elements (set, frozenset, view).
      method(cls, "__eq__", [snapshot](Interpreter& in, CallArgs& a) -> Value {
        const Value& other = a.args.at(1);
        const std::string on = other->kind == VK::Instance ? as<InstanceObj>(other)->cls->name : "";
        if (!isSetLike(other) && on != "dict_keys" && on != "dict_items") return False();
        Value mine = in.makeSet(snapshot(a.args[0]), false);
        return makeBool(in.equals(mine, isSetLike(other) ? other : in.makeSet(in.iterate(other), false)));
      });
    }
    if (k != "values")
      for (const char* op : {"__or__", "__and__", "__sub__", "__xor__"}) {
        std::string o = op;
        method(cls, o, [o, snapshot](Interpreter& in, CallArgs& a) {
          Value mine = in.makeSet(snapshot(a.args[0]), false);
          CallArgs c;
          c.args = {isSetLike(a.args.at(1)) ? a.args[1] : in.makeSet(in.iterate(a.args[1]), false)};
          return in.call(in.getAttr(mine, o), c);
        });
      }
  }

  // ---- set / frozenset ----
  for (const char* name : {"set", "frozenset"}) {
    std::string cls = name;
    bool frozen = cls == "frozenset";
    method(cls, "__new__", [frozen](Interpreter& in, CallArgs& a) {
      return in.makeSet(a.args.size() > 1 ? in.iterate(a.args[1]) : std::vector<Value>{}, frozen);
    });
    method(cls, "__len__", [](Interpreter&, CallArgs& a) { return makeInt(static_cast<int64_t>(members(a.args[0])->items.size())); });
    method(cls, "__contains__", [](Interpreter&, CallArgs& a) { return makeBool(members(a.args[0])->get(a.args.at(1)) != nullptr); });
    method(cls, "copy", [frozen](Interpreter& in, CallArgs& a) {
      std::vector<Value> items;
      for (auto& [k, v] : members(a.args[0])->items) items.push_back(k);
      return in.makeSet(items, frozen);
    });
    auto combine = [frozen](const std::string& op) {
      return [op, frozen](Interpreter& in, CallArgs& a) -> Value {
        std::vector<Value> mine;
        for (auto& [k, v] : members(a.args[0])->items) mine.push_back(k);
        std::vector<Value> out;
        if (op == "union") {
          out = mine;
          for (size_t i = 1; i < a.args.size(); ++i)
            for (auto& x : in.iterate(a.args[i])) out.push_back(x);
          return in.makeSet(out, frozen);
        }
        std::vector<Value> others;
        auto otherSet = [&](const Value& v) { return isSetLike(v) ? members(v) : members(in.makeSet(in.iterate(v), true)); };
        if (op == "intersection") {
          for (auto& x : mine) {
            bool all = true;
            for (size_t i = 1; i < a.args.size(); ++i) all = all && otherSet(a.args[i])->get(x) != nullptr;
            if (all) out.push_back(x);
          }
        } else if (op == "difference") {
          for (auto& x : mine) {
            bool any = false;
            for (size_t i = 1; i < a.args.size(); ++i) any = any || otherSet(a.args[i])->get(x) != nullptr;
            if (!any) out.push_back(x);
          }
        } else {  // symmetric_difference
          auto other = otherSet(a.args.at(1));
          for (auto& x : mine)
            if (!other->get(x)) out.push_back(x);
          for (auto& [x, v] : other->items)
            if (!members(a.args[0])->get(x)) out.push_back(x);
        }
        return in.makeSet(out, frozen);
      };
    };
    for (const char* op : {"union", "intersection", "difference", "symmetric_difference"}) method(cls, op, combine(op));
    for (auto [dunder, op] :
         {std::pair{"__or__", "union"}, {"__and__", "intersection"}, {"__sub__", "difference"}, {"__xor__", "symmetric_difference"}}) {
      auto fn = combine(op);
      std::string d = dunder;
      method(cls, d, [fn, d](Interpreter& in, CallArgs& a) -> Value {
        if (!isSetLike(a.args.at(1)))
          in.raise("TypeError", "unsupported operand type(s) for " +
                                    std::string(d == "__or__"    ? "|"
                                                : d == "__and__" ? "&"
                                                : d == "__sub__" ? "-"
                                                                 : "^") +
                                    ": '" + typeName(a.args[0]) + "' and '" + typeName(a.args[1]) + "'");
        return fn(in, a);
      });
    }
    method(cls, "issubset", [](Interpreter& in, CallArgs& a) {
      auto other = isSetLike(a.args.at(1)) ? members(a.args[1]) : members(in.makeSet(in.iterate(a.args[1]), true));
      for (auto& [k, v] : members(a.args[0])->items)
        if (!other->get(k)) return False();
      return True();
    });
    method(cls, "issuperset", [](Interpreter& in, CallArgs& a) {
      for (auto& x : in.iterate(a.args.at(1)))
        if (!members(a.args[0])->get(x)) return False();
      return True();
    });
    method(cls, "isdisjoint", [](Interpreter& in, CallArgs& a) {
      for (auto& x : in.iterate(a.args.at(1)))
        if (members(a.args[0])->get(x)) return False();
      return True();
    });
    method(cls, "__eq__", [](Interpreter&, CallArgs& a) {
      if (!isSetLike(a.args.at(1))) return False();
      auto x = members(a.args[0]), y = members(a.args[1]);
      if (x->items.size() != y->items.size()) return False();
      for (auto& [k, v] : x->items)
        if (!y->get(k)) return False();
      return True();
    });
    for (auto [dunder, test] : {std::pair{"__le__", "issubset"}, {"__ge__", "issuperset"}}) {
      std::string t = test;
      method(cls, dunder, [t](Interpreter& in, CallArgs& a) {
        CallArgs c;
        c.args = {a.args.at(1)};
        return in.call(in.getAttr(a.args[0], t), c);
      });
    }
    method(cls, "__iter__", [](Interpreter&, CallArgs& a) {
      auto it = std::make_shared<IteratorObj>();
      for (auto& [k, v] : members(a.args[0])->items) it->items.push_back(k);
      it->typeName = "set_iterator";
      return Value(it);
    });
    method(cls, "__repr__", [cls](Interpreter& in, CallArgs& a) {
      auto d = members(a.args[0]);
      if (d->items.empty()) return makeStr(cls + "()");
      std::string out = cls == "frozenset" ? "frozenset({" : "{";
      for (size_t i = 0; i < d->items.size(); ++i) out += (i ? ", " : "") + in.repr(d->items[i].first);
      return makeStr(out + (cls == "frozenset" ? "})" : "}"));
    });
    if (frozen) continue;
    method(cls, "add", [](Interpreter& in, CallArgs& a) {
      if (!members(a.args[0])->get(a.args.at(1))) {
        touch(in, a.args[0]);
        members(a.args[0])->set(a.args[1], None());
      }
      return None();
    });
    method(cls, "update", [](Interpreter& in, CallArgs& a) {
      touch(in, a.args[0]);
      for (size_t i = 1; i < a.args.size(); ++i)
        for (auto& x : in.iterate(a.args[i])) members(a.args[0])->set(x, None());
      return None();
    });
    method(cls, "discard", [](Interpreter& in, CallArgs& a) {
      if (members(a.args[0])->get(a.args.at(1))) {
        touch(in, a.args[0]);
        members(a.args[0])->erase(a.args[1]);
      }
      return None();
    });
    method(cls, "remove", [](Interpreter& in, CallArgs& a) {
      if (!members(a.args[0])->get(a.args.at(1))) in.raise("KeyError", in.repr(a.args[1]));
      touch(in, a.args[0]);
      members(a.args[0])->erase(a.args[1]);
      return None();
    });
    method(cls, "pop", [](Interpreter& in, CallArgs& a) {
      auto d = members(a.args[0]);
      if (d->items.empty()) in.raise("KeyError", "'pop from an empty set'");
      touch(in, a.args[0]);
      Value v = d->items.front().first;
      d->items.erase(d->items.begin());
      return v;
    });
    method(cls, "clear", [](Interpreter& in, CallArgs& a) {
      touch(in, a.args[0]);
      members(a.args[0])->items.clear();
      return None();
    });
    for (auto [name2, op] : {std::pair{"intersection_update", "intersection"},
                             {"difference_update", "difference"},
                             {"symmetric_difference_update", "symmetric_difference"}}) {
      auto fn = combine(op);
      method(cls, name2, [fn](Interpreter& in, CallArgs& a) {
        Value r = fn(in, a);
        touch(in, a.args[0]);
        members(a.args[0])->items = members(r)->items;
        return None();
      });
    }
    for (auto [dunder, op] : {std::pair{"__ior__", "update"},
                              {"__iand__", "intersection_update"},
                              {"__isub__", "difference_update"},
                              {"__ixor__", "symmetric_difference_update"}}) {
      std::string o = op;
      method(cls, dunder, [o](Interpreter& in, CallArgs& a) {
        CallArgs c;
        c.args = {a.args.at(1)};
        in.call(in.getAttr(a.args[0], o), c);
        return a.args[0];
      });
    }
  }
}

}  // namespace kiln::py
