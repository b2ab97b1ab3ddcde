// Eager autograd: every op family's backward against central finite differences in float64
// (gradcheck written in the script itself), the engine's semantics (accumulation,
// retain_graph, scalar outputs, detach, grad_fn names) and PyTorch's gradients of a model.
#include "tests/nn/nn_test_util.h"

namespace kiln::nntest {
namespace {
#include "tests/nn/reference_values.inc"

// gradcheck(fn, *inputs): the largest difference between autograd's and the numerical
// gradient of sum(fn(*inputs) * w) over every input requiring grad.
const char* kGradcheck = R"(
import math
import torch
import torch.nn.functional as F

def weights_like(t):
    n = t.numel()
    return (torch.sin(torch.arange(n, dtype=torch.float64) * 0.7 + 0.3)).reshape(t.shape)

def gradcheck(fn, *inputs, eps=1e-6):
    out = fn(*inputs)
    w = weights_like(out)
    (out * w).sum().backward()
    worst = 0.0
    for k, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor) or not x.requires_grad:
            continue
        flat = x.detach().clone().reshape(-1)
        analytic = x.grad.reshape(-1)
        for i in range(flat.numel()):
            vals = []
            for sgn in [1.0, -1.0]:
                p = flat.clone()
                p[i] = p[i] + sgn * eps
                args = list(inputs)
                args[k] = p.reshape(x.shape)
                with torch.no_grad():
                    vals.append((fn(*args) * w).sum().item())
            num = (vals[0] - vals[1]) / (2 * eps)
            worst = max(worst, abs(num - analytic[i].item()) / max(1.0, abs(num)))
    return worst

def t(*shape, seed=0, positive=False):
    n = math.prod(shape)
    v = torch.sin(torch.arange(n, dtype=torch.float64) * 1.3 + seed + 0.2) * 0.9  # no zeros (abs, relu)
    if positive:
        v = v.abs() + 0.5
    return v.reshape(shape).requires_grad_(True)
)";

struct Check {
  const char* name;
  const char* expr;  // defines err = gradcheck(...)
};

