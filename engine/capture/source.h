// Source: where a value the compiled code depends on lives, as Dynamo spells it
// (L['self']._modules['fc']._parameters['weight'], G['SCALE'], L['x']). A source is both a
// guard's subject and the recipe to fetch a graph input when the compiled code runs.
#pragma once

#include "engine/python/interpreter.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln::capture {

struct Source {
  // Steps are written {kind, name}: the members after them have default initializers (`{}`),
  // so the short form leaves nothing uninitialized (and -Wmissing-field-initializers quiet).
  struct Step {
    enum class Kind { Local, Global, Attr, Item, Index, Const, ClosureCell, ClassDictItem, TupleIterItem, ValueAt } kind;
    std::string name;       // local/global/attribute name, str dict key, constant's name, free variable
    py::Value key{};        // Item with a key that is not a str (an int, a tuple ...): the key itself
    std::string keyRepr{};  // its repr, as the source prints it
    size_t cell = 0;        // ClosureCell: the free variable's index in __closure__; ClassDictItem: the class's index in the MRO;
                            // TupleIterItem: the item's index after the iterator's position; ValueAt: the dict item's position
  };
  std::vector<Step> steps;
  py::Value value{};  // Const: the value itself (kept alive by the cache entry)
  // FetchCache's slots for this source's prefixes (prefix i: steps 0..i), made on its first fetch
  // through a cache; remade when the steps are not the ones they were made for (a copy, a source
  // changed since).
  mutable std::vector<uint32_t> prefixIds{};
  mutable const Step* prefixIdsFor{};

  static Source local(const std::string& name) { return Source{{{Step::Kind::Local, name}}}; }
  static Source global(const std::string& name) { return Source{{{Step::Kind::Global, name}}}; }
  static Source constant(const std::string& name, py::Value v) {
    Source s{{{Step::Kind::Const, name}}};
    s.value = std::move(v);
    return s;
  }
  Source attr(const std::string& name) const {
    Source s = *this;
    s.steps.push_back({Step::Kind::Attr, name});
    return s;
  }
  Source item(const std::string& key) const {
    Source s = *this;
    s.steps.push_back({Step::Kind::Item, key});
    return s;
  }
  Source index(size_t i) const {
    Source s = *this;
    s.steps.push_back({Step::Kind::Index, std::to_string(i)});
    return s;
  }
  // d[key] for any constant key (a str key prints as d['k'], others by repr: d[1], d[(1, 2)]).
  Source itemKey(const py::Value& key, const std::string& repr) const;
  // fn.__closure__[i].cell_contents: the free variable `name` of a function.
  Source closureCell(const std::string& name, size_t i) const;
  // A class attribute read through an instance, as Dynamo reads it from the class's dict:
  // dict(type(o).__dict__)['scale'], or dict(type(o).__mro__[1].__dict__)['scale'] for the
  // class at `mro` in type(o).__mro__.
  Source classDictItem(const std::string& name, size_t mro) const;
  // The i-th item a tuple iterator has still to yield: ___tuple_iterator_getitem(L['it'], 0).
  Source tupleIterItem(size_t i) const;
  // The value of a dict's i-th item, for keys no source can spell (tensors: Optimizer.state):
  // d[list(d.keys())[i]], as Dynamo's ConstDictKeySource.
  Source valueAt(size_t i) const;
  bool empty() const { return steps.empty(); }
  // This source with one more step (its `cell`: an index, a position).
  Source withStep(Step::Kind kind, const std::string& name, size_t cell) const;

  // Dynamo's spelling: L['self']._modules['fc'].training
  std::string text() const;
  // The spelling guard failures use: self._modules['fc'].training, G['SCALE'], x
  std::string display() const;
  // FX placeholder name: L['self']._modules['fc']._parameters['weight'] -> L_self_modules_fc_parameters_weight_
  std::string placeholderName() const;
  bool operator<(const Source& o) const { return text() < o.text(); }
  bool operator==(const Source& o) const { return text() == o.text(); }

  // Reads the value now: locals from `locals`, globals from `globals`. Null when missing. With
  // `cache`, prefixes fetched before in the same pass are not walked again.
  py::Value fetch(py::Interpreter& in, const std::map<std::string, py::Value>& locals, const py::ModuleObj& globals,
                  class FetchCache* cache = nullptr) const;
};

// Values fetched in one pass over a call's guards and inputs, by source prefix. A module's
// sources share long prefixes (every parameter of block 3 starts L['self']._modules['blocks']
// ._modules['3']), and attribute reads through the interpreter are the costly part of checking
// a call: each prefix is read once per call, as Dynamo's guard manager tree reads each accessor
// once. Every distinct prefix (its parent prefix and one more step) is numbered once per process
// (Source::prefixIds), so a lookup here is an index, not a hash and a comparison of steps. Valid
// while nothing runs between the reads (guard checks, then the entry's inputs).
class FetchCache {
 public:
  FetchCache();   // a new pass over the calling thread's slots
  ~FetchCache();  // lets go of the values this pass stored
  FetchCache(const FetchCache&) = delete;
  FetchCache& operator=(const FetchCache&) = delete;

  const py::Value* find(uint32_t prefix) const {
    return prefix < slots_->size() && (*slots_)[prefix].pass == pass_ ? &(*slots_)[prefix].value : nullptr;
  }
  void put(uint32_t prefix, py::Value v);

  // One per prefix number, kept by each thread across passes (numbers are process-wide, so a
  // per-pass vector would be as long as every prefix ever numbered, zeroed on every call): a slot
  // holds a value for the pass whose number it carries. A nested pass (a property a guard reads
  // calls a compiled function) only makes the outer one fetch again what it overwrote.
  struct Slot {
    uint64_t pass = 0;
    py::Value value;
  };

 private:
  std::vector<Slot>* slots_;
  uint64_t pass_;
  std::vector<uint32_t> stored_;  // the prefixes this pass put
};

}  // namespace kiln::capture
