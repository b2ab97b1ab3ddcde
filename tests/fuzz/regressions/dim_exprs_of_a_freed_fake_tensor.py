# difffuzz seed 28: the size expressions of a traced call's result were kept by the result's address
# only; a freed fake tensor's address reused by a tensor of another rank read a stale entry past
# its end (SIGSEGV in Tracer::propagateShapes). Entries now hold their tensor alive.
import torch
import torch.nn as nn


def det(shape, seed):
    n = 1
    for s in shape:
        n *= s
    return (torch.sin(torch.arange(n, dtype=torch.float32) * 0.37 + seed)).reshape(shape)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.ln = nn.LayerNorm(3)
        self.register_buffer("buf", det((3,), 9) * 0.5)
        with torch.no_grad():
            self.lin.weight.copy_(det((3, 3), 24) * 0.5)
            self.lin.bias.copy_(det((3,), 18) * 0.1)

    def forward(self, x, n, flag=False):
        t1 = self.lin(x)
        t2 = self.ln(x)
        t1[:, :2].sub_(0.25)
        t3 = t2.unsqueeze(0).expand(3, -1, -1)
        parts4 = []
        for u5 in (t3, t3):
            parts4.append(u5 * 0.5)
        t6 = parts4[0] + parts4[1]
        torch._dynamo.graph_break()
        return [t6, t2]



# module M
m = M()
cm = torch.compile(m)
x_1 = det((3, 3), 12)
out = cm(x_1, 2, False)  # first call
out_1 = [x_1.clone()]
out_2 = cm(x_1, 2, False)  # same shapes again
x_2 = det((2, 3), 14)
out_3 = cm(x_2, 2, flag=False)  # another first dimension
out_4 = cm(x_2, 2, True)  # other int/bool arguments
x_3 = det((1, 3), 25)
out_5 = cm(x_3, 2, flag=False)  # a third first dimension
out_6 = m.buf.clone()
out_7 = [x_1, x_2, x_3]