TEST(Autograd, FiniteDifferences) {
  const Check checks[] = {
      {"unary",
       "err = gradcheck(lambda a: torch.exp(a) + torch.sin(a) * torch.cos(a) + torch.tanh(a) + torch.sigmoid(a) + torch.erf(a) + a.abs() + a.relu() - a, t(2, 3))"},
      {"positive", "err = gradcheck(lambda a: torch.log(a) + torch.sqrt(a) + torch.rsqrt(a) + a.reciprocal(), t(2, 3, positive=True))"},
      {"broadcast", "err = gradcheck(lambda a, b: a * b + a / (b + 3) - b + a ** 2, t(2, 3), t(3, seed=1))"},
      {"pow", "err = gradcheck(lambda a, b: a ** b, t(2, 3, positive=True), t(1, 3, seed=2))"},
      // A number base (found by tests/fuzz: its log was taken as a tensor's and crashed).
      {"pow_number_base", "err = gradcheck(lambda e: torch.pow(2.5, e) + 3 ** e, t(2, 3))"},
      {"minmax_where",
       "err = gradcheck(lambda a, b: torch.maximum(a, b) + torch.minimum(a, b) * 2 + torch.where(a > b, a, b * 3), t(2, 3), t(2, 3, seed=3))"},
      {"reductions",
       "err = gradcheck(lambda a: a.sum(1) + a.mean(0).sum() + a.amax(1) + a.var(1) + a.std(1) + torch.logsumexp(a, 1) + a.norm(dim=1), t(3, 4))"},
      {"max_dim", "err = gradcheck(lambda a: a.max(1)[0] * 2 + a.max(), t(3, 4))"},
      {"cumsum",
       "err = gradcheck(lambda a: torch.cumsum(a, 1) * t(3, 4, seed=13) + a.cumsum(0) ** 2 + torch.cumsum(a, -1, dtype=torch.float64), t(3, 4))"},
      {"views",
       "err = gradcheck(lambda a: a.view(4, 3).t().reshape(-1)[2:9] * 2 + a.permute(1, 0)[1].sum() + a.unsqueeze(0).expand(2, 3, 4).sum(), t(3, 4))"},
      {"cat_index",
       "err = gradcheck(lambda a, b: torch.cat([a, b], 0)[torch.tensor([0, 2, 3])] + torch.stack([a[0], b[1]]).sum(0), t(2, 3), t(2, 3, seed=4))"},
      {"matmul",
       "err = gradcheck(lambda a, b, c: a @ b + c + torch.bmm(a.unsqueeze(0), b.unsqueeze(0))[0], t(2, 3), t(3, 4, seed=5), t(4, seed=6))"},
      {"linear", "err = gradcheck(lambda x, w, b: F.linear(x, w, b), t(2, 3), t(4, 3, seed=7), t(4, seed=8))"},
      {"softmax", "err = gradcheck(lambda a: F.softmax(a, dim=1) + F.log_softmax(a, dim=0), t(3, 4))"},
      {"layer_norm", "err = gradcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), t(3, 4), t(4, seed=9), t(4, seed=10))"},
      {"batch_norm_train",
       "err = gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, True), t(4, 3, 2, seed=2), t(3, seed=11), t(3, seed=12))"},
      {"batch_norm_eval",
       "err = gradcheck(lambda x, w, b: F.batch_norm(x, torch.zeros(3, dtype=torch.float64) + 0.1, torch.ones(3, dtype=torch.float64) * 2, w, b, False), t(4, 3, seed=2), t(3, seed=11), t(3, seed=12))"},
      {"losses",
       "err = gradcheck(lambda a, b: F.cross_entropy(a, torch.tensor([0, 2, 1])) + F.mse_loss(a, b) + F.nll_loss(F.log_softmax(a, 1), torch.tensor([1, 1, 0]), reduction='sum'), t(3, 4), t(3, 4, seed=1))"},
      {"gelu_clamp", "err = gradcheck(lambda a: F.gelu(a) + F.gelu(a, approximate='tanh') + a.clamp(-0.5, 0.5) * 3 + F.silu(a), t(2, 5))"},
      {"conv2d",
       "err = gradcheck(lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), t(1, 2, 5, 5), t(3, 2, 3, 3, seed=1), t(3, seed=2))"},
      {"conv2d_groups",
       "err = gradcheck(lambda x, w: F.conv2d(x, w, None, padding=1, groups=2, dilation=1), t(2, 4, 3, 3), t(4, 2, 2, 2, seed=3))"},
      {"pooling",
       "err = gradcheck(lambda x: F.max_pool2d(x, 2) .sum() + F.avg_pool2d(x, 2, padding=1).sum() * 2 + F.adaptive_avg_pool2d(x, 2).sum() * 3, t(1, 2, 4, 5))"},
      {"pad_embedding",
       "err = gradcheck(lambda x, w: F.pad(x, (1, 2)).sum(1) * F.embedding(torch.tensor([1, 0, 1]), w).sum(1), t(3, 3), t(2, 3, seed=5))"},
  };
  for (const auto& c : checks) {
    Script r(std::string(kGradcheck) + c.expr + "\n");
    EXPECT_EQ(r.error, "") << c.name;
    if (!r.error.empty()) continue;
    auto err = r.values("err");
    ASSERT_EQ(err.size(), 1u) << c.name;
    EXPECT_LT(err[0], 1e-6) << c.name;
  }
}

