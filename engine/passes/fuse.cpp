#include "engine/passes/fuse.h"

#include "engine/schedule/fusion.h"

namespace kiln::passes {

PassResult fuse(const ir::Graph& g, PassContext& ctx) {
  PassResult r;
  schedule::Fused f = schedule::fuse(g, ctx.fusionLimit, [&r](const std::string& rule, int node) { r.fired(rule, node); });
  r.graph = std::move(f.graph);
  r.changed = f.changed;
  return r;
}

}  // namespace kiln::passes
