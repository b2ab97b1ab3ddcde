# Attribute stores a compiled function makes survive it: a store whose user __setattr__ breaks
# the graph runs eagerly at the break (STORE_ATTR), attributes set on an input tensor are
# replayed on it, and attributes set on a tensor the graph makes are set on its output.
import torch


class Recorder:
    def __setattr__(self, name, value):
        torch._dynamo.graph_break()
        object.__setattr__(self, name, value * 2)


@torch.compile
def stash(rec, x):
    y = x.sin()
    rec.value = y + 1
    return y * 3


@torch.compile(fullgraph=True)
def tag(x, t):
    x.tag_value = t
    y = x + 1
    y.doubled = t * 2
    return y


r1 = Recorder()
print(stash(r1, torch.arange(4.0)), r1.value)
r2 = Recorder()
print(stash(r2, torch.arange(4.0) + 1), r2.value)
x = torch.arange(3.0)
y = tag(x, 7)
print(y, x.tag_value, y.doubled)
y = tag(x, 9)
print(y, x.tag_value, y.doubled)