TEST(Autograd, EngineSemantics) {
  Script r(R"(
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * x).sum().backward()
(x * 3).sum().backward()
acc = x.grad.clone()
y = (x * 2).sum()
name = y.grad_fn.name()
leafs = [x.is_leaf, y.is_leaf, x.grad_fn is None]
z = x * x
s = z.sum()
s.backward(retain_graph=True)
s.backward()
twice = x.grad.clone()
d = x.detach()
dflags = [d.requires_grad, d.is_leaf]
h = x * 2
h.retain_grad()
(h * h).sum().backward()
hg = h.grad
v = x * 2
v.backward(torch.tensor([1.0, 10.0]))
vg = x.grad
rep = repr((x * 2).sum())
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("acc"), {5, 7});
  EXPECT_EQ(r.in->str(r.var("name")), "SumBackward0");
  expectNear(r.values("leafs"), {1, 0, 1});
  expectNear(r.values("twice"), {9, 15});
  expectNear(r.values("dflags"), {0, 1});
  expectNear(r.values("hg"), {4, 8});
  expectNear(r.values("vg"), {19, 51});
  EXPECT_EQ(r.in->str(r.var("rep")), "tensor(6., grad_fn=<SumBackward0>)");
}

// A linear layer's weight gradient comes out contiguous, as PyTorch's (mm's backward computes it
// column by column when the weight's transpose is what the product read, mm_mat2_backward), so
// AccumulateGrad keeps the tensor instead of copying a transposed 4 MiB matrix per step; a
// gradient someone else holds (the user's `gradient=`) is still copied, never aliased.
TEST(Autograd, LinearWeightGradientsAreContiguousAndTheLeafsOwn) {
  Script r(R"(import torch
lin = torch.nn.Linear(3, 2)
x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
lin(x).sum().backward()
g = lin.weight.grad
layout = [g.is_contiguous(), g.stride()[0], g.stride()[1]]
first = g.flatten().tolist()
keep = g.clone()
lin(x).sum().backward()
second = lin.weight.grad.flatten().tolist()
kept = keep.flatten().tolist()
w = torch.randn(4, 5, requires_grad=True)
(torch.cat([x[:, :2], x[:, :2]], 1) @ w).sum().backward()
plain = [w.grad.is_contiguous()]
p = torch.zeros(2, requires_grad=True)
v = torch.tensor([1.0, 2.0])
p.backward(v)
p.grad.add_(1.0)
user = v.tolist()
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("layout"), {1, 3, 1});
  expectNear(r.values("first"), {1.5, 1, 5, 1.5, 1, 5});
  expectNear(r.values("second"), {3, 2, 10, 3, 2, 10});
  expectNear(r.values("kept"), {1.5, 1, 5, 1.5, 1, 5});
  expectNear(r.values("plain"), {1});
  expectNear(r.values("user"), {1, 2});  // p.grad is a copy of v
}

// add_/sub_ with alpha on float32 tensors of one shape run as one pass into self (an eager
// optimizer step): bit for bit what the out-of-place op computes, and anything else (an
// overlapping operand, a broadcast, other dtypes) still through the general path.
TEST(Autograd, InPlaceScaledAddIsTheOutOfPlaceResult) {
  Script r(R"(import torch
torch.manual_seed(0)
a = torch.randn(1000)
b = torch.randn(1000)
c = a.clone()
c.add_(b, alpha=-0.37)
d = a.clone()
d.sub_(b, alpha=2.5)
e = a.clone()
e.add_(b)
same = [bool((c == torch.add(a, b, alpha=-0.37)).all()), bool((d == torch.sub(a, b, alpha=2.5)).all()), bool((e == a + b).all())]
x = torch.arange(4.0)
x.add_(x, alpha=2)
y = torch.ones(2, 3)
y.add_(torch.tensor([1.0, 2.0, 3.0]), alpha=2)
z = torch.ones(3, dtype=torch.float64)
z.sub_(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), alpha=0.5)
with torch.no_grad():
    p = torch.ones(3, requires_grad=True)
    p.add_(torch.tensor([1.0, 2.0, 3.0]), alpha=-1)
pv = p.tolist()
w = torch.randn(3, requires_grad=True)
q = torch.zeros(3)
q.add_(other=w, alpha=2)
q.sum().backward()
wg = w.grad.tolist()
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("wg"), {2, 2, 2});  // `other` by keyword and requiring grad: recorded, not the fast path
  expectNear(r.values("same"), {1, 1, 1});
  expectNear(r.values("x"), {0, 3, 6, 9});
  expectNear(r.values("y"), {3, 5, 7, 3, 5, 7});
  expectNear(r.values("z"), {0.5, 0, -0.5});
  expectNear(r.values("pv"), {0, -1, -2});
}

