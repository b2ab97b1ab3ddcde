# case: switch-style top-1 routing with expert capacity ceil(N/E) computed by integer floor division of the token count; slot positions via cumsum over one_hot, overflow tokens pass through unchanged; 8 then 12 tokens (recompile, capacity returned as an int)
# category: model
# from: idiom: MoE capacity-limited dispatch with one_hot and cumsum
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def switch_dispatch(x, router_w, expert_w):
    N = x.shape[0]
    E = router_w.shape[1]
    capacity = (N + E - 1) // E
    probs = F.softmax(x @ router_w, dim=-1)
    gate, sel = probs.max(dim=-1)
    onehot = F.one_hot(sel, num_classes=E)
    slot = ((torch.cumsum(onehot, dim=0) - 1) * onehot).sum(dim=-1)
    keep = slot < capacity
    expert_out = torch.einsum("nd,ndf->nf", x, expert_w[sel])
    y = torch.where(keep[:, None], expert_out * gate[:, None], x)
    return y, keep.to(torch.int64), slot, capacity


router_w = det((6, 3), seed=1)
expert_w = det((3, 6, 6), seed=2) / math.sqrt(6)

y, keep, slot, cap = switch_dispatch(det((8, 6), seed=3), router_w, expert_w)
out = y
out_1 = keep
out_2 = slot
out_3 = cap
y2, keep2, slot2, cap2 = switch_dispatch(det((12, 6), seed=4), router_w, expert_w)
out_4 = y2
out_5 = [keep2, slot2, cap2]
