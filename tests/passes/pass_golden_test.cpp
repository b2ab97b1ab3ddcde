#include "engine/codegen/kernel_compiler.h"
#include "engine/ir/text.h"
#include "engine/passes/pipeline.h"
#include "engine/runtime/compiled_graph.h"
#include "engine/schedule/kernel_builder.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

namespace kiln::passes {
namespace {

namespace fs = std::filesystem;

std::optional<PassInfo> findPass(const std::string& name) {
  for (const auto& p : pipeline())
    if (p.name == name) return p;
  return std::nullopt;
}

// Deterministic inputs covering negative, zero and positive values.
std::vector<tensor::Tensor> inputsFor(const ir::Graph& g, double shift) {
  std::vector<tensor::Tensor> out;
  for (const ir::Node* p : g.placeholders()) {
    tensor::Shape s;
    for (const auto& d : p->types[0].sizes) s.push_back(d.value);
    tensor::Tensor t = tensor::Tensor::empty(s, p->types[0].dtype);
    for (int64_t i = 0; i < t.numel(); ++i) t.storeAt(i, std::sin(0.37 * static_cast<double>(i)) * 2.0 + shift);
    out.push_back(t);
  }
  return out;
}

// The fused graph runs through its generated kernels (scheduled, LLVM-compiled); every other
// pass's output runs op by op.
std::vector<tensor::Tensor> runAfter(const std::string& pass, const ir::Graph& g, const std::vector<tensor::Tensor>& in) {
  if (pass != "fuse") return runtime::runAtenGraph(g, in);
  schedule::ScheduledGraph sched = schedule::scheduleGraph(g);
  auto module = codegen::makeLlvmCpuCompiler()->compile(sched.kernels, "golden");
  return runtime::CompiledGraph(g, std::move(sched), module).run(in);
}

void expectSameResults(const std::string& pass, const ir::Graph& before, const ir::Graph& after, double shift) {
  auto in = inputsFor(before, shift);
  auto a = runtime::runAtenGraph(before, in);
  auto b = runAfter(pass, after, in);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    auto x = a[i].toDoubles(), y = b[i].toDoubles();
    ASSERT_EQ(x.size(), y.size());
    for (size_t k = 0; k < x.size(); ++k) {
      if (std::isnan(x[k])) {
        EXPECT_TRUE(std::isnan(y[k])) << "output " << i << "[" << k << "]";
        continue;
      }
      if (std::isinf(x[k])) {
        EXPECT_EQ(x[k], y[k]) << "output " << i << "[" << k << "]";
        continue;
      }
      EXPECT_NEAR(x[k], y[k], 1e-5 * std::max(1.0, std::fabs(x[k]))) << "output " << i << "[" << k << "]";
    }
  }
}

TEST(PassGolden, EveryCase) {
  fs::path root = fs::path(KILN_SOURCE_DIR) / "tests/passes/golden";
  int cases = 0;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;  // the folder's README
    std::optional<PassInfo> pass = findPass(dir.path().filename().string());
    ASSERT_TRUE(pass.has_value()) << "no pass named " << dir.path().filename();
    for (const auto& f : fs::directory_iterator(dir.path())) {
      if (f.path().extension() != ".in") continue;
      SCOPED_TRACE(f.path().string());
      ++cases;
      ir::Graph in = ir::parseGraph(test::readFile(f.path().string()), f.path().string());
      PassContext ctx;
      PassResult r = pass->run(in, ctx);
      fs::path expected = f.path();
      expected.replace_extension(".out");
      std::string diff = test::compareGolden(expected.string(), ir::printGraph(r.graph));
      EXPECT_EQ(diff, "");
      EXPECT_TRUE(r.changed) << "the case should exercise the pass";
      // The rewrite must not change what the graph computes (for log: inputs of both signs).
      expectSameResults(pass->name, in, r.graph, 0.0);
      expectSameResults(pass->name, in, r.graph, 2.5);
    }
  }
  EXPECT_GE(cases, 12);
}

TEST(PassGolden, RulesAreRecorded) {
  ir::Graph in = ir::parseGraph(test::readFile(std::string(KILN_SOURCE_DIR) + "/tests/passes/golden/simplify/exp_log.in"));
  PassContext ctx;
  PassResult r = findPass("simplify")->run(in, ctx);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].rule, "exp(log(x)) -> where(x < 0, nan, x)");
  EXPECT_EQ(r.rules[0].count, 1);
}

// Every pair the fusion pass considers leaves a decision: softmax is one kernel (the pointwise
// ops and the second reduction fused into the first), and a mean without keepdim does not fuse
// into a consumer that would broadcast it the wrong way.
TEST(PassGolden, FusionDecisionsAreRecorded) {
  auto rulesOf = [](const std::string& name) {
    ir::Graph in = ir::parseGraph(test::readFile(std::string(KILN_SOURCE_DIR) + "/tests/passes/golden/fuse/" + name + ".in"));
    PassContext ctx;
    std::map<std::string, int> rules;
    for (const auto& h : findPass("fuse")->run(in, ctx).rules) rules[h.rule] += h.count;
    return rules;
  };
  EXPECT_EQ(rulesOf("softmax"),
            (std::map<std::string, int>{
                {"reduction kernel", 1}, {"fused: pointwise into reduction kernel", 3}, {"fused: reduction into reduction kernel", 1}}));
  auto center = rulesOf("center_columns");
  EXPECT_EQ(center.count("not fused: sub reads mean without the reduced dims kept"), 1u) << ::testing::PrintToString(center);
  auto siblings = rulesOf("siblings");
  EXPECT_GE(siblings["fused: horizontally with a kernel reading the same input"], 1) << ::testing::PrintToString(siblings);
}

// A per-channel operand computed from the convolution's own output is not a constant of the
// affine map: centring by the per-channel mean must not fold into the weights.
TEST(PassGolden, ConvBnFoldNeedsOperandsIndependentOfTheConvolution) {
  const char* text = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 2, 3, 3]", arg1_1: "f32[1, 2, 5, 5]"):
        # File: m.py:4 in f, code: y = F.conv2d(x, w); return y - y.mean((0, 2, 3), keepdim=True)
        convolution: "f32[1, 4, 3, 3]" = torch.ops.aten.convolution.default(arg1_1, arg0_1, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  arg1_1 = arg0_1 = None
        mean: "f32[1, 4, 1, 1]" = torch.ops.aten.mean.dim(convolution, [0, 2, 3], True)
        sub: "f32[1, 4, 3, 3]" = torch.ops.aten.sub.Tensor(convolution, mean);  convolution = mean = None
        return (sub,)
)";
  ir::Graph in = ir::parseGraph(text);
  PassContext ctx;
  PassResult r = findPass("fold_conv_bn")->run(in, ctx);
  EXPECT_TRUE(r.rules.empty());
  EXPECT_EQ(ir::printGraph(r.graph), ir::printGraph(in));
}

}  // namespace
}  // namespace kiln::passes
