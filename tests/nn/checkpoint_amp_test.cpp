// torch.utils.checkpoint and torch.amp.GradScaler, eagerly: a checkpointed region gives the
// gradients of the unchecked run, runs its function again in the backward, and keeps none of its
// autograd nodes (the tensors they save) alive in the forward's graph; PyTorch 2.11's warnings and
// errors. GradScaler's loop equals the same loop computed by hand, an inf gradient skips the step
// and halves the scale, and the deprecated torch.cuda.amp / torch.cpu.amp aliases warn.
#include "engine/autograd/node.h"
#include "tests/nn/nn_test_util.h"

#include <set>

namespace kiln::nntest {
namespace {

// Autograd nodes reachable from `name`'s grad_fn, AccumulateGrad sinks excepted: the nodes
// that hold the forward's saved tensors until backward.
size_t graphNodes(const Script& s, const std::string& name) {
  py::Value v = s.var(name);
  if (!v || v->kind != py::VK::Tensor) return 0;
  const auto& meta = py::as<py::TensorObj>(v)->t.autograd();
  if (!meta || !meta->gradFn) return 0;
  std::set<const autograd::Node*> seen;
  std::vector<const autograd::Node*> todo{meta->gradFn.get()};
  size_t count = 0;
  while (!todo.empty()) {
    const autograd::Node* n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    if (n->name() != "AccumulateGrad") ++count;
    for (const auto& e : n->next())
      if (e.fn) todo.push_back(e.fn.get());
  }
  return count;
}

const char* kBlock = R"(
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
calls = [0]
block = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 8))
head = nn.Linear(8, 1)
def region(x):
    calls[0] += 1
    return block(x)
x = torch.randn(4, 8, requires_grad=True)
def run(use_ckpt, reentrant):
    block.zero_grad()
    head.zero_grad()
    x.grad = None
    h = checkpoint(region, x, use_reentrant=reentrant) if use_ckpt else region(x)
    out = head(h).sum()
    return out
)";

TEST(Checkpoint, GradientsEqualUncheckedAndRegionIsRecomputed) {
  for (const char* reentrant : {"False", "True"}) {
    Script s(std::string(kBlock) + "out_plain = run(False, " + reentrant + ")\n" +
             "out_plain.backward()\n"
             "g_plain = [p.grad.clone() for p in block.parameters()] + [head.weight.grad.clone(), x.grad.clone()]\n"
             "calls_plain = calls[0]\n"
             "out_ckpt = run(True, " +
             reentrant +
             ")\n"
             "calls_forward = calls[0] - calls_plain\n"
             "out_ckpt_kept = out_ckpt\n"
             "out_ckpt.backward()\n"
             "calls_total = calls[0] - calls_plain\n"
             "g_ckpt = [p.grad.clone() for p in block.parameters()] + [head.weight.grad.clone(), x.grad.clone()]\n"
             "diff = max((a - b).abs().max().item() for a, b in zip(g_plain, g_ckpt))\n"
             "same_loss = out_plain.item() == out_ckpt.item()\n"
             "n_grads = len(g_ckpt)\n"
             "fn_name = out_ckpt.grad_fn.name()\n");
    ASSERT_EQ(s.error, "") << reentrant;
    EXPECT_EQ(s.values("diff"), std::vector<double>{0.0}) << reentrant;
    EXPECT_EQ(s.values("same_loss"), std::vector<double>{1.0});
    EXPECT_EQ(s.values("n_grads"), std::vector<double>{8.0});
    // One forward run, one recomputation in the backward.
    EXPECT_EQ(s.values("calls_forward"), std::vector<double>{1.0});
    EXPECT_EQ(s.values("calls_total"), std::vector<double>{2.0});
  }
}

// The forward's graph holds the region as one node: its five layers' nodes (and the activations
// they save) are gone until the backward recomputes them.
TEST(Checkpoint, RegionNodesAreNotKept) {
  Script s(std::string(kBlock) +
           "out_plain = run(False, False)\n"
           "out_ckpt = run(True, False)\n"
           "out_reentrant = run(True, True)\n");
  ASSERT_EQ(s.error, "");
  const size_t plain = graphNodes(s, "out_plain"), ckpt = graphNodes(s, "out_ckpt"), reentrant = graphNodes(s, "out_reentrant");
  // sum, the head's addmm and its weight's transpose; then the block: 3 Linear layers (addmm and
  // t each) and 2 activations: 8 nodes, against the one checkpoint node.
  EXPECT_EQ(plain, 3u + 8u);
  EXPECT_EQ(ckpt, 3u + 1u);
  EXPECT_EQ(reentrant, 3u + 1u);
}

