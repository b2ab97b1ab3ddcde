# case: training step that logs loss.item() into a global list inside the compiled function (graph break at .item()); NLL loss of log_softmax is returned, backward accumulates into a global weight over two calls, the log holds two floats
# category: graph_break
# from: idiom: nll_loss training step with Python-side loss logging
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


LOSS_LOG = []
W = (det((6, 4), seed=2) / math.sqrt(6)).requires_grad_()


@torch.compile
def train_step(x, target):
    logp = F.log_softmax(x @ W, dim=-1)
    loss = F.nll_loss(logp, target)
    LOSS_LOG.append(loss.item())
    return loss


loss1 = train_step(det((5, 6), seed=3), torch.tensor([0, 1, 2, 3, 1]))
loss1.backward()
loss2 = train_step(det((5, 6), seed=4), torch.tensor([3, 3, 0, 2, 1]))
loss2.backward()
out = loss1.detach()
out_1 = loss2.detach()
out_2 = LOSS_LOG
out_3 = W.grad.clone()
