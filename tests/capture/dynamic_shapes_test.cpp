// Dynamic shapes as Dynamo's ShapeEnv traces them: duck sizing and the guard it implies, 0/1
// specialization, guards from comparisons on symbolic sizes, and the symbolic expressions they
// are printed from (engine/capture/sym_expr.h).
#include "engine/capture/sym_expr.h"
#include "engine/driver/explain.h"
#include "engine/driver/script_runner.h"
#include "tests/capture/run_script.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kiln {
namespace {

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }
// A recompile reason without Dynamo's verbose comment ("0/0: x.size()[1] == x.size()[0]").
std::string guardOf(const std::string& reason) {
  std::string s = firstLine(reason).substr(0, firstLine(reason).find("  #"));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

TEST(DynamicShapes, DuckSizingGuardsAndRecompiles) {
  const std::string path = std::string(KILN_SOURCE_DIR) + "/tests/capture/equal_to_eager/duck_sizing_recompile.py";
  driver::ExplainReport rep;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  driver::RunResult run = driver::runScript(ro, rep, out);
  ASSERT_EQ(run.exitCode, 0) << run.error;
  EXPECT_EQ(out.str(), test::runPrinting(path, true));

  // (3, 3) and (4, 3): x's dims and y's dim 1 are one symbol; (5, 3) breaks the equality;
  // (6, 3) reuses the second entry; (6, 1) specializes the 1; (4, 3) fails `5 <= x.size()[0]`.
  EXPECT_EQ(rep.graphs().size(), 4u);
  ASSERT_EQ(rep.recompiles().size(), 3u);
  const auto& r = rep.recompiles();
  ASSERT_EQ(r[0].reasons.size(), 1u);
  EXPECT_EQ(guardOf(r[0].reasons[0]), "0/0: x.size()[1] == x.size()[0]");
  EXPECT_NE(r[0].reasons[0].find("duck sizing added this equality because these variables had the same size 3"), std::string::npos);
  ASSERT_EQ(r[1].reasons.size(), 2u);
  EXPECT_EQ(guardOf(r[1].reasons[0]), "0/1: 2 <= x.size()[1]");
  EXPECT_EQ(guardOf(r[1].reasons[1]), "0/0: x.size()[1] == x.size()[0]");
  ASSERT_EQ(r[2].reasons.size(), 3u);
  EXPECT_EQ(guardOf(r[2].reasons[0]), "0/2: tensor 'x' size mismatch at index 1. expected 1, actual 3");
  EXPECT_EQ(guardOf(r[2].reasons[1]), "0/1: 5 <= x.size()[0]");

  // The first entry's guards: symbolic sizes in TENSOR_MATCH, the equalities duck sizing made,
  // the branch's range refined to 5 <= s0 in the second.
  bool sawEquality = false, sawStaticRange = false;
  for (const auto& c : rep.compiles()) {
    for (const auto& g : c.guards) {
      if (c.compileId == "0/0" && g.kind == "SHAPE_ENV" && g.text == "L['y'].size()[1] == L['x'].size()[0]") sawEquality = true;
      if (c.compileId == "0/0" && g.kind == "TENSOR_MATCH" && g.source == "L['x']") {
        EXPECT_NE(g.text.find("size=[None, None]"), std::string::npos) << g.text;
      }
      if (c.compileId == "0/1" && g.kind == "SHAPE_ENV" && g.text == "5 <= L['x'].size()[0]") sawStaticRange = true;
    }
  }
  EXPECT_TRUE(sawEquality);
  EXPECT_TRUE(sawStaticRange);
}

TEST(DynamicShapes, IntArgumentsBecomeSymbolsAfterAChange) {
  const std::string path = std::string(KILN_SOURCE_DIR) + "/tests/capture/equal_to_eager/int_arg_automatic_dynamic.py";
  driver::ExplainReport rep;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  driver::RunResult run = driver::runScript(ro, rep, out);
  ASSERT_EQ(run.exitCode, 0) << run.error;
  EXPECT_EQ(out.str(), test::runPrinting(path, true));
  // f: n == 2, then n is a symbol (4 values, 2 graphs). g: d == 0, then d is a symbol that
  // x.sum(d) specializes (`d == 1`, a shape guard), and d = 1 again hits that entry.
  EXPECT_EQ(rep.graphs().size(), 4u);
  ASSERT_EQ(rep.recompiles().size(), 2u);
  EXPECT_EQ(guardOf(rep.recompiles()[0].reasons.at(0)), "0/0: n == 2");
  EXPECT_EQ(guardOf(rep.recompiles()[1].reasons.at(0)), "1/0: d == 0");
  bool sawShapeGuard = false;
  for (const auto& c : rep.compiles())
    for (const auto& g : c.guards)
      if (c.compileId == "1/1" && g.kind == "SHAPE_ENV" && g.text == "L['d'] == 1") sawShapeGuard = true;
  EXPECT_TRUE(sawShapeGuard);
}

// The printed forms of guards, as torch's PythonPrinter prints them.
TEST(DynamicShapes, SymbolicExpressionsPrintLikeDynamo) {
  using namespace capture;
  auto name = [](int i) { return "x.size()[" + std::to_string(i) + "]"; };
  SymExpr s0 = symSymbol(0), s1 = symSymbol(1);
  // 13 * (s0 // 13) == 0
  SymExpr numel = symBinary("*", symBinary("//", s0, symInt(13)), symInt(13));
  EXPECT_EQ(symPrint(symRelation("==", numel, symInt(0)), name), "(13*(x.size()[0] // 13)) == 0");
  // math.ceil((4 + s % 2) / 2) - 1 == 1 is math.ceil(...) == 2
  SymExpr pad = symBinary("-", symCeil(symBinary("/", symBinary("+", symInt(4), symBinary("%", s0, symInt(2))), symInt(2))), symInt(1));
  EXPECT_EQ(symPrint(symRelation("==", pad, symInt(1)), name), "math.ceil((4 + (x.size()[0] % 2)) / 2) == 2");
  EXPECT_EQ(symPrint(symNot(symRelation("==", s1, symInt(2))), name), "x.size()[1] != 2");
  EXPECT_EQ(symPrint(symRelation(">", s0, symInt(3)), name), "3 < x.size()[0]");
  EXPECT_EQ(symPrint(symRelation("==", symBinary("//", s0, symInt(2)), symInt(6)), name), "(x.size()[0] // 2) == 6");
  // A relation of one symbol is a bound: s0 > 3 is 4 <= s0, 2*s0 == 10 is s0 == 5.
  auto gt = symSolve(symRelation(">", s0, symInt(3)));
  ASSERT_TRUE(gt && gt->lower);
  EXPECT_EQ(*gt->lower, 4);
  auto eq = symSolve(symRelation("==", symBinary("*", symInt(2), s0), symInt(10)));
  ASSERT_TRUE(eq && eq->value);
  EXPECT_EQ(*eq->value, 5);
  // Value ranges decide what needs no guard: s0 == 1 is false for a size of at least 2.
  auto range = [](int) { return SymRange{2, std::numeric_limits<double>::infinity()}; };
  EXPECT_EQ(symDecide(symRelation("==", s0, symInt(1)), range), std::optional<bool>(false));
  EXPECT_EQ(symDecide(symRelation("==", s0, symInt(3)), range), std::nullopt);
  // s0 >> 1 is s0 // 2; (s0 | s0 >> 1) evaluates as Python does.
  SymExpr orr = symBinary("|", s0, symBinary(">>", s0, symInt(1)));
  auto v = symEval(orr, [](int) { return int64_t{5}; });
  ASSERT_TRUE(v);
  EXPECT_EQ(v->i, 5 | 2);
}

}  // namespace
}  // namespace kiln