TEST(Checkpoint, SequentialSegmentsAndDropoutReplay) {
  Script s(R"(
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint_sequential, checkpoint
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Dropout(0.3), nn.Linear(12, 12), nn.Sigmoid(), nn.Linear(12, 3))
x = torch.randn(5, 6, requires_grad=True)
def grads():
    return [p.grad.clone() for p in model.parameters()] + [x.grad.clone()]
torch.manual_seed(7)
model(x).pow(2).sum().backward()
g_plain = grads()
model.zero_grad()
x.grad = None
torch.manual_seed(7)
y = checkpoint_sequential(model, 2, x, use_reentrant=False)
y.pow(2).sum().backward()
g_seq = grads()
diff_seq = max((a - b).abs().max().item() for a, b in zip(g_plain, g_seq))
after_seq = torch.rand(1).item()
torch.manual_seed(7)
torch.rand(12 * 5)
expect_after = torch.rand(1).item()
model.zero_grad()
x.grad = None
torch.manual_seed(7)
y2 = checkpoint_sequential(model, 3, x, use_reentrant=True)
y2.pow(2).sum().backward()
diff_reentrant = max((a - b).abs().max().item() for a, b in zip(g_plain, grads()))
)");
  ASSERT_EQ(s.error, "");
  // The dropout mask drawn in the forward is drawn again in the recomputation.
  EXPECT_EQ(s.values("diff_seq"), std::vector<double>{0.0});
  EXPECT_EQ(s.values("diff_reentrant"), std::vector<double>{0.0});
  // The recomputation's draws do not advance the generator the script sees.
  EXPECT_EQ(s.values("after_seq"), s.values("expect_after"));
}

TEST(Checkpoint, WarningsAndErrorsArePyTorchs) {
  Script s(R"(
import warnings
import torch
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
x = torch.ones(2, requires_grad=True)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    y = checkpoint(lambda t: t * 2, x)
    z = checkpoint_sequential([torch.nn.Identity(), torch.nn.Identity()], 2, x)
msgs = [str(m.message) for m in w]
cats = [m.category.__name__ for m in w]
try:
    checkpoint(lambda t, k: t * k, x, use_reentrant=True, k=2)
except ValueError as e:
    err = str(e)
kw = checkpoint(lambda t, k: t * k, x, use_reentrant=False, k=3)
kw.sum().backward()
grad_kw = x.grad.tolist()
)");
  ASSERT_EQ(s.error, "");
  py::Value msgs = s.var("msgs");
  ASSERT_TRUE(msgs);
  std::vector<std::string> got;
  for (auto& m : s.in->iterate(msgs)) got.push_back(py::as<py::StrObj>(m)->v);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0],
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, calling "
            "checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if you need to "
            "preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
            "differences between the two variants.");
  EXPECT_EQ(got[1],
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In version 2.9 "
            "we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to "
            "preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
            "differences between the two variants.");
  EXPECT_EQ(py::as<py::StrObj>(s.var("err"))->v, "Unexpected keyword arguments: k");
  EXPECT_EQ(s.values("grad_kw"), (std::vector<double>{3.0, 3.0}));
}

