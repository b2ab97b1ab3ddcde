// The pass registry (engine/passes/pipeline.h): Kiln's passes register as plugins' do, a pass
// goes in at a named point, option values naming no pass are errors listing the valid names;
// and rules as data (engine/passes/rewrite_rules.h) record what fired by themselves.
#include "engine/ir/text.h"
#include "engine/passes/pass_manager.h"
#include "engine/passes/pipeline.h"
#include "engine/passes/rewrite_rules.h"
#include "engine/passes/simplify.h"
#include "engine/session/rule_steps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace kiln::passes {
namespace {

PassResult unchanged(const ir::Graph& g, PassContext&) { return PassResult{g, false, {}}; }

// Registers a pass for the test's lifetime.
struct Registered {
  std::string name;
  Registered(const std::string& n, const InsertPoint& at) : name(n) { registerPass({n, "test pass", unchanged, "test"}, at); }
  ~Registered() { unregisterPass(name); }
};

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) { return e.what(); }
  return "";
}

TEST(PassRegistry, BuiltinsAreRegisteredInOrder) {
  const std::vector<std::string> expected = {"decompose", "constant_fold", "simplify", "fold_conv_bn", "addmm", "cse", "dce", "fuse"};
  EXPECT_EQ(passNames(), expected);
  for (const auto& p : pipeline()) EXPECT_EQ(p.origin, "built-in") << p.name;
}

TEST(PassRegistry, InsertsAtTheNamedPoint) {
  Registered a("t_after_simplify", InsertPoint::after("simplify"));
  Registered b("t_before_fuse", InsertPoint::before("fuse"));
  Registered c("t_before_decompose", InsertPoint::before("decompose"));
  const std::vector<std::string> names = passNames();
  auto at = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  EXPECT_EQ(at("t_after_simplify"), at("simplify") + 1);
  EXPECT_EQ(at("t_before_fuse") + 1, at("fuse"));
  EXPECT_EQ(at("t_before_decompose"), 0);
  EXPECT_EQ(names.back(), "fuse");
  for (const auto& p : pipeline()) {
    if (p.name == "t_before_fuse") { EXPECT_EQ(p.origin, "test"); }
  }
}

TEST(PassRegistry, RefusesBadRegistrations) {
  EXPECT_NE(errorOf([] {
              registerPass({"t_x", "", unchanged}, InsertPoint::before("nosuch"));
            }).find("no pass named 'nosuch'"),
            std::string::npos);
  EXPECT_NE(errorOf([] {
              registerPass({"t_x", "", unchanged}, InsertPoint::before("nosuch"));
            }).find("passes: decompose, constant_fold"),
            std::string::npos);
  EXPECT_NE(errorOf([] { registerPass({"t_x", "", unchanged}, InsertPoint::after("fuse")); }).find("stays last"), std::string::npos);
  EXPECT_NE(errorOf([] { registerPass({"t_x", "", unchanged}, InsertPoint::end()); }).find("stays last"), std::string::npos);
  EXPECT_NE(errorOf([] { registerPass({"cse", "", unchanged}); }).find("exists"), std::string::npos);
  EXPECT_NE(errorOf([] { registerPass({"t_x", "", nullptr}); }).find("a function"), std::string::npos);
  EXPECT_EQ(passNames().size(), 8u);
}

TEST(PassRegistry, DisablingAnUnknownPassIsAnErrorListingThePasses) {
  EXPECT_EQ(errorOf([] { checkPassNames({"cse", "dce"}); }), "");
  const std::string e = errorOf([] { checkPassNames({"cse", "nosuch"}); });
  EXPECT_EQ(e, "no pass named 'nosuch' (passes: decompose, constant_fold, simplify, fold_conv_bn, addmm, cse, dce, fuse)");
  ir::Graph g = ir::parseGraph(
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[4]\"):\n"
      "        return (arg0_1,)\n");
  PassContext ctx;
  PassManagerOptions opts;
  opts.disabled = {"nosuch"};
  EXPECT_THROW(runPipeline(g, ctx, opts, nullptr), std::invalid_argument);
}

