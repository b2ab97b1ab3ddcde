// Guards of one cache entry, typed and printed like Dynamo's (TENSOR_MATCH, CONSTANT_MATCH ...).
// check() returns the failure reason in Dynamo's words ("tensor 'x' size mismatch at index 0.
// expected 4, actual 6", "self.counter == 0", "G['SCALE'] == 2.0") or "" when the guard holds.
#pragma once

#include "engine/capture/source.h"
#include "engine/session/events.h"

#include <string>
#include <vector>

namespace kiln::capture {

struct Guard {
  enum class Kind {
    TensorMatch, ConstantMatch,
    DuplicateInput,  // `source` is the same object as `other` (Dynamo's DUPLICATE_INPUT: `L['b'] is L['a']`)
    SequenceLength,  // a list/tuple the function read keeps its length (`len(L['xs']) == 3`)
  };
  Kind kind = Kind::TensorMatch;
  Source source;
  ir::TensorType type;  // TensorMatch
  py::Value constant;   // ConstantMatch
  Source other;         // DuplicateInput
  int64_t length = 0;   // SequenceLength
  int line = 0;         // user line that made the guard
  ir::SourceLoc where;  // where the guarded value was read (file, line, function, code)
  bool moduleIntAttr = false;  // an int attribute of an nn.Module (Dynamo adds a hint)

  std::string check(py::Interpreter& in, const std::map<std::string, py::Value>& locals, const py::ModuleObj& globals) const;
  session::Guard record(py::Interpreter& in) const;
  // A failure as Dynamo's recompiles log shows it: "0/0: n == 1   # code  # file:line in fn"
  // followed by the user stack trace (constant guards); tensor guards print the bare reason.
  std::string verboseReason(const std::string& compileId, const std::string& failure) const;
};

}  // namespace kiln::capture