// A training loop with GradScaler("cpu") against the same loop written by hand: the loss scaled,
// the gradients unscaled (by the float32 reciprocal of the scale computed in float64), SGD, and
// the scale grown every growth_interval clean steps.
TEST(GradScaler, CpuLoopEqualsHandComputed) {
  Script s(R"(
import torch
import torch.nn as nn
torch.manual_seed(0)
m1 = nn.Linear(4, 3)
m2 = nn.Linear(4, 3)
m2.load_state_dict(m1.state_dict())
x = torch.randn(8, 4)
t = torch.randn(8, 3)
opt = torch.optim.SGD(m1.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
scales = []
for step in range(5):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = ((m1(x).float() - t) ** 2).mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    scales.append(scaler.get_scale())
# By hand.
scale = 1024.0
tracker = 0
hand_scales = []
for step in range(5):
    for p in m2.parameters():
        p.grad = None
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss2 = ((m2(x).float() - t) ** 2).mean()
    (loss2 * torch.tensor(scale)).backward()
    inv = torch.tensor(scale, dtype=torch.float64).reciprocal().float()
    with torch.no_grad():
        for p in m2.parameters():
            p.grad.mul_(inv)
            p.add_(p.grad, alpha=-0.1)
    tracker += 1
    if tracker == 2:
        scale *= 2.0
        tracker = 0
    hand_scales.append(scale)
diff = max((a - b).abs().max().item() for a, b in zip(m1.parameters(), m2.parameters()))
state = scaler.state_dict()
s2 = torch.amp.GradScaler("cpu")
s2.load_state_dict(state)
loaded = [s2.get_scale(), s2.get_growth_factor(), s2.get_backoff_factor(), s2.get_growth_interval(), s2._get_growth_tracker()]
)");
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.values("diff"), std::vector<double>{0.0});
  EXPECT_EQ(s.values("scales"), (std::vector<double>{1024, 2048, 2048, 4096, 4096}));
  EXPECT_EQ(s.values("scales"), s.values("hand_scales"));
  EXPECT_EQ(s.values("loaded"), (std::vector<double>{4096, 2.0, 0.5, 2, 1}));
}

TEST(GradScaler, InfGradientSkipsTheStepAndHalvesTheScale) {
  Script s(R"(
import torch
w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
opt = torch.optim.SGD([w], lr=0.5)
scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
loss = (w * torch.tensor([float("inf"), 1.0])).sum()
scaler.scale(loss).backward()
ret, found = scaler.step(opt, return_found_inf=True)
scaler.update()
after_inf = w.detach().tolist()
scale_inf = scaler.get_scale()
opt.zero_grad()
scaler.scale((w * torch.tensor([1.0, 3.0])).sum()).backward()
scaler.unscale_(opt)
unscaled = w.grad.tolist()
try:
    scaler.unscale_(opt)
except RuntimeError as e:
    twice = str(e)
scaler.step(opt)
scaler.update()
after_ok = w.detach().tolist()
disabled = torch.amp.GradScaler("cpu", enabled=False)
plain = disabled.scale(loss) is loss
)");
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.values("after_inf"), (std::vector<double>{1.0, 2.0}));  // the step was skipped
  EXPECT_EQ(s.values("found"), std::vector<double>{1.0});
  EXPECT_EQ(s.values("scale_inf"), std::vector<double>{4.0});
  EXPECT_EQ(s.values("unscaled"), (std::vector<double>{1.0, 3.0}));
  EXPECT_EQ(py::as<py::StrObj>(s.var("twice"))->v, "unscale_() has already been called on this optimizer since the last update().");
  EXPECT_EQ(s.values("after_ok"), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(s.values("plain"), std::vector<double>{1.0});
}

TEST(GradScaler, DeprecatedAliasesAndNoCuda) {
  Script s(R"(
import warnings
import torch
from torch.cuda.amp import autocast, GradScaler
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    scaler = GradScaler()
    cpu_scaler = torch.cpu.amp.GradScaler()
    with autocast():
        enabled_inside = torch.is_autocast_enabled("cuda")
records = [(m.category.__name__, str(m.message)) for m in w]
cuda = torch.cuda.is_available()
enabled = scaler.is_enabled()
cpu_enabled = cpu_scaler.is_enabled()
)");
  ASSERT_EQ(s.error, "");
  if (s.values("cuda") == std::vector<double>{1.0}) GTEST_SKIP() << "a CUDA device is present: GradScaler('cuda') stays enabled";
  std::vector<std::string> got;
  for (auto& r : s.in->iterate(s.var("records"))) {
    std::vector<std::string> pair;
    for (auto& x : s.in->iterate(r)) pair.push_back(py::as<py::StrObj>(x)->v);
    got.push_back(pair.at(0) + ": " + pair.at(1));
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', "
                     "args...)` instead.",
                     "UserWarning: torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                     "FutureWarning: `torch.cpu.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cpu', "
                     "args...)` instead.",
                     "FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', "
                     "args...)` instead.",
                 }));
  EXPECT_EQ(s.values("enabled"), std::vector<double>{0.0});
  EXPECT_EQ(s.values("cpu_enabled"), std::vector<double>{1.0});
  EXPECT_EQ(s.values("enabled_inside"), std::vector<double>{0.0});
}

}  // namespace
}  // namespace kiln::nntest
