import torch, torch.nn as nn, torch.nn.functional as F, math
def fmt(name, t):
    vals = t.detach().reshape(-1).tolist() if isinstance(t, torch.Tensor) else list(t)
    print(f'const std::vector<double> {name} = {{' + ", ".join(repr(float(v)) for v in vals) + '};')
torch.manual_seed(0); fmt("kRand5", torch.rand(5))
torch.manual_seed(0); fmt("kRandn5", torch.randn(5))
torch.manual_seed(0); fmt("kRandn20", torch.randn(20))
torch.manual_seed(0); fmt("kRandDouble3", torch.rand(3, dtype=torch.float64))
torch.manual_seed(0); fmt("kRandint5", torch.randint(0, 10, (5,)))
torch.manual_seed(1); fmt("kRandnDouble5", torch.randn(5, dtype=torch.float64))
torch.manual_seed(3); fmt("kUniformRange", torch.empty(6).uniform_(-2.0, 3.0))
torch.manual_seed(0); l = nn.Linear(4, 3); fmt("kLinearW", l.weight); fmt("kLinearB", l.bias)
torch.manual_seed(0); c = nn.Conv2d(2, 3, 3); fmt("kConvW", c.weight); fmt("kConvB", c.bias)
torch.manual_seed(0); e = nn.Embedding(5, 4, padding_idx=1); fmt("kEmbW", e.weight)
torch.manual_seed(0); b = torch.empty(40).bernoulli_(0.3); fmt("kBern", b)
# gradients of a small MLP + cross entropy, deterministic params
def det(shape, seed=0):
    n = math.prod(shape); k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed).reshape(shape)
m = nn.Sequential(nn.Linear(5, 7), nn.GELU(), nn.LayerNorm(7), nn.Linear(7, 3))
with torch.no_grad():
    for i, p in enumerate(m.parameters()): p.copy_(det(tuple(p.shape), i) * 0.5)
x = det((4, 5), 9); y = torch.tensor([0, 2, 1, 2])
loss = F.cross_entropy(m(x), y); loss.backward()
fmt("kMlpLoss", [loss.item()])
for i, p in enumerate(m.parameters()): fmt(f"kMlpGrad{i}", p.grad)
# SGD / Adam
def opt_run(make):
    w = det((3, 2), 4).clone().requires_grad_(True); b = det((2,), 5).clone().requires_grad_(True)
    opt = make([w, b])
    for s in range(3):
        opt.zero_grad()
        loss = ((det((5, 3), 6 + s) @ w + b).tanh() ** 2).sum()
        loss.backward(); opt.step()
    return torch.cat([w.detach().reshape(-1), b.detach()])
fmt("kSgdPlain", opt_run(lambda p: torch.optim.SGD(p, lr=0.1)))
fmt("kSgdMomentum", opt_run(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)))
fmt("kSgdNesterov", opt_run(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True)))
fmt("kAdam", opt_run(lambda p: torch.optim.Adam(p, lr=0.01)))
fmt("kAdamWd", opt_run(lambda p: torch.optim.Adam(p, lr=0.02, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True)))
fmt("kAdamW", opt_run(lambda p: torch.optim.AdamW(p, lr=0.02)))
# batchnorm train forward + running stats, layers forward
bn = nn.BatchNorm2d(3); xb = det((2, 3, 2, 2), 11)
out = bn(xb); fmt("kBnOut", out); fmt("kBnMean", bn.running_mean); fmt("kBnVar", bn.running_var)
bn.eval(); fmt("kBnEval", bn(xb))
