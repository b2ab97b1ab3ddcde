# case: compiled forward constructs and returns a dataclass output (logits, optional loss, hidden); called with targets and then with targets=None (recompile on None), the caller reads fields and isinstance
# category: python
# from: idiom: dataclass model outputs
import dataclasses
import math
import typing

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@dataclasses.dataclass
class LMOutput:
    logits: torch.Tensor
    loss: typing.Optional[torch.Tensor] = None
    hidden: typing.Optional[torch.Tensor] = None


W1 = det((6, 10), seed=1) / math.sqrt(6)
W2 = det((10, 5), seed=2) / math.sqrt(10)


@torch.compile
def forward(x, targets=None):
    h = torch.tanh(x @ W1)
    logits = h @ W2
    loss = None
    if targets is not None:
        loss = F.cross_entropy(logits, targets)
    return LMOutput(logits=logits, loss=loss, hidden=h)


x = det((4, 6), seed=3)
o1 = forward(x, torch.tensor([0, 4, 2, 1]))
out = o1.logits
out_1 = o1.loss
out_2 = o1.hidden
o2 = forward(det((4, 6), seed=4))
out_3 = o2.loss is None
out_4 = isinstance(o2, LMOutput)
out_5 = o2.logits