TEST(RewriteRules, FirstMatchingRuleFiresAndIsRecorded) {
  const ir::Graph g = ir::parseGraph(
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[4]\"):\n"
      "        neg: \"f32[4]\" = torch.ops.aten.neg.default(arg0_1)\n"
      "        neg_1: \"f32[4]\" = torch.ops.aten.neg.default(neg)\n"
      "        mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(neg_1, 2)\n"
      "        return (mul,)\n");
  const std::vector<RewriteRule> rules = {
      {"neg(neg(x)) -> x",
       {"aten.neg.default"},
       [](Match& m) {
         const ir::Node* inner = m.operand(0, "aten.neg.default");
         if (!inner || !m.keep(inner->args[0])) return false;
         m.consumed = {inner->id};
         return true;
       },
       nullptr},
      {"x * 2 -> x + x",
       {"aten.mul.Tensor"},
       [](Match& m) { return m.isNumber(1, 2); },
       [](Match& m) {
         ops::Val x = m.value(m.node.args[0]);
         return m.dispatcher().call("aten.add.Tensor", {x, x});
       }},
      {"never reached", {"aten.mul.Tensor"}, [](Match&) { return true; }, nullptr},
  };
  PassResult r = applyRules(g, rules);
  ASSERT_TRUE(r.changed);
  ASSERT_EQ(r.rules.size(), 2u);
  EXPECT_EQ(r.rules[0].rule, "neg(neg(x)) -> x");
  EXPECT_EQ(r.rules[1].rule, "x * 2 -> x + x");
  const std::string text = ir::printGraph(r.graph);
  EXPECT_EQ(text.find("aten.neg"), std::string::npos) << text;  // the consumed inner neg is erased
  EXPECT_NE(text.find("aten.add.Tensor(arg0_1, arg0_1)"), std::string::npos) << text;
  // Each firing on its own, located in this file by its index in the rule list.
  ASSERT_EQ(r.applications.size(), 2u);
  EXPECT_EQ(r.applications[0].where, "tests/passes/pass_registry_test.cpp, rule 1 of 3");
  EXPECT_EQ(r.applications[1].where, "tests/passes/pass_registry_test.cpp, rule 2 of 3");
}

const ir::Node& named(const ir::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::out_of_range("no node " + name);
}

// Per-rule stepping (issue 17): applyRules records every application with its rule, where the
// rule is defined, the root, the consumed nodes, the nodes it added and the replacement.
TEST(RewriteRules, RecordsEachApplication) {
  const ir::Graph g = ir::parseGraph(
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[4]\"):\n"
      "        mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(arg0_1, 1)\n"
      "        add: \"f32[4]\" = torch.ops.aten.add.Tensor(mul, 0)\n"
      "        log: \"f32[4]\" = torch.ops.aten.log.default(add)\n"
      "        exp: \"f32[4]\" = torch.ops.aten.exp.default(log)\n"
      "        relu: \"f32[4]\" = torch.ops.aten.relu.default(exp)\n"
      "        return (relu,)\n");
  PassContext ctx;
  PassResult r = simplify(g, ctx);
  ASSERT_EQ(r.applications.size(), 3u);
  const int x = named(g, "arg0_1").id;
  const auto& a0 = r.applications[0];
  EXPECT_EQ(a0.rule, "x * 1 -> x");
  EXPECT_EQ(a0.where, "engine/passes/simplify.cpp, rule 7 of 12");
  EXPECT_EQ(a0.root, named(g, "mul").id);
  EXPECT_TRUE(a0.consumed.empty());
  EXPECT_TRUE(a0.added.empty());
  EXPECT_EQ(a0.replacement, x);
  const auto& a1 = r.applications[1];
  EXPECT_EQ(a1.rule, "x + 0 -> x");
  EXPECT_EQ(a1.where, "engine/passes/simplify.cpp, rule 9 of 12");
  EXPECT_EQ(a1.root, named(g, "add").id);
  EXPECT_EQ(a1.replacement, x);  // through the x * 1 before it: the rewrite sees rewritten producers
  const auto& a2 = r.applications[2];
  EXPECT_EQ(a2.rule, "exp(log(x)) -> where(x < 0, nan, x)");
  EXPECT_EQ(a2.where, "engine/passes/simplify.cpp, rule 1 of 12");
  EXPECT_EQ(a2.root, named(g, "exp").id);
  EXPECT_EQ(a2.consumed, std::vector<int>{named(g, "log").id});
  ASSERT_EQ(a2.added.size(), 2u);
  EXPECT_EQ(r.graph.find(a2.added[0])->target, "aten.lt.Tensor");
  EXPECT_EQ(r.graph.find(a2.added[1])->target, "aten.where.self");
  EXPECT_EQ(a2.replacement, a2.added[1]);

  // What the CLI prints and the Step tab shows for one application.
  EXPECT_EQ(session::ruleApplicationLine(g, r.graph, a0, 1),
            "1  x * 1 -> x  [engine/passes/simplify.cpp, rule 7 of 12]  root mul  consumed -  added -  now arg0_1");
  const session::RuleStep step = session::ruleStep(g, r.graph, a2);
  EXPECT_EQ(step.inputs, std::vector<int>{named(g, "add").id});
  EXPECT_EQ(step.matched, (std::vector<int>{named(g, "log").id, named(g, "exp").id}));
  EXPECT_EQ(step.beforeText,
            "add: \"f32[4]\" = aten.add.Tensor(mul, 0)\n"
            "log: \"f32[4]\" = aten.log.default(add)\n"
            "exp: \"f32[4]\" = aten.exp.default(log)\n");
  EXPECT_NE(step.afterText.find("= aten.lt.Tensor(arg0_1, 0)\n"), std::string::npos) << step.afterText;
  EXPECT_NE(step.afterText.find("= aten.where.self("), std::string::npos) << step.afterText;
  EXPECT_EQ(step.after, a2.added);
}

}  // namespace
}  // namespace kiln::passes
