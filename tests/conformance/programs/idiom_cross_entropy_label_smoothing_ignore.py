# case: F.cross_entropy with label_smoothing=0.1 and ignore_index=-100 entries, with mean, sum and none reductions in one compiled function, then backward of the mean loss to the logits
# category: training
# from: idiom: cross_entropy loss with label smoothing and ignored targets
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
def smoothed_losses(logits, targets):
    mean_loss = F.cross_entropy(logits, targets, ignore_index=-100, label_smoothing=0.1)
    sum_loss = F.cross_entropy(logits, targets, ignore_index=-100, label_smoothing=0.1, reduction="sum")
    per_token = F.cross_entropy(logits, targets, ignore_index=-100, label_smoothing=0.1, reduction="none")
    return mean_loss, sum_loss, per_token


logits = det((6, 5), seed=1, scale=2.0).requires_grad_()
targets = torch.tensor([0, 3, -100, 4, 1, -100])
m, s, p = smoothed_losses(logits, targets)
m.backward()
out = m.detach()
out_1 = s.detach()
out_2 = p.detach()
out_3 = logits.grad.clone()
