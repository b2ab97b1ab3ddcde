// Guards of one cache entry, typed and printed like Dynamo's (TENSOR_MATCH, CONSTANT_MATCH ...).
// check() returns the failure reason in Dynamo's words ("tensor 'x' size mismatch at index 0.
// expected 4, actual 6", "self.counter == 0", "G['SCALE'] == 2.0", "len(xs) == 3",
// "not hasattr(o, 'shortcut')") or "" when the guard holds.
#pragma once

#include "engine/capture/source.h"
#include "engine/session/events.h"

#include <string>
#include <vector>

namespace kiln::capture {

struct Guard {
  enum class Kind {
    TensorMatch,     // dtype, requires_grad, rank, static sizes and strides of a tensor
    ConstantMatch,   // a Python constant keeps its value (`n == 3`, `b is None`)
    DuplicateInput,  // `source` is the same object as `other` (`a is b`)
    NoAliasing,      // the tensors at `sources` are distinct objects (Duplicate tensors found: ...)
    SequenceLength,  // a list/tuple the function read keeps its length (`len(xs) == 3`)
    TypeMatch,       // the object keeps its type (`___check_type_id(x, ...)`)
    IdMatch,         // the same object: a builtin, class or module (`___check_obj_id(op, ...)`)
    FunctionMatch,   // a Python function with the same code (`___check_obj_id(fn.__code__, ...)`)
    HasAttr,         // hasattr(o, name) keeps its answer (`hasattr(o, 'x')` / `not hasattr(o, 'x')`)
    Contains,        // `key in container` keeps its answer (`___dict_contains('k', d)`, set.__contains__)
    DictKeys,        // a dict the function iterated keeps its keys in order
  };
  Kind kind = Kind::TensorMatch;
  Source source;
  ir::TensorType type;  // TensorMatch
  py::Value constant;   // ConstantMatch; IdMatch/TypeMatch/FunctionMatch: the object/class/def; Contains: the key; DictKeys: the keys (tuple)
  Source other;         // DuplicateInput
  std::vector<Source> sources;  // NoAliasing
  int64_t length = 0;   // SequenceLength
  std::string name;     // HasAttr: the attribute
  bool expected = true; // HasAttr / Contains: the answer at capture
  int line = 0;         // user line that made the guard
  ir::SourceLoc where;  // where the guarded value was read (file, line, function, code)
  bool moduleIntAttr = false;  // an int attribute of an nn.Module (Dynamo adds a hint)

  std::string check(py::Interpreter& in, const std::map<std::string, py::Value>& locals, const py::ModuleObj& globals) const;
  session::Guard record(py::Interpreter& in) const;
  // A failure as Dynamo's recompiles log shows it: "0/0: n == 1   # code  # file:line in fn"
  // followed by the user stack trace; tensor guards print the bare reason.
  std::string verboseReason(const std::string& compileId, const std::string& failure) const;
};

// What `type(x)` is, for TYPE_MATCH: the class object of instances, a builtin class's name
// otherwise ("list", "int").
py::Value typeKey(py::Interpreter& in, const py::Value& v);

}  // namespace kiln::capture
