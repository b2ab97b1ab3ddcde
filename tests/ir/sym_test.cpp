// Size expressions of dynamic shapes (engine/ir/sym.h) and their place in the graph text form.
#include "engine/ir/sym.h"
#include "engine/ir/text.h"

#include <gtest/gtest.h>

namespace kiln::ir {
namespace {

Dim sym(const char* s, int64_t hint) {
  Dim d = Dim::sym(s);
  d.value = hint;
  return d;
}

TEST(SymExpr, ParsesAndPrintsCanonically) {
  EXPECT_EQ(symText(*parseSym("s1*16*s0")), "16*s0*s1");
  EXPECT_EQ(symText(*parseSym(" s0 ")), "s0");
  EXPECT_EQ(symText(*parseSym("4")), "4");
  EXPECT_EQ(symText(*parseSym("2*s0*3")), "6*s0");
  for (const char* bad : {"", "s", "s0+1", "x0", "s0*", "*s0", "s0**s1", "99999999999999999999"}) EXPECT_FALSE(parseSym(bad)) << bad;
}

TEST(SymExpr, ArithmeticKeepsHintsAndExpressions) {
  Dim p = dimMul(sym("s0", 3), dimMul(Dim(16), sym("s1", 5)));
  EXPECT_EQ(p.symbol, "16*s0*s1");
  EXPECT_EQ(p.value, 240);
  EXPECT_EQ(dimMul(Dim(4), Dim(5)), Dim(20));
  EXPECT_EQ(dimMul(sym("s0", 3), Dim(0)), Dim(0));
  EXPECT_THROW(dimMul(sym("s0", int64_t{1} << 40), Dim(int64_t{1} << 40)), std::overflow_error);
  EXPECT_THROW(evalSym("s0*s0", {int64_t{1} << 40}), std::overflow_error);
  EXPECT_EQ(evalSym("16*s0*s1", {2, 10}), 320);
  EXPECT_THROW(evalSym("s3", {1}), std::out_of_range);
  EXPECT_EQ(symbolsOf("s1*s1*s0"), (std::vector<int>{0, 1}));
  std::vector<Dim> st = contiguousStrides({sym("s0", 2), Dim(4), sym("s1", 3)});
  EXPECT_EQ(st[0], sym("4*s1", 12));
  EXPECT_EQ(st[1], sym("s1", 3));
  EXPECT_EQ(st[2], Dim(1));
}

TEST(SymExpr, GraphTextReadsSizeExpressions) {
  Graph g = parseGraph(R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[s0*16, s1]"):
        exp: "f32[16*s0, s1]" = torch.ops.aten.exp.default(arg0_1)
        return (exp,)
)");
  EXPECT_EQ(g.placeholders()[0]->types[0].sizes[0].symbol, "16*s0");
  EXPECT_NE(printGraph(g).find("\"f32[16*s0, s1]\""), std::string::npos) << printGraph(g);
}

}  // namespace
}  // namespace kiln::ir
