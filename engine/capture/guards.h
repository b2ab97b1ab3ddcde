// Guards of one cache entry, typed and printed like Dynamo's (TENSOR_MATCH, CONSTANT_MATCH ...).
// check() returns the failure reason in Dynamo's words ("tensor 'x' size mismatch at index 0.
// expected 4, actual 6", "self.counter == 0", "G['SCALE'] == 2.0", "len(xs) == 3",
// "not hasattr(o, 'shortcut')") or "" when the guard holds.
#pragma once

#include "engine/capture/source.h"
#include "engine/capture/sym_expr.h"
#include "engine/session/events.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::capture {

struct Guard {
  enum class Kind {
    TensorMatch,         // dtype, requires_grad, rank, static sizes and strides of a tensor
    ConstantMatch,       // a Python constant keeps its value (`n == 3`, `b is None`)
    DuplicateInput,      // `source` is the same object as `other` (`a is b`)
    NoAliasing,          // the tensors at `sources` are distinct objects (Duplicate tensors found: ...)
    SequenceLength,      // a list/tuple/dict the function read keeps its length (`len(xs) == 3`, `not xs`)
    TypeMatch,           // the object keeps its type (`___check_type_id(x, ...)`)
    IdMatch,             // the same object: a builtin, class or module (`___check_obj_id(op, ...)`)
    FunctionMatch,       // a Python function with the same code (`___check_obj_id(fn.__code__, ...)`)
    HasAttr,             // hasattr(o, name) keeps its answer (`hasattr(o, 'x')` / `not hasattr(o, 'x')`)
    Contains,            // `key in container` keeps its answer (`___dict_contains('k', d)`, set.__contains__)
    DictKeys,            // a dict the function iterated keeps its keys in order (`len(d) != 2`, `list(dict.keys(d))[0] == 'a'`)
    TupleIteratorLen,    // an iterator over a tuple keeps the number of items it has left (`___tuple_iterator_len(it) == 5`)
    RangeIteratorMatch,  // a range iterator keeps what it has left to yield, as (next, stop, step) with
                         // stop = next + left * step: `___normalize_range_iter(it) == (2, 11, 3)`; `constant`
    Shape,               // a shape guard of the entry's symbolic sizes (Dynamo's ShapeEnv): a relation
                         // over sizes (`x.size()[1] == x.size()[0]`, `x.size()[2] != 2`) or a size's
                         // value range (`2 <= x.size()[0]`); checked after every other guard
    DynamicIndices,      // the dims torch._dynamo.mark_dynamic marked stay within `marked`
    FloatValue,          // what the trace decided on a dynamic float (Dynamo's SymFloat shape guards):
                         // `name` is the relation ("!=", "==", "<" ...) to `constant`
                         // (`___as_tensor(y).item() != 5.0`), or "self": the float is not NaN
                         // (`y == ___as_tensor(y).item()`); checked with the shape guards
  };
  Kind kind = Kind::TensorMatch;
  Source source;
  ir::TensorType type;  // TensorMatch
  py::Value
      constant;  // ConstantMatch; IdMatch/TypeMatch/FunctionMatch: the object/class/def; Contains: the key; DictKeys: the keys (tuple)
  Source other;  // DuplicateInput
  std::vector<Source> sources;  // NoAliasing
  int64_t length = 0;           // SequenceLength, TupleIteratorLen
  std::string name;             // HasAttr: the attribute
  bool expected = true;         // HasAttr / Contains: the answer at capture
  int line = 0;                 // user line that made the guard
  ir::SourceLoc where;          // where the guarded value was read (file, line, function, code)
  bool moduleIntAttr = false;   // an int attribute of an nn.Module (Dynamo adds a hint)
  int failCount = 0;            // how often it failed: the entry checks the guards that failed most first

  bool parameter = false;  // TensorMatch on an nn.Parameter (its sizes stay static, Dynamo says why)
  // Shape: `expr` reads symbol i as sizeSources[i] (a tensor's size at dim, or an int when dim
  // is -1); a range guard (`range`) bounds symbol 0 by `lower` and, when set, `upper`.
  // `comment` is what Dynamo's verbose guard says after the code ("duck sizing added ...").
  SymExpr expr;
  std::vector<std::pair<Source, int>> sizeSources;
  bool range = false;
  int64_t lower = 0;
  std::optional<int64_t> upper;
  std::string comment;
  // A CONSTANT_MATCH on an int Dynamo traces as a SymInt (dynamic=True): it is one of the shape
  // guards, checked with them and reported the way they are.
  bool shapePhase = false;
  std::vector<int64_t> marked;     // DynamicIndices: the marked dims at capture
  mutable std::string displayed_;  // displayed()'s cache

  // Shape: the guard as code, symbols spelled by `display` (`x.size()[0]`) or not (`L['x'].size()[0]`).
  std::string shapeText(bool display) const;

  // FloatValue's text with the float spelled `src`.
  std::string floatValueText(const std::string& src) const;
  // SequenceLength's text: `len(xs) == 3`, or `not xs` for a container that was empty.
  std::string lengthText(const std::string& name) const;
  // The failure, or "" when the guard holds. `cache` shares fetched source prefixes between the
  // guards of one call (source.h FetchCache).
  std::string check(py::Interpreter& in, const std::map<std::string, py::Value>& locals, const py::ModuleObj& globals,
                    FetchCache* cache = nullptr) const;
  // `source.display()`, spelled once: every call of a compiled function checks its guards, and
  // a module's parameters' spellings are long strings that only a failure needs.
  const std::string& displayed() const {
    if (displayed_.empty()) displayed_ = source.display();
    return displayed_;
  }
  session::Guard record(py::Interpreter& in) const;
  // A failure as Dynamo's recompiles log shows it: "0/0: n == 1   # code  # file:line in fn"
  // followed by the user stack trace; tensor guards print the bare reason.
  std::string verboseReason(const std::string& compileId, const std::string& failure) const;
};

// Dynamo's ___normalize_range_iter: a range iterator as the tuple (next, stop, step), its stop
// recomputed from what it has left (iter(range(2, 9, 3)) is (2, 11, 3)); nullopt for anything else.
std::optional<py::Value> normalizedRangeIter(const py::Value& v);

// What `type(x)` is, for TYPE_MATCH: the class object of instances, a builtin class's name
// otherwise ("list", "int").
py::Value typeKey(py::Interpreter& in, const py::Value& v);

}  // namespace kiln::capture
