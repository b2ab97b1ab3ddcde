// nn layers: forward values, containers, module utilities (state_dict, named_modules,
// zero_grad, to/double, apply) and reprs like PyTorch's.
#include "tests/nn/nn_test_util.h"

namespace kiln::nntest {
namespace {
#include "tests/nn/reference_values.inc"

const char* kDet = R"(
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

def det(shape, seed=0):
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed).reshape(shape)
)";

TEST(Layers, BatchNormTrainAndEval) {
  Script r(std::string(kDet) + R"(
bn = nn.BatchNorm2d(3)
xb = det((2, 3, 2, 2), 11)
out = bn(xb)
mean = bn.running_mean.clone()
var = bn.running_var.clone()
count = bn.num_batches_tracked.item()
bn.eval()
ev = bn(xb)
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("out"), kBnOut, 1e-5, 1e-6);
  expectNear(r.values("mean"), kBnMean, 1e-5, 1e-7);
  expectNear(r.values("var"), kBnVar, 1e-5, 1e-7);
  expectNear(r.values("count"), {1});
  expectNear(r.values("ev"), kBnEval, 1e-5, 1e-6);
}

TEST(Layers, ForwardValues) {
  Script r(std::string(kDet) + R"(
lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]))
    lin.bias.fill_(0.5)
y = lin(torch.tensor([[1.0, 1.0, 1.0], [0.0, 2.0, -1.0]]))
ln = nn.LayerNorm(4)
z = ln(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
emb = nn.Embedding(3, 2)
with torch.no_grad():
    emb.weight.copy_(torch.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]))
e = emb(torch.tensor([2, 0]))
drop = nn.Dropout(0.5)
drop.eval()
dz = drop(torch.ones(4))
acts = [nn.ReLU()(torch.tensor(-1.0)).item(), nn.Tanh()(torch.tensor(0.0)).item(), nn.Sigmoid()(torch.tensor(0.0)).item(),
        nn.SiLU()(torch.tensor(1.0)).item(), nn.GELU()(torch.tensor(1.0)).item(), nn.Identity()(torch.tensor(3.0)).item()]
sm = nn.Softmax(dim=1)(torch.tensor([[0.0, 0.0]]))
fl = nn.Flatten()(torch.zeros(2, 3, 4)).shape
loss = [nn.MSELoss()(torch.tensor([1.0, 3.0]), torch.tensor([0.0, 0.0])).item(),
        nn.CrossEntropyLoss()(torch.tensor([[0.0, 0.0]]), torch.tensor([1])).item(),
        nn.NLLLoss()(torch.tensor([[-1.0, -2.0]]), torch.tensor([1])).item()]
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("y"), {6.5, 0, 1.5, 1.5});
  expectNear(r.values("z"), {-1.3416355, -0.4472118, 0.4472118, 1.3416355}, 1e-5);
  expectNear(r.values("e"), {4, 5, 0, 1});
  expectNear(r.values("dz"), {1, 1, 1, 1});
  expectNear(r.values("acts"), {0, 0, 0.5, 0.7310586, 0.8413447, 3}, 1e-6);
  expectNear(r.values("sm"), {0.5, 0.5});
  expectNear(r.values("fl"), {2, 12});
  expectNear(r.values("loss"), {5, 0.6931472, 2}, 1e-6);
}

// Pooling modules call the F functions with their stored arguments, as torch.nn does.
TEST(Layers, PoolingModules) {
  Script r(std::string(kDet) + R"(
x = torch.arange(2 * 3 * 6 * 6, dtype=torch.float32).reshape(2, 3, 6, 6)
mp = nn.MaxPool2d(2)(x)[0, 0]
ap = nn.AvgPool2d(3, stride=3)(x)[0, 0]
aap = nn.AdaptiveAvgPool2d((1, 1))(x)[1, 2, 0, 0]
shape = torch.tensor(nn.AvgPool2d(3, stride=1, padding=1)(x).shape)
text = repr(nn.MaxPool2d(2))
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("mp"), {7, 9, 11, 19, 21, 23, 31, 33, 35});
  expectNear(r.values("ap"), {7, 10, 25, 28});
  expectNear(r.values("aap"), {197.5});
  expectNear(r.values("shape"), {2, 3, 6, 6});
}

