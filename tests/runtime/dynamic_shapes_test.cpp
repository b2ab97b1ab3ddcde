// Dynamic shapes end to end: a dynamic entry's kernels are generated once over size symbols and
// serve every later shape (no code generation); a graph whose sizes cannot be expressed in the
// symbols is compiled per shape and says why in its wrapper; results equal eager's.
#include "engine/driver/backends.h"
#include "engine/driver/explain.h"
#include "engine/driver/script_runner.h"
#include "engine/ir/sym.h"
#include "engine/ir/text.h"
#include "engine/schedule/kernel_builder.h"
#include "engine/schedule/symbolic_shapes.h"
#include "tests/runtime/run_util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

namespace kiln {
namespace {

const char* kSoftmaxMean = R"(import torch
@torch.compile(dynamic=True)
def f(x, w):
    y = torch.softmax(x * 2.0, dim=-1) + x.mean(dim=1, keepdim=True)
    return (y @ w).relu() + x.var(dim=1).sum()

def t(*shape):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=torch.float32) * 0.37).reshape(shape)

out = f(t(3, 5), t(5, 4))
out_1 = f(t(7, 9), t(9, 6))
out_2 = f(t(16, 33), t(33, 2))
)";

TEST(DynamicShapes, KernelsOverSymbolsServeEveryShape) {
  Ran r;
  // One graph compiled; the two later shapes ran its module at their sizes.
  runCompiled("softmax_mean", kSoftmaxMean, 1, r);
  ASSERT_FALSE(r.sink.kernels.empty());
  bool symbolic = false;
  for (const auto& k : r.sink.kernels) symbolic = symbolic || k.kernelIr.find("loop i0 in 0..s0") != std::string::npos;
  EXPECT_TRUE(symbolic) << r.sink.kernels[0].kernelIr;
  ASSERT_EQ(r.sink.wrappers.size(), 1u);
  EXPECT_NE(r.sink.wrappers[0].text.find("# dynamic shapes: the kernels run over s0, s1"), std::string::npos) << r.sink.wrappers[0].text;
  // Every stage shows the symbols, the captured one too (from its ATen results' sizes).
  EXPECT_NE(r.sink.stages["captured"].find("L_x_: \"f32[s0, s1]\", L_w_: \"f32[s1, s2]\""), std::string::npos) << r.sink.stages["captured"];
  EXPECT_NE(r.sink.stages["captured"].find("matmul: \"f32[s0, s2]\""), std::string::npos) << r.sink.stages["captured"];
  EXPECT_NE(r.sink.stages["fused"].find("mm: \"f32[s0, s2]\""), std::string::npos) << r.sink.stages["fused"];
}

// Parameters keep static shapes under dynamic=True (Dynamo's force_parameter_static_shapes).
TEST(DynamicShapes, ParametersStayStatic) {
  const char* script = R"(import torch
m = torch.nn.Linear(8, 8)
f = torch.compile(m, dynamic=True)
out = f(torch.ones(3, 8))
out_1 = f(torch.ones(5, 8))
)";
  Ran r;
  runCompiled("params_static", script, 1, r);
  const std::string& cap = r.sink.stages["captured"];
  EXPECT_NE(cap.find("weight_: \"f32[8, 8]\""), std::string::npos) << cap;
  EXPECT_NE(cap.find("L_input_: \"f32[s0, 8]\""), std::string::npos) << cap;
}

// arange(x.shape[0]) is captured as arange(4): 4 is s0's value, so it is taken to be s0, and the
// next shape (whose capture has arange(6) with s0 = 6) reuses the module.
const char* kArange = R"(import torch
@torch.compile(dynamic=True)
def f(x):
    return x * torch.arange(x.shape[0], dtype=torch.float32).unsqueeze(1)

out = f(torch.ones(4, 3))
out_1 = f(torch.ones(6, 3) * 2)
)";

