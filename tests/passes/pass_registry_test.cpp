// The pass registry (engine/passes/pipeline.h): Kiln's passes register as plugins' do, a pass
// goes in at a named point, option values naming no pass are errors listing the valid names;
// and rules as data (engine/passes/rewrite_rules.h) record what fired by themselves.
#include "engine/ir/text.h"
#include "engine/passes/pass_manager.h"
#include "engine/passes/pipeline.h"
#include "engine/passes/rewrite_rules.h"

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
}

}  // namespace
}  // namespace kiln::passes
