#include "engine/passes/simplify.h"

#include "engine/ops/op_table.h"
#include "engine/passes/rewrite_rules.h"

#include <cmath>

namespace kiln::passes {

namespace {

// Patterns the rules share.
bool binary(const Match& m) { return m.node.args.size() == 2 && m.node.kwargs.empty(); }
// A view, reshape or expand to the shape x already has. Views alias their input anyway, so no
// output-alias check: the view was one already.
bool pointlessView(Match& m) {
  if (m.node.args.empty() || !m.node.kwargs.empty() || !m.sameType(m.node.args[0])) return false;
  m.x = m.node.args[0];
  return true;
}
bool identityPermute(Match& m) {
  const auto& a = m.node.args;
  if (a.size() != 2 || !m.node.kwargs.empty() || a[1].kind != ir::Arg::Kind::List || !m.sameType(a[0])) return false;
  for (size_t i = 0; i < a[1].list.size(); ++i)
    if (!a[1].list[i].isNumber() || a[1].list[i].number() != static_cast<double>(i)) return false;
  m.x = a[0];
  return true;
}
// op(op(x)) -> x for an op that is its own inverse (or log(exp x)): the inner node is consumed.
bool undoes(Match& m, const char* inner) {
  const ir::Node* p = m.operand(0, inner);
  if (!p || !m.keep(p->args.at(0))) return false;
  m.consumed = {p->id};
  return true;
}

const char* const kViews[] = {"aten.view.default", "aten._unsafe_view.default", "aten.reshape.default"};

const std::vector<RewriteRule>& rules() {
  static const std::vector<RewriteRule> kRules = {
      // exp(log x) is x where log is defined; log of a negative is nan, and exp(log 0) = 0.
      {"exp(log(x)) -> where(x < 0, nan, x)",
       {"aten.exp.default"},
       [](Match& m) {
         const ir::Node* lg = m.operand(0, "aten.log.default");
         if (!lg || !m.sameType(lg->args.at(0))) return false;
         m.x = lg->args.at(0);
         m.consumed = {lg->id};
         return true;
       },
       [](Match& m) {
         ops::Val x = m.value(m.x);
         ops::Val negative = m.dispatcher().call("aten.lt.Tensor", {x, ops::Val::integer(0)});
         return m.dispatcher().call("aten.where.self", {negative, ops::Val::real(NAN), x});
       }},
      // Exact up to overflow of exp, which Inductor ignores too.
      {"log(exp(x)) -> x", {"aten.log.default"}, [](Match& m) { return undoes(m, "aten.exp.default"); }, nullptr},
      {"neg(neg(x)) -> x", {"aten.neg.default"}, [](Match& m) { return undoes(m, "aten.neg.default"); }, nullptr},
      // Pointless views cost an extern call each and hide the producer from fusion.
      {"view(x, x.shape) -> x", {kViews[0], kViews[1], kViews[2]}, pointlessView, nullptr},
      {"expand(x, x.shape) -> x", {"aten.expand.default"}, pointlessView, nullptr},
      {"permute(x, identity) -> x", {"aten.permute.default"}, identityPermute, nullptr},
      // Identities; each keeps the result's dtype and shape (sameType, in Match::keep).
      {"x * 1 -> x", {"aten.mul.Tensor"}, [](Match& m) { return binary(m) && m.isNumber(1, 1) && m.keep(m.node.args[0]); }, nullptr},
      {"1 * x -> x", {"aten.mul.Tensor"}, [](Match& m) { return binary(m) && m.isNumber(0, 1) && m.keep(m.node.args[1]); }, nullptr},
      {"x + 0 -> x", {"aten.add.Tensor"}, [](Match& m) { return binary(m) && m.isNumber(1, 0) && m.keep(m.node.args[0]); }, nullptr},
      {"0 + x -> x", {"aten.add.Tensor"}, [](Match& m) { return binary(m) && m.isNumber(0, 0) && m.keep(m.node.args[1]); }, nullptr},
      {"x - 0 -> x", {"aten.sub.Tensor"}, [](Match& m) { return binary(m) && m.isNumber(1, 0) && m.keep(m.node.args[0]); }, nullptr},
      {"x / 1 -> x", {"aten.div.Tensor"}, [](Match& m) { return binary(m) && m.isNumber(1, 1) && m.keep(m.node.args[0]); }, nullptr},
  };
  return kRules;
}

}  // namespace

PassResult simplify(const ir::Graph& g, PassContext&) { return applyRules(g, rules()); }

}  // namespace kiln::passes
