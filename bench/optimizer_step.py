# A compiled optimizer step against Kiln's eager step (issue 18): SGD, SGD with Nesterov momentum
# and weight decay, Adam and AdamW over a 256-wide MLP (2 x Linear(256, 256)) and the seeds' MLP
# (1024-1024-1024-10), gradients set. Eager is `opt.step()` as the program runs it (the prelude's
# Python loop, one eager kernel per op); compiled is a torch.compile'd function calling it, after
# its warm-up calls (the first makes the state, the second recompiles once the state exists).
# `kiln run bench/optimizer_step.py` prints one line per case; figures in docs/perf.md.
import time
import torch
torch.manual_seed(0)

def model(kind):
    if kind == "mlp1024":
        return torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10))
    return torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256))

def bench(kind, make, name, reps):
    m = model(kind)
    for p in m.parameters():
        p.grad = torch.randn(p.shape)
    opt = make(m.parameters())
    opt.step()  # state made
    t0 = time.perf_counter()
    for _ in range(reps):
        opt.step()
    eager = (time.perf_counter() - t0) / reps * 1000
    torch._dynamo.reset()  # each configuration its own frame cache (the recompile limit)
    @torch.compile
    def step():
        opt.step()
    for _ in range(3):
        step()
    t0 = time.perf_counter()
    for _ in range(reps):
        step()
    comp = (time.perf_counter() - t0) / reps * 1000
    print(f"{kind:8s} {name:14s} eager {eager:8.3f} ms  compiled {comp:8.3f} ms  x{eager / comp:5.1f}")

for kind, reps in (("mlp256", 50), ("mlp1024", 20)):
    bench(kind, lambda ps: torch.optim.SGD(ps, lr=0.01), "sgd", reps)
    bench(kind, lambda ps: torch.optim.SGD(ps, lr=0.01, momentum=0.9, nesterov=True, weight_decay=1e-4), "sgd_nesterov", reps)
    bench(kind, lambda ps: torch.optim.Adam(ps, lr=1e-3), "adam", reps)
    bench(kind, lambda ps: torch.optim.AdamW(ps, lr=1e-3), "adamw", reps)
