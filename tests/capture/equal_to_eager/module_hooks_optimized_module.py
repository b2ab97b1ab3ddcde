# torch.compile(module) returns an OptimizedModule whose call runs the original module's
# forward pre-hooks and forward hooks around the compiled forward (PyTorch compiles the
# module's _call_impl): a hook that scales the output must scale the compiled output too.
# Hooks registered after compiling, removed hooks, with_kwargs hooks, and a forward with a
# graph break are covered, as is module.compile().
import torch
import torch._dynamo


class Lin(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.arange(4.0))

    def forward(self, x, scale=1.0):
        return (x * self.w).sum() * scale + 1


class Broken(torch.nn.Module):
    def forward(self, x):
        y = x + 1
        torch._dynamo.graph_break()
        return y * 2


def times10(mod, args, out):
    return out * 10


def add_one_to_input(mod, args):
    return (args[0] + 1,)


def kw_pre(mod, args, kwargs):
    return args, {"scale": 3.0}


def kw_post(mod, args, kwargs, out):
    return out + kwargs.get("scale", 0.0)


x = torch.ones(4)

m = Lin()
h = m.register_forward_hook(times10)
opt = torch.compile(m)
print(m(x).item(), opt(x).item())

p = m.register_forward_pre_hook(add_one_to_input)
print(m(x).item(), opt(x).item())

h.remove()
print(m(x).item(), opt(x).item())
p.remove()
print(m(x).item(), opt(x).item())

k1 = m.register_forward_pre_hook(kw_pre, with_kwargs=True)
k2 = m.register_forward_hook(kw_post, with_kwargs=True)
print(m(x, scale=2.0).item(), opt(x, scale=2.0).item())
k1.remove()
k2.remove()

calls = []
b = Broken()
b.register_forward_pre_hook(lambda mod, args: calls.append("pre"))
b.register_forward_hook(lambda mod, args, out: out - 100)
ob = torch.compile(b)
print(b(x).tolist(), ob(x).tolist(), calls)

m2 = Lin()
m2.register_forward_hook(times10)
m2.compile()
print(m2(x).item())
