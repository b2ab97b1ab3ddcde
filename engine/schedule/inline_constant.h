// A full(shape, number) node is a literal to the kernels that read it: they emit the number
// instead of loading a buffer (Inductor inlines its full() the same way). When every user of
// it is a kernel member, the fusion pass puts it in its first user's kernel and the schedule
// runs nothing for it; otherwise it also runs as an extern call for the other users.
#pragma once

#include "engine/ir/graph.h"

#include <optional>

namespace kiln::schedule {

inline std::optional<double> inlineConstant(const ir::Node& n) {
  if (n.kind != ir::NodeKind::CallFunction || n.target != "aten.full.default" || n.args.size() != 3 || !n.args[1].isNumber() ||
      n.types.size() != 1)
    return std::nullopt;
  for (const auto& d : n.types[0].sizes)
    if (d.symbolic()) return std::nullopt;
  return n.args[1].number();
}

}  // namespace kiln::schedule
