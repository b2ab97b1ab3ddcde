// Guards of one cache entry, typed and printed like Dynamo's (TENSOR_MATCH, CONSTANT_MATCH ...).
// check() returns the failure reason in Dynamo's words ("tensor 'x' size mismatch at index 0.
// expected 4, actual 6", "n == 1") or "" when the guard holds.
#pragma once

#include "engine/python/interpreter.h"
#include "engine/session/events.h"

#include <string>
#include <vector>

namespace kiln::capture {

struct Guard {
  enum class Kind { TensorMatch, ConstantMatch, TypeMatch };
  Kind kind = Kind::TensorMatch;
  std::string name;     // user-visible name (x, self.counter)
  std::string source;   // Dynamo source (L['x'])
  int argIndex = -1;    // which frame argument it reads
  ir::TensorType type;  // TensorMatch
  py::Value constant;   // ConstantMatch
  std::string typeName; // TypeMatch
  int line = 0;

  std::string check(py::Interpreter& in, const std::vector<py::Value>& args) const;
  session::Guard record(py::Interpreter& in) const;
};

}  // namespace kiln::capture
