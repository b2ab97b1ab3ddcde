// silu_fusion: an example pass plugin. One rewrite rule, as data (engine/passes/rewrite_rules.h):
//
//   x * sigmoid(x) -> silu(x)      (either operand order; x a node, the product of x's type)
//
// It runs before `fuse` (after cse and dce), so the silu is one pointwise op of the fused kernel
// (the op table's silu body is x * sigmoid(x): the numbers do not change). Its stage is
// `pass:silu_fusion`, and the rule it fired shows with the nodes it fired on in `kiln show
// SESSION --stage pass:silu_fusion` and the studio's Step tab, as the built-in passes' do.
#include "plugin_host/kiln_plugin.h"

#include "engine/passes/rewrite_rules.h"

namespace {

using kiln::passes::Match;

// Binds x when argument `other` is sigmoid(argument `self`).
bool timesOwnSigmoid(Match& m, size_t self, size_t other) {
  const kiln::ir::Node* s = m.operand(other, "aten.sigmoid.default");
  if (!s || s->args.empty() || s->args[0] != m.node.args[self] || !m.sameType(m.node.args[self])) return false;
  m.x = m.node.args[self];
  m.consumed = {s->id};  // erased when nothing else reads the sigmoid
  return true;
}

kiln::ops::Val silu(Match& m) { return m.dispatcher().call("aten.silu.default", {m.value(m.x)}); }

const std::vector<kiln::passes::RewriteRule>& rules() {
  static const std::vector<kiln::passes::RewriteRule> kRules = {
      {"x * sigmoid(x) -> silu(x)",
       {"aten.mul.Tensor"},
       [](Match& m) { return m.node.args.size() == 2 && m.node.kwargs.empty() && timesOwnSigmoid(m, 0, 1); },
       silu},
      {"sigmoid(x) * x -> silu(x)",
       {"aten.mul.Tensor"},
       [](Match& m) { return m.node.args.size() == 2 && m.node.kwargs.empty() && timesOwnSigmoid(m, 1, 0); },
       silu},
  };
  return kRules;
}

kiln::passes::PassResult siluFusion(const kiln::ir::Graph& g, kiln::passes::PassContext&) { return kiln::passes::applyRules(g, rules()); }

void registerAll(kiln::plugin::Registrar& r) {
  r.addPass({"silu_fusion", "fuse x * sigmoid(x) into silu(x) (example plugin)", siluFusion}, kiln::passes::InsertPoint::before("fuse"));
}

}  // namespace

KILN_PLUGIN("silu_fusion", "an example pass plugin: x * sigmoid(x) -> silu(x), before fuse", registerAll)
