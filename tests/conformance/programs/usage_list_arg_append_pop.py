# case: a list argument mutated inside compiled code (pop, two appends): the caller's list is updated after the call; a longer list on the second call recompiles (list length guard)
# category: python
# from: idiom: mutation of a list passed to a compiled function
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def push_pop(stack, x):
    top = stack.pop()
    stack.append(top * x)
    stack.append(x + 1)
    return len(stack), sum(stack)


s1 = [det((3,), seed=1), det((3,), seed=2)]
x = det((3,), seed=3)
out = push_pop(s1, x)
out_1 = len(s1)
out_2 = s1[1].clone()
s2 = [det((3,), seed=4), det((3,), seed=5), det((3,), seed=6)]
out_3 = push_pop(s2, x)
out_4 = [len(s2), s2[-1].clone()]
