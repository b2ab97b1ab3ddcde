# case: small CNN (conv-bn-relu, max_pool2d, conv-relu, adaptive_avg_pool2d to 2x2, flatten, linear) in eval mode on 16x16, 12x20 and 20x12 images: the second call recompiles with dynamic H/W, the third reuses it
# category: dynamic
# from: idiom: small CNN with pooling and an adaptive pooling head
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def init_params(module, offset=0):
    """Overwrite every parameter with deterministic values."""
    with torch.no_grad():
        for i, (name, p) in enumerate(module.named_parameters()):
            v = det(tuple(p.shape), seed=i + offset)
            if p.dim() > 1:
                p.copy_(v / math.sqrt(p[0].numel()))
            elif name.endswith("weight"):
                p.copy_(1.0 + 0.1 * v)
            else:
                p.copy_(0.1 * v)


class SmallCNN(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d((2, 2)),
        )
        self.fc = nn.Linear(16 * 2 * 2, n_classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


model = SmallCNN()
init_params(model)
with torch.no_grad():
    model.features[1].running_mean.copy_(0.05 * det((8,), seed=50))
    model.features[1].running_var.copy_(1.0 + 0.1 * det((8,), seed=51) ** 2)
model.eval()
compiled = torch.compile(model)

with torch.no_grad():
    out = compiled(det((2, 3, 16, 16), seed=1))
    out_1 = compiled(det((2, 3, 12, 20), seed=2))
    out_2 = compiled(det((2, 3, 20, 12), seed=3))
