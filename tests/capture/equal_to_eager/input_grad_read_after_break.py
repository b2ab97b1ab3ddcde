# x.grad read by compiled code after a backward() that ran eagerly at a graph break: the
# resume function reads the gradient the program's tensor has now (a graph input x.grad),
# never the fake tensor's missing one; inside nested no_grad / enable_grad blocks too.
import torch


def f(a, b):
    prod = a * b
    prod.sum().backward()
    return torch.sigmoid(a.grad + b)


def g(x):
    with torch.no_grad():
        with torch.enable_grad():
            y = torch.sin(x)
            torch._dynamo.graph_break()
            torch.sigmoid(y).sum().backward()
            return x.grad


a = torch.linspace(-1.0, 1.0, 4).requires_grad_()
b = torch.linspace(0.5, 2.0, 4).requires_grad_()
cf = torch.compile(f)
print(cf(a, b).detach(), a.grad, b.grad)
x = torch.linspace(-2.0, 2.0, 5).requires_grad_()
cg = torch.compile(g)
with torch.no_grad():
    g1 = cg(x).clone()
    g2 = cg(x).clone()  # accumulates
print(g1, g2, x.grad)
