# case: functional KV cache: each decode step concatenates the new key/value onto past tensors passed in and returned (past length 2, 3, 4, 5); the second step recompiles with a dynamic past length, later steps reuse it
# category: dynamic
# from: idiom: KV cache (past_key_values) grown with torch.cat across decode steps
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


WQ = det((16, 16), seed=11) / 4.0
WK = det((16, 16), seed=12) / 4.0
WV = det((16, 16), seed=13) / 4.0


@torch.compile
def decode_step(x, past_k, past_v):
    q = x @ WQ
    k_all = torch.cat([past_k, x @ WK], dim=1)
    v_all = torch.cat([past_v, x @ WV], dim=1)
    att = F.softmax(q @ k_all.transpose(-2, -1) / 4.0, dim=-1)
    return att @ v_all, k_all, v_all


past_k = det((1, 2, 16), seed=1)
past_v = det((1, 2, 16), seed=2)
ys = []
for step in range(4):
    y, past_k, past_v = decode_step(det((1, 1, 16), seed=30 + step), past_k, past_v)
    ys.append(y)

out = ys[0]
out_1 = ys[1]
out_2 = ys[2]
out_3 = ys[3]
out_4 = list(past_k.shape)
out_5 = past_v
