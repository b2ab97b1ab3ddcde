# case: next-token probabilities read a global float temperature and a global bias tensor; rebinding the temperature recompiles (guard on the global), while mutating the bias tensor in place is seen without recompiling; greedy argmax token returned too
# category: guard
# from: idiom: temperature-scaled softmax sampling head
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


TEMPERATURE = 1.0
VOCAB_BIAS = torch.zeros(10)


@torch.compile
def next_token(logits):
    probs = F.softmax((logits + VOCAB_BIAS) / TEMPERATURE, dim=-1)
    return probs, probs.argmax(dim=-1)


logits = det((2, 10), seed=1, scale=2.0)
p, tok = next_token(logits)
out = p
out_1 = tok
TEMPERATURE = 0.7
p, tok = next_token(logits)
out_2 = p
VOCAB_BIAS[3] = 5.0
p, tok = next_token(logits)
out_3 = p
out_4 = tok
