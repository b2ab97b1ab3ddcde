// torch.optim: SGD (momentum, dampening, weight decay, Nesterov) and Adam/AdamW (bias
// correction, weight decay, amsgrad) steps against PyTorch's numbers.
#include "tests/nn/nn_test_util.h"

namespace kiln::nntest {
namespace {
#include "tests/nn/reference_values.inc"

std::string script(const std::string& make) {
  return R"(
import math
import torch

def det(shape, seed=0):
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed).reshape(shape)

w = det((3, 2), 4).clone().requires_grad_(True)
b = det((2,), 5).clone().requires_grad_(True)
opt = )" +
         make + R"(
for s in range(3):
    opt.zero_grad()
    loss = ((det((5, 3), 6 + s) @ w + b).tanh() ** 2).sum()
    loss.backward()
    opt.step()
out = torch.cat([w.detach().reshape(-1), b.detach()])
)";
}

TEST(Optim, MatchesPyTorch) {
  struct Case {
    const char* make;
    const std::vector<double>* want;
  };
  const Case cases[] = {
      {"torch.optim.SGD([w, b], lr=0.1)", &kSgdPlain},
      {"torch.optim.SGD([w, b], lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)", &kSgdMomentum},
      {"torch.optim.SGD([w, b], lr=0.05, momentum=0.8, nesterov=True)", &kSgdNesterov},
      {"torch.optim.Adam([w, b], lr=0.01)", &kAdam},
      {"torch.optim.Adam([w, b], lr=0.02, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True)", &kAdamWd},
      {"torch.optim.AdamW([w, b], lr=0.02)", &kAdamW},
  };
  for (const auto& c : cases) {
    Script r(script(c.make));
    ASSERT_EQ(r.error, "") << c.make;
    SCOPED_TRACE(c.make);
    expectNear(r.values("out"), *c.want, 1e-5, 1e-6);
  }
}

TEST(Optim, ParamGroupsAndErrors) {
  Script r(R"(
import torch
a = torch.ones(2, requires_grad=True)
b = torch.ones(2, requires_grad=True)
opt = torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
(a.sum() + b.sum()).backward()
opt.step()
lrs = [g["lr"] for g in opt.param_groups]
opt.zero_grad()
none = a.grad is None
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("a"), {0.9, 0.9});
  expectNear(r.values("b"), {0.5, 0.5});
  expectNear(r.values("lrs"), {0.1, 0.5});
  expectNear(r.values("none"), {1});
  EXPECT_EQ(Script("import torch\ntorch.optim.SGD([], lr=0.1)").error, "ValueError: optimizer got an empty parameter list");
  EXPECT_EQ(Script("import torch\ntorch.optim.Adam([torch.ones(1, requires_grad=True)], lr=-1)").error,
            "ValueError: Invalid learning rate: -1");
}

TEST(Optim, LrSchedulersAndGradClipping) {
  Script r(R"(
import torch
p = torch.ones(1, requires_grad=True)
def lrs(make, n):
    opt = torch.optim.SGD([p], lr=0.1)
    s = make(opt)
    out = [s.get_last_lr()[0]]
    for _ in range(n):
        opt.step()
        s.step()
        out.append(s.get_last_lr()[0])
    return out
sched = torch.optim.lr_scheduler
step = lrs(lambda o: sched.StepLR(o, step_size=2, gamma=0.5), 4)
expo = lrs(lambda o: sched.ExponentialLR(o, gamma=0.5), 2)
lam = lrs(lambda o: sched.LambdaLR(o, lambda e: 1.0 / (e + 1)), 2)
cos = lrs(lambda o: sched.CosineAnnealingLR(o, T_max=2), 2)
a = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
a.grad = torch.tensor([3.0, 0.0])
b.grad = torch.tensor([4.0])
total = torch.nn.utils.clip_grad_norm_([a, b], 1.0)
clipped = torch.cat([a.grad, b.grad])
a.grad = torch.tensor([3.0, -4.0])
torch.nn.utils.clip_grad_value_([a], 2)
valued = a.grad
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("step"), {0.1, 0.1, 0.05, 0.05, 0.025});
  expectNear(r.values("expo"), {0.1, 0.05, 0.025});
  expectNear(r.values("lam"), {0.1, 0.05, 0.1 / 3});
  expectNear(r.values("cos"), {0.1, 0.05, 0.0});
  expectNear(r.values("total"), {5.0});
  expectNear(r.values("clipped"), {0.6, 0.0, 0.8});
  expectNear(r.values("valued"), {2.0, -2.0});
}

}  // namespace
}  // namespace kiln::nntest
