// idempotent_ops: an example plugin built outside Kiln's tree (see CMakeLists.txt here).
//
// A pass of rewrite rules (engine/passes/rewrite_rules.h), one per idempotent unary op:
//   relu(relu(x)) -> relu(x)    abs(abs(x)) -> abs(x)    floor(floor(x)) -> floor(x)
//   ceil(ceil(x)) -> ceil(x)
// It runs after simplify; each rule that fires is recorded on its node and shown in the stage
// pass:idempotent_ops (kiln show SESSION --stage pass:idempotent_ops, the studio's Step tab).
#include "engine/passes/rewrite_rules.h"
#include "plugin_host/kiln_plugin.h"

#include <string>
#include <vector>

namespace {

using kiln::passes::Match;
using kiln::passes::RewriteRule;

// f(f(x)) -> f(x): the root is replaced by its operand, which is already f(x).
RewriteRule idempotent(const std::string& op, const std::string& target) {
  return {op + "(" + op + "(x)) -> " + op + "(x)",
          {target},
          [target](Match& m) {
            const kiln::ir::Node* inner = m.operand(0, target);
            return inner && m.node.args.size() == 1 && m.keep(m.node.args[0]);
          },
          nullptr};
}

const std::vector<RewriteRule>& rules() {
  static const std::vector<RewriteRule> kRules = {
      idempotent("relu", "aten.relu.default"),
      idempotent("abs", "aten.abs.default"),
      idempotent("floor", "aten.floor.default"),
      idempotent("ceil", "aten.ceil.default"),
  };
  return kRules;
}

kiln::passes::PassResult run(const kiln::ir::Graph& g, kiln::passes::PassContext&) { return kiln::passes::applyRules(g, rules()); }

void registerAll(kiln::plugin::Registrar& r) {
  r.addPass({"idempotent_ops", "f(f(x)) -> f(x) for relu, abs, floor, ceil (out-of-tree example plugin)", run},
            kiln::passes::InsertPoint::after("simplify"));
}

}  // namespace

KILN_PLUGIN("idempotent_ops", "an out-of-tree example: f(f(x)) -> f(x) for idempotent unary ops", registerAll)
