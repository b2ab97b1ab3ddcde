// A call node with a given name and nothing else: what the graph index tests add.
#pragma once

#include "engine/ir/graph.h"

#include <string>

namespace kiln::ir_test {

inline ir::Node named(const std::string& name) {
  ir::Node n;
  n.name = name;
  n.kind = ir::NodeKind::CallFunction;
  n.target = "aten.relu.default";
  return n;
}

}  // namespace kiln::ir_test
