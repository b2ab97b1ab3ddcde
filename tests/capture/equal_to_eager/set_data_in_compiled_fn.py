# x.data = y inside a compiled function: x stands for y's values in the rest of the trace (they
# share storage), a later y.data = ... does not change what x holds, and both stores are made
# on the program's tensors after the graph.
import torch


@torch.compile(fullgraph=True)
def swap(x, y):
    x.data = y
    y.data = torch.zeros([0])
    return x * 2


@torch.compile
def refill(buf, src):
    buf.data = src + 1
    return buf.sum()


x = torch.arange(6.0)
y = torch.linspace(-1.0, 1.0, 6)
print(swap(x, y), x, y.shape)
b = torch.zeros(3)
print(refill(b, torch.arange(3.0)), b)
print(refill(b, torch.ones(3)), b)