TEST(Layers, ContainersAndModuleUtilities) {
  Script r(R"(
import torch
import torch.nn as nn
seq = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
n = len(seq)
last = seq[-1].out_features
sub = len(seq[1:])
names = [k for k, _ in seq.named_parameters()]
sd = list(seq.state_dict().keys())
mods = [k for k, _ in seq.named_modules()]
ml = nn.ModuleList([nn.Linear(2, 2)])
ml.append(nn.Tanh())
ml.extend([nn.ReLU()])
mln = len(ml)
md = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.ReLU()})
mdk = list(md.keys())
bn = nn.BatchNorm1d(2)
bsd = list(bn.state_dict().keys())
x = torch.ones(1, 4)
seq(x).sum().backward()
had = seq[0].weight.grad is not None
seq.zero_grad()
cleared = seq[0].weight.grad is None
seq.double()
dt = str(seq[0].weight.dtype)
seen = []
seq.apply(lambda m: seen.append(type(m).__name__))
rep = repr(seq)
lrep = repr(nn.Linear(4, 3, bias=False))
crep = repr(nn.Conv2d(1, 4, 3, padding=1))
brep = repr(nn.BatchNorm2d(4))
seq2 = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)).double()
seq2.load_state_dict(seq.state_dict())
same = bool((seq2[0].weight == seq[0].weight).all())
)");
  ASSERT_EQ(r.error, "");
  auto s = [&](const char* v) { return r.in->repr(r.var(v)); };
  expectNear(r.values("n"), {3});
  expectNear(r.values("last"), {2});
  expectNear(r.values("sub"), {2});
  EXPECT_EQ(s("names"), "['0.weight', '0.bias', '2.weight', '2.bias']");
  EXPECT_EQ(s("sd"), "['0.weight', '0.bias', '2.weight', '2.bias']");
  EXPECT_EQ(s("mods"), "['', '0', '1', '2']");
  expectNear(r.values("mln"), {3});
  EXPECT_EQ(s("mdk"), "['a', 'b']");
  EXPECT_EQ(s("bsd"), "['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']");
  expectNear(r.values("had"), {1});
  expectNear(r.values("cleared"), {1});
  EXPECT_EQ(r.in->str(r.var("dt")), "torch.float64");
  EXPECT_EQ(s("seen"), "['Linear', 'ReLU', 'Linear', 'Sequential']");
  EXPECT_EQ(r.in->str(r.var("rep")),
            "Sequential(\n  (0): Linear(in_features=4, out_features=3, bias=True)\n  (1): ReLU()\n"
            "  (2): Linear(in_features=3, out_features=2, bias=True)\n)");
  EXPECT_EQ(r.in->str(r.var("lrep")), "Linear(in_features=4, out_features=3, bias=False)");
  EXPECT_EQ(r.in->str(r.var("crep")), "Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))");
  EXPECT_EQ(r.in->str(r.var("brep")), "BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
  expectNear(r.values("same"), {1});
}

TEST(Layers, ForwardHooks) {
  Script r(std::string(kDet) + R"(
class Aff(nn.Module):
    def forward(self, x, scale=1.0):
        return x * scale + 1
m = Aff()
log = []
def pre(mod, args):
    log.append("pre")
    return (args[0] * 2,)
def pre_kw(mod, args, kwargs):
    log.append("prekw")
    return args, {"scale": 10.0}
def post(mod, args, out):
    log.append("post")
    return out - 1
h1 = m.register_forward_pre_hook(pre)
h2 = m.register_forward_pre_hook(pre_kw, with_kwargs=True, prepend=True)
h3 = m.register_forward_hook(post)
a = m(torch.ones(2))
h2.remove()
h1.remove()
b = m(torch.ones(2))
with h3:
    pass
c = m(torch.ones(2))
ordered = log == ["prekw", "pre", "post", "post"]
bad = m.register_forward_pre_hook(lambda mod, args, kwargs: 3, with_kwargs=True)
try:
    m(torch.ones(2))
except RuntimeError as e:
    message = str(e)
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("a"), {20, 20});
  expectNear(r.values("b"), {1, 1});
  expectNear(r.values("c"), {2, 2});
  expectNear(r.values("ordered"), {1});
  EXPECT_EQ(r.in->str(r.var("message")), "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got 3.");
}

TEST(Layers, LeakyReluRmsNormGruCellMishSmoothL1LabelSmoothing) {
  Script r(std::string(kDet) + R"(
leaky = nn.LeakyReLU(0.2)(torch.tensor([-1.0, 2.0]))
leaky_repr = repr(nn.LeakyReLU(0.2))
x = torch.tensor([[3.0, 4.0]])
rms = nn.RMSNorm(2)(x)
rms_w = F.rms_norm(x, (2,), torch.tensor([2.0, 1.0]))
cell = nn.GRUCell(3, 4)
shapes = list(cell.weight_ih.shape) + list(cell(torch.ones(2, 3)).shape) + list(cell(torch.ones(3)).shape)
with torch.no_grad():
    for p in cell.parameters():
        p.zero_()
gru = cell(torch.ones(1, 3), torch.ones(1, 4))
mish = F.mish(torch.tensor([0.0, 1.0]))
l1_mean = F.smooth_l1_loss(torch.tensor([0.0, 0.0]), torch.tensor([0.5, 3.0]))
l1_sum = nn.SmoothL1Loss(reduction="sum", beta=0.5)(torch.tensor([0.0, 0.0]), torch.tensor([0.5, 3.0]))
ce = F.cross_entropy(torch.tensor([[2.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]]), torch.tensor([1, -100]), label_smoothing=0.2)
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("leaky"), {-0.2, 2.0});
  EXPECT_EQ(r.in->str(r.var("leaky_repr")), "LeakyReLU(negative_slope=0.2)");
  expectNear(r.values("rms"), {0.8485281, 1.1313708});
  expectNear(r.values("rms_w"), {1.6970563, 1.1313708});
  expectNear(r.values("shapes"), {12, 3, 2, 4, 4});
  expectNear(r.values("gru"), {0.5, 0.5, 0.5, 0.5});
  expectNear(r.values("mish"), {0.0, 0.8650984});
  expectNear(r.values("l1_mean"), {1.3125});
  expectNear(r.values("l1_sum"), {3.0});
  expectNear(r.values("ce"), {2.2407606});
}

TEST(Layers, SharedParametersListedOnceAndDelattr) {
  Script r(std::string(kDet) + R"(
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.b = nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight
        self.shared = self.a
m = Tied()
names = repr([n for n, _ in m.named_parameters()])
count = len(list(m.parameters()))
local = repr([n for n, _ in m.a.named_parameters(prefix="x", recurse=False)])
m.extra = nn.Parameter(torch.ones(1))
del m.extra
gone = not hasattr(m, "extra")
)");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.in->str(r.var("names")), "['a.weight', 'a.bias']");
  EXPECT_EQ(r.in->str(r.var("local")), "['x.weight', 'x.bias']");
  expectNear(r.values("count"), {2});
  expectNear(r.values("gone"), {1});
}

}  // namespace
}  // namespace kiln::nntest
