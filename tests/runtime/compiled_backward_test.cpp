// Compiled backward graphs: a training graph's backward is traced from the op table's derivative
// formulas, compiled through the same pipeline the first time backward reaches it, and gives
// the gradients eager autograd gives; inference never builds one.
#include "engine/passes/partition.h"
#include "tests/runtime/run_util.h"

#include <set>

namespace kiln {
namespace {

const char* kMlp = R"(import torch
import torch.nn as nn
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 4), nn.Softmax(dim=-1))
f = torch.compile(m)
x = torch.randn(5, 8)
y = torch.randn(5, 4)
for step in range(2):
    m.zero_grad()
    loss = ((f(x) - y) ** 2).mean()
    loss.backward()
out = m[0].weight.grad
out_1 = m[0].bias.grad
out_2 = m[1].weight.grad
out_3 = m[3].weight.grad
out_4 = loss
)";

TEST(CompiledBackward, GradientsEqualEagerAutograd) {
  Ran r;
  runCompiled("mlp_backward", kMlp, 1, r);
  EXPECT_TRUE(r.sink.stages.count("backward:aten"));
  ASSERT_TRUE(r.sink.stages.count("backward:fused"));
  // The forward's values are recomputed inside the backward's kernels.
  EXPECT_NE(r.sink.stages["backward:fused"].find("# bw_cpp_fused_"), std::string::npos);
  int bwKernels = 0;
  for (const auto& k : r.sink.kernels) bwKernels += k.name.rfind("bw_", 0) == 0;
  EXPECT_GT(bwKernels, 2);
  ASSERT_FALSE(r.sink.wrappers.empty());
  EXPECT_NE(r.sink.wrappers.back().text.find("# backward (1 tangents, 6 gradients; 4 saved tensors of"), std::string::npos)
      << r.sink.wrappers.back().text;
  EXPECT_TRUE(r.sink.stages.count("backward:joint"));
  EXPECT_TRUE(r.sink.stages.count("backward:partition"));
}

// A CNN's max pooling: the compiled backward records the window's argmax as
// kiln.max_pool2d_indices (a graph has no multi-result nodes) and scatters the gradient there;
// it used to fail and fall back to eager differentiation. Ties (relu zeros), ceil_mode, padding
// and overlapping windows; gradients equal eager's.
TEST(CompiledBackward, MaxPoolingGetsACompiledBackward) {
  const char* script = R"(import torch
import torch.nn.functional as F
torch.manual_seed(0)
w = torch.randn(3, 3, requires_grad=True)
c = torch.randn(4, 2, 3, 3, requires_grad=True)
def f(x):
    y = F.max_pool2d(torch.relu(x @ w).view(1, 1, 6, 3), 2, ceil_mode=True).sum()
    z = F.conv2d(x.view(1, 1, 6, 3).expand(1, 2, 6, 3), c, padding=1)
    return y + F.max_pool2d(torch.relu(z), 3, stride=1, padding=1).pow(2).sum()
g = torch.compile(f)
x = torch.randn(6, 3)
g(x).backward()
out = w.grad
out_1 = c.grad
)";
  Ran r;
  runCompiled("max_pool_backward", script, 1, r);
  ASSERT_TRUE(r.sink.stages.count("backward:fused"));
  ASSERT_FALSE(r.sink.wrappers.empty());
  const std::string& w = r.sink.wrappers.back().text;
  EXPECT_EQ(w.find("differentiated eagerly"), std::string::npos) << w;
  EXPECT_NE(w.find("kiln.max_pool2d_indices.default"), std::string::npos) << w;
}

// Calls of `g` that depend on no tangent: the forward work a backward graph does.
std::vector<const ir::Node*> forwardWorkIn(const ir::Graph& g) {
  const std::set<int> dep = passes::tangentDependent(g);
  std::vector<const ir::Node*> out;
  for (const auto& n : g.nodes)
    if (n.isCall() && !dep.count(n.id)) out.push_back(&n);
  return out;
}

// AOTAutograd's partition: the forward returns the matmul outputs (and reductions) the backward
// reads, the backward takes them as inputs and recomputes only pointwise work; gradients stay
// eager's (runCompiled compares every out*).
TEST(CompiledBackward, MatmulOutputsAreSavedNotRecomputed) {
  const char* script = R"(import torch
import torch.nn as nn
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10))
f = torch.compile(m)
x = torch.randn(16, 32)
y = torch.randint(0, 10, (16,))
for step in range(2):
    m.zero_grad()
    loss = nn.functional.cross_entropy(f(x), y)
    loss.backward()
