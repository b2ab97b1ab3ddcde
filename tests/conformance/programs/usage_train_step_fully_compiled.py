# case: whole training iteration compiled (zero_grad, model(**batch), cross_entropy, backward, Adam step on a requires_grad input tensor): breaks at backward; losses and the optimized tensor after 3 iterations
# category: training
# from: test/dynamo/test_optimizers.py::End2EndTests::test_optimizing_over_tensor_with_requires_grad
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Net(nn.Module):
    def forward(self, x, y):
        z = torch.bmm(x, y)
        return torch.flatten(z, 1)


def train_iter(batch, model, optimizer, target):
    optimizer.zero_grad()
    logits = model(**batch)
    loss = F.cross_entropy(logits, target)
    loss.backward()
    optimizer.step()
    return loss


net = Net()
input1 = det((2, 1, 4), seed=1)
input2 = det((2, 4, 8), seed=2).requires_grad_()
optimizer = torch.optim.Adam([input2], lr=0.1)
target = torch.tensor([0, 7])
step_fn = torch.compile(train_iter)
batch = {"x": input1, "y": input2}
losses = []
for _ in range(3):
    losses.append(step_fn(batch, net, optimizer, target).item())

out = losses
out_1 = input2.detach().clone()