TEST(DynamicShapes, SizesFromPythonIntsAreTakenAsTheirSymbol) {
  Ran r;
  runCompiled("arange", kArange, 1, r);
  ASSERT_FALSE(r.sink.wrappers.empty());
  EXPECT_NE(r.sink.wrappers[0].text.find("# dynamic shapes: the kernels run over s0"), std::string::npos) << r.sink.wrappers[0].text;
}

// A CNN called at four batch sizes: the second compile (automatic dynamic) runs its convolution,
// pooling and classifier kernels over the batch size s0, and the last two batches reuse it.
TEST(DynamicShapes, ConvNetOverTheBatchSize) {
  const char* script = R"(import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 4 * 4, 10)
    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        return torch.softmax(self.fc(x.flatten(1)), dim=-1)
m = Net().eval()
f = torch.compile(m)
outs = [f(torch.sin(torch.arange(n * 192, dtype=torch.float32)).reshape(n, 3, 8, 8)) for n in [2, 3, 5, 7]]
out, out_1, out_2, out_3 = outs
)";
  Ran r;
  runCompiled("convnet", script, 2, r);
  ASSERT_EQ(r.sink.wrappers.size(), 2u);
  EXPECT_NE(r.sink.wrappers[1].text.find("# dynamic shapes: the kernels run over s0"), std::string::npos) << r.sink.wrappers[1].text;
}

// kiln explain reports, per graph, what the kernels of a dynamic graph run over.
TEST(DynamicShapes, ExplainSaysWhatKernelsRunOver) {
  std::string path = std::string(KILN_BINARY_DIR) + "/tests/runtime/explain_dynamic.py";
  std::ofstream(path) << kArange;
  driver::ExplainReport report;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  ASSERT_EQ(driver::runScript(ro, report, out).exitCode, 0);
  ASSERT_EQ(report.graphs().size(), 1u);
  EXPECT_EQ(report.graphs()[0].dynamicShapes, "the kernels run over s0, s1, read from the inputs' sizes at every call");
  EXPECT_NE(report.text().find("    dynamic shapes: the kernels run over s0"), std::string::npos) << report.text();
}

// A literal that happened to equal a symbol's value at the first shape: the next shape's capture
// keeps it a literal, its kernels differ, and that shape gets code of its own (right results).
const char* kLiteral = R"(import torch
@torch.compile(dynamic=True)
def f(x):
    return x.sum() + (torch.arange(4, dtype=torch.float32) * x[0]).sum()

out = f(torch.ones(4) * 3)
out_1 = f(torch.ones(6) * 2)
)";

TEST(DynamicShapes, AWrongGuessCostsACompileNotAResult) {
  Ran r;
  runCompiled("literal", kLiteral, 2, r);
}

// The analysis itself: a flatten and its inverse keep the symbols, a slice of a symbolic dim
// has no rule.
TEST(SymbolicShapes, ReshapeKeepsSymbolsAndSliceOfASymbolFails) {
  const char* text = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[2, 3, 8]"):
        view: "f32[6, 8]" = torch.ops.aten.view.default(arg0_1, [6, 8])
        exp: "f32[6, 8]" = torch.ops.aten.exp.default(view)
        view_1: "f32[2, 3, 8]" = torch.ops.aten.view.default(exp, [2, 3, 8])
        sum_1: "f32[2, 3]" = torch.ops.aten.sum.dim_IntList(view_1, [2])
        return (sum_1,)
)";
  ir::Graph g = ir::parseGraph(text);
  auto sym = [](const char* s, int64_t v) {
    ir::Dim d = ir::Dim::sym(s);
    d.value = v;
    return d;
  };
  for (auto& n : g.nodes)
    if (n.kind == ir::NodeKind::Placeholder) n.types[0].sizes = {sym("s0", 2), sym("s1", 3), ir::Dim(8)};
  ASSERT_EQ(schedule::symbolizeShapes(g), "");
  std::string printed = ir::printGraph(g);
  EXPECT_NE(printed.find("view: \"f32[s0*s1, 8]\""), std::string::npos) << printed;
  EXPECT_NE(printed.find("view_1: \"f32[s0, s1, 8]\""), std::string::npos) << printed;
  EXPECT_NE(printed.find("sum_1: \"f32[s0, s1]\""), std::string::npos) << printed;
  EXPECT_EQ(schedule::symbolValues(g), (std::vector<int64_t>{2, 3}));

  const char* sliced = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[6, 8]"):
        slice_1: "f32[2, 8]" = torch.ops.aten.slice.Tensor(arg0_1, 0, 1, 3)
        exp: "f32[2, 8]" = torch.ops.aten.exp.default(slice_1)
        return (exp,)
)";
  ir::Graph s = ir::parseGraph(sliced);
  for (auto& n : s.nodes)
    if (n.kind == ir::NodeKind::Placeholder) n.types[0].sizes = {sym("s0", 6), ir::Dim(8)};
  std::string before = ir::printGraph(s);
  EXPECT_NE(schedule::symbolizeShapes(s).find("a slice of symbolic dim s0"), std::string::npos);
  EXPECT_EQ(ir::printGraph(s), before);  // unchanged on failure
}