// Tensor.register_post_accumulate_grad_hook (what DDP launches its bucket all-reduces from):
// called with the leaf after its .grad holds the accumulated sum, in backward's order (the last
// layer's parameter first), once per backward; refused on non-leaves and tensors without grad.
TEST(Autograd, PostAccumulateGradHookSeesTheAccumulatedGrad) {
  Script r(R"(import torch
w1 = torch.tensor([1.0, 2.0], requires_grad=True)
w2 = torch.tensor([3.0], requires_grad=True)
seen = []
order = []
def hook1(p):
    seen.append(p.grad.clone())
    order.append(1)
w1.register_post_accumulate_grad_hook(hook1)
w2.register_post_accumulate_grad_hook(lambda p: order.append(2))
x = torch.tensor([1.0, 1.0])
((x * w1).sum() * w2).sum().backward()
((x * w1).sum() * w2).sum().backward()
first = seen[0]
second = seen[1]
try:
    (w1 * 2).register_post_accumulate_grad_hook(hook1)
except RuntimeError as e:
    nonleaf = str(e)
try:
    torch.ones(2).register_post_accumulate_grad_hook(hook1)
except RuntimeError as e:
    nograd = str(e)
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("first"), {3, 3});
  expectNear(r.values("second"), {6, 6});  // accumulated over both backwards
  expectNear(r.values("order"), {2, 1, 2, 1});
  EXPECT_EQ(r.in->str(r.var("nonleaf")), "post accumulate grad hooks cannot be registered on non-leaf tensors");
  EXPECT_EQ(r.in->str(r.var("nograd")), "cannot register a hook on a tensor that doesn't require gradient");
}

TEST(Autograd, Errors) {
  EXPECT_EQ(Script("import torch\nx = torch.ones(3, requires_grad=True)\n(x * 2).backward()").error,
            "RuntimeError: grad can be implicitly created only for scalar outputs");
  EXPECT_EQ(Script("import torch\nx = torch.ones(3)\nx.sum().backward()").error,
            "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn");
  std::string second = Script("import torch\nx = torch.ones(3, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\ny.backward()").error;
  EXPECT_EQ(second.rfind("RuntimeError: Trying to backward through the graph a second time", 0), 0u) << second;
  EXPECT_EQ(Script("import torch\nx = torch.ones(3, dtype=torch.int64)\nx.requires_grad_()").error,
            "RuntimeError: only Tensors of floating point and complex dtype can require gradients");
  EXPECT_EQ(Script("import torch\nx = torch.ones(3, requires_grad=True)\n(x * 2).requires_grad_(False)")
                .error.rfind("RuntimeError: you can only change requires_grad flags of leaf variables.", 0),
            0u);
}

TEST(Autograd, MatchesPyTorchModelGradients) {
  Script r(R"(
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

def det(shape, seed=0):
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed).reshape(shape)

m = nn.Sequential(nn.Linear(5, 7), nn.GELU(), nn.LayerNorm(7), nn.Linear(7, 3))
with torch.no_grad():
    for i, p in enumerate(m.parameters()):
        p.copy_(det(tuple(p.shape), i) * 0.5)
x = det((4, 5), 9)
y = torch.tensor([0, 2, 1, 2])
loss = F.cross_entropy(m(x), y)
loss.backward()
l = loss.item()
g = [p.grad for p in m.parameters()]
g0, g1, g2, g3, g4, g5 = g
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("l"), kMlpLoss, 1e-6);
  const std::vector<double>* refs[] = {&kMlpGrad0, &kMlpGrad1, &kMlpGrad2, &kMlpGrad3, &kMlpGrad4, &kMlpGrad5};
  for (int i = 0; i < 6; ++i) expectNear(r.values("g" + std::to_string(i)), *refs[i], 1e-4, 1e-6);
}

}  // namespace
}  // namespace kiln::nntest