out = m[0].weight.grad
out_1 = m[2].weight.grad
out_2 = m[4].bias.grad
out_3 = loss
)";
  Ran r;
  runCompiled("mlp_partition", script, 1, r);
  ASSERT_TRUE(r.sink.stages.count("backward:partition"));
  ASSERT_TRUE(r.sink.stageGraphs.count("backward:aten"));
  const std::string& text = r.sink.stages["backward:partition"];
  EXPECT_NE(text.find("saved_1 = "), std::string::npos) << text;
  // The backward reads saved tensors and does no matmul that does not involve a gradient.
  const ir::Graph& bw = r.sink.stageGraphs["backward:aten"];
  int savedInputs = 0, matmuls = 0;
  for (const ir::Node* p : bw.placeholders()) savedInputs += p->name.rfind("saved_", 0) == 0;
  EXPECT_GE(savedInputs, 2) << text;
  for (const ir::Node* n : forwardWorkIn(bw)) {
    EXPECT_EQ(n->target.find("mm"), std::string::npos) << "the backward recomputes " << n->name << " (" << n->target << ")\n" << text;
    EXPECT_EQ(n->target.find("convolution"), std::string::npos) << n->name;
  }
  for (const auto& n : bw.nodes) matmuls += n.target.find("mm") != std::string::npos;
  EXPECT_EQ(matmuls, 5) << text;  // grad of the three weights and of two hidden activations
  // The forward's compiled graph returns the saved tensors after its output.
  EXPECT_NE(r.sink.wrappers.back().text.find("saved tensors of"), std::string::npos);
}

// A pointwise chain from the inputs costs nothing to recompute (the inputs are kept anyway): the
// partition saves nothing and the backward recomputes sin and the multiplication.
TEST(CompiledBackward, PointwiseChainsFromInputsAreRecomputed) {
  const char* script = R"(import torch
@torch.compile
def f(x):
    return (x.sin() * 3.0).exp().sum()
x = torch.linspace(-1.0, 1.0, 12, requires_grad=True)
f(x).backward()
out = x.grad
)";
  Ran r;
  runCompiled("pointwise_partition", script, 1, r);
  ASSERT_TRUE(r.sink.stages.count("backward:partition"));
  const std::string& text = r.sink.stages["backward:partition"];
  EXPECT_NE(text.find("# partition (min-cut): 0 saved tensors"), std::string::npos) << text;
  EXPECT_NE(text.find("(aten.sin.default)"), std::string::npos) << text;
}

// The cut is a minimum one, not a rule: the backward needs only the mask h > 0, and saving it
// (bool, 512 bytes) costs less than saving the matmul it comes from (f32, 2048 bytes), which a
// "save every matmul output" rule would keep.
TEST(CompiledBackward, MinCutSavesTheCheaperMaskNotTheMatmul) {
  const char* script = R"(import torch
torch.manual_seed(0)
x = torch.randn(8, 16)
w = torch.randn(16, 64)
v = torch.randn(8, 64, requires_grad=True)
@torch.compile
def f(x, w, v):
    h = x @ w
    return (torch.where(h > 0, v, 0.0) * v).sum()
f(x, w, v).backward()
out = v.grad
)";
  Ran r;
  runCompiled("mask_partition", script, 1, r);
  ASSERT_TRUE(r.sink.stages.count("backward:partition"));
  const std::string& text = r.sink.stages["backward:partition"];
  EXPECT_NE(text.find("# partition (min-cut): 1 saved tensors, 512 B"), std::string::npos) << text;
  EXPECT_NE(text.find("saved_1 = gt  b8[8, 64]  512 B"), std::string::npos) << text;
}

// A gradient for only one of two outputs (the other's tangent is zeros), an input that requires
// grad, a graph break (two graphs, each with its backward), and create_graph=True (which takes
// the eager recompute: its gradient must be differentiable again).
TEST(CompiledBackward, PartialOutputsGraphBreaksAndCreateGraph) {
  const char* script = R"(import torch
torch.manual_seed(0)
w = torch.randn(4, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)

@torch.compile
def two(x):
    h = x @ w + b
    return h.tanh(), (h * h).sum(dim=0)

x = torch.randn(5, 4, requires_grad=True)
p, q = two(x)
p.sum().backward()
out = x.grad.clone()
out_1 = w.grad.clone()
out_2 = b.grad.clone()

@torch.compile
def brk(x):
    y = torch.sin(x) * w.sum()
    print("break")
    return (y.cos() * b.sum()).sum()

x2 = torch.randn(3, 3, requires_grad=True)
brk(x2).backward()
out_3 = x2.grad.clone()

@torch.compile
def cube(x):
    return (x ** 3).sum()
x3 = torch.tensor([1.0, 2.0], requires_grad=True)
cube(x3).backward(create_graph=True)
out_4 = x3.grad.detach().clone()
)";
  Ran r;
  runCompiled("backward_cases", script, 4, r);
  int backwards = 0;
  for (const auto& w : r.sink.wrappers) backwards += w.text.find("# backward (") != std::string::npos;
  EXPECT_EQ(backwards, 3);  // two, brk and its resume function; not cube (create_graph)
}

TEST(CompiledBackward, InferenceBuildsNoBackward) {
  const char* script = R"(import torch
m = torch.nn.Linear(4, 4)
f = torch.compile(m)
out = f(torch.ones(2, 4))
)";
  Ran r;
  runCompiled("inference_only", script, 1, r);
  EXPECT_FALSE(r.sink.stages.count("backward:aten"));
  for (const auto& k : r.sink.kernels) EXPECT_NE(k.name.rfind("bw_", 0), 0u) << k.name;
}

}  // namespace
}  // namespace kiln