// A symbol that must equal a concrete size (broadcast against a [8] weight, a matmul's inner
// dim) is specialized to it, as Dynamo guards and specializes it; the other symbols stay.
TEST(SymbolicShapes, SymbolMeetingAStaticSizeIsSpecialized) {
  const char* text = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[3, 8]", arg1_1: "f32[8]", arg2_1: "f32[8, 5]"):
        mul: "f32[3, 8]" = torch.ops.aten.mul.Tensor(arg0_1, arg1_1)
        mm: "f32[3, 5]" = torch.ops.aten.mm.default(mul, arg2_1)
        return (mm,)
)";
  ir::Graph g = ir::parseGraph(text);
  auto sym = [](const char* s, int64_t v) {
    ir::Dim d = ir::Dim::sym(s);
    d.value = v;
    return d;
  };
  g.nodes[0].types[0].sizes = {sym("s0", 3), sym("s1", 8)};
  ASSERT_EQ(schedule::symbolizeShapes(g), "");
  std::string printed = ir::printGraph(g);
  EXPECT_NE(printed.find("arg0_1: \"f32[s0, 8]\""), std::string::npos) << printed;
  EXPECT_NE(printed.find("mm: \"f32[s0, 5]\""), std::string::npos) << printed;
  EXPECT_EQ(schedule::symbolValues(g), (std::vector<int64_t>{3}));
}

// Kernels built from a symbolic graph loop over the symbols, and read strides and element
// counts as size expressions.
TEST(SymbolicShapes, KernelIrCarriesSizeExpressions) {
  const char* text = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 6]"):
        mean: "f32[4]" = torch.ops.aten.mean.dim(arg0_1, [1])  # k0
        return (mean,)
)";
  ir::Graph g = ir::parseGraph(text);
  auto sym = [](const char* s, int64_t v) {
    ir::Dim d = ir::Dim::sym(s);
    d.value = v;
    return d;
  };
  for (auto& n : g.nodes)
    if (n.kind == ir::NodeKind::Placeholder) n.types[0].sizes = {sym("s0", 4), sym("s1", 6)};
  ASSERT_EQ(schedule::symbolizeShapes(g), "");
  schedule::ScheduledGraph sched = schedule::scheduleGraph(g);
  ASSERT_EQ(sched.kernels.size(), 1u);
  std::string k = kir::print(sched.kernels[0]);
  EXPECT_NE(k.find("in in_arg0_1: f32[s0, s1]"), std::string::npos) << k;
  EXPECT_NE(k.find("loop i0 in 0..s0"), std::string::npos) << k;
  EXPECT_NE(k.find("load in_arg0_1[i0*s1 + r0]"), std::string::npos) << k;
  EXPECT_NE(k.find("const s1 : f64"), std::string::npos) << k;  // 1/n of the mean, n = s1
  EXPECT_EQ(kir::parseKernel(k), kir::withoutHints(kir::parseKernel(k)));
  EXPECT_TRUE(sched.kernels[0].symbolic());
  EXPECT_EQ(sched.kernels[0].pointCountAt({10, 7}), 70);
}

}  // namespace
}  // namespace kiln
