# difffuzz seed 12330: two softmaxes over the same dim fused in one kernel, the first one also
# an output. Its exp was stored into that output buffer and read back (storeOnceReloadLater),
# but the second softmax's passes read it back after the first one's final values overwrote
# it: the second result was wrong by up to 0.008 (--verify blamed decompose, the pass that
# exposes softmax's parts to fusion).
import torch


def det(shape, seed):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=torch.float32) * 0.37 + seed).reshape(shape)


@torch.compile
def f(t1, x):
    t2 = torch.stack([t1.sigmoid(), x.sigmoid()])
    t3 = torch.softmax(t2, dim=-3)
    t6 = t2[:, 1:].softmax(1)
    t7 = t6.softmax(-3)
    return t7, t3, t6


out = f(det((6, 5, 4), 3), det((6, 5, 4), 8))
