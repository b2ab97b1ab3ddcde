#include "engine/passes/addmm.h"

#include "engine/passes/rewrite_rules.h"

namespace kiln::passes {

namespace {

const ir::Node* mmProducer(const ir::Graph& g, const ir::Arg& a) {
  if (a.kind != ir::Arg::Kind::Node) return nullptr;
  const ir::Node* p = g.find(a.node);
  return p && p->target == "aten.mm.default" && p->args.size() == 2 && p->types.size() == 1 ? p : nullptr;
}

// bias broadcasts to the product's [M, N] along its rows only, in the product's dtype.
bool fitsAsBias(const ir::Node& bias, const ir::Node& mm) {
  if (bias.types.size() != 1 || bias.types[0].dtype != mm.types[0].dtype) return false;
  const auto& out = mm.types[0].sizes;
  const auto& b = bias.types[0].sizes;
  if (out.size() != 2 || out[0].symbolic() || out[1].symbolic()) return false;
  for (const auto& d : b)
    if (d.symbolic()) return false;
  if (b.size() == 1) return b[0].value == out[1].value;
  if (b.size() == 2) return (b[0].value == 1 || b[0].value == out[0].value) && b[1].value == out[1].value;
  return false;
}

// mm(a, b) + bias, the product on argument `side`: the mm has no other user (it is left for dce)
// and the add keeps the product's type.
bool mmPlusBias(Match& m, size_t side) {
  const ir::Node& n = m.node;
  if (n.args.size() != 2 || !n.kwargs.empty() || n.types.size() != 1) return false;
  const ir::Node* mm = mmProducer(m.graph, n.args[side]);
  const ir::Arg& bias = n.args[1 - side];
  if (!mm || bias.kind != ir::Arg::Kind::Node || m.graph.users(mm->id).size() != 1) return false;
  const ir::Node* b = m.graph.find(bias.node);
  return b && fitsAsBias(*b, *mm) && n.types[0].sizes == mm->types[0].sizes && n.types[0].dtype == mm->types[0].dtype;
}

ops::Val addmm(Match& m, size_t side) {
  const ir::Node* mm = m.graph.find(m.node.args[side].node);
  return m.dispatcher().call("aten.addmm.default", {m.value(m.node.args[1 - side]), m.value(mm->args[0]), m.value(mm->args[1])});
}

const std::vector<RewriteRule>& rules() {
  static const std::vector<RewriteRule> kRules = {
      {"mm + bias -> addmm", {"aten.add.Tensor"}, [](Match& m) { return mmPlusBias(m, 0); }, [](Match& m) { return addmm(m, 0); }},
      {"mm + bias -> addmm", {"aten.add.Tensor"}, [](Match& m) { return mmPlusBias(m, 1); }, [](Match& m) { return addmm(m, 1); }},
  };
  return kRules;
}

}  // namespace

PassResult foldAddmm(const ir::Graph& g, PassContext&) { return applyRules(g, rules()); }

}  // namespace kiln::passes
