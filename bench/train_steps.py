# Training steps on the CPU (issue 18), one script that runs unchanged under Kiln (`kiln run`)
# and under PyTorch (`python3`): per model, the median time of a whole step -- zero_grad, the
# forward, cross-entropy, backward, SGD step -- eagerly and with the model torch.compile'd
# (the compiled forward and its compiled backward; the optimizer eager in both).
# One line per result, read by tools/cpu_train_bench.py:
#   RESULT <model> <eager|compiled> <median_ms>
# A model that cannot run prints `RESULT <model> <mode> error <message>`.
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 3
REPEAT = 15


class MLP(nn.Module):
    # The seeds' SimpleModel: 1024-1024-1024-10.
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))

    def forward(self, x):
        return self.layers(x)


class CNN(nn.Module):
    # The seeds' CNN: conv-bn-relu twice, then a linear layer over 128x32x32.
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(64)
        self.conv2 = nn.Conv2d(64, 128, kernel_size=3, padding=1)
        self.bn2 = nn.BatchNorm2d(128)
        self.fc = nn.Linear(128 * 32 * 32, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        return self.fc(x.view(x.size(0), -1))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d)
        self.ln2 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, 4 * d)
        self.ff2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q = q.reshape(b, t, h, d // h).transpose(1, 2)
        k = k.reshape(b, t, h, d // h).transpose(1, 2)
        v = v.reshape(b, t, h, d // h).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-2, -1) / ((d // h) ** 0.5), -1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.ff2(F.relu(self.ff1(self.ln2(x))))


class MiniTransformer(nn.Module):
    # The seeds' MiniTransformer shape: blocks of attention and MLP, a classifier on the mean.
    def __init__(self, d=128, layers=2, heads=4, classes=10):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x).mean(1))


def median_ms(step):
    for _ in range(WARMUP):
        step()
    times = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1000.0)
    times.sort()
    return times[len(times) // 2]


def workloads():
    torch.manual_seed(0)
    return [
        ('MLP_batch_64', MLP, torch.randn(64, 1024), torch.randint(0, 10, (64,))),
        ('CNN_batch_8', CNN, torch.randn(8, 3, 32, 32), torch.randint(0, 10, (8,))),
        ('MiniTransformer_8x64', MiniTransformer, torch.randn(8, 64, 128), torch.randint(0, 10, (8,))),
    ]


def main():
    for name, make, x, y in workloads():
        for mode in ('eager', 'compiled'):
            try:
                torch.manual_seed(0)
                model = make()
                opt = torch.optim.SGD(model.parameters(), lr=0.01)
                run = torch.compile(model) if mode == 'compiled' else model

                def step():
                    opt.zero_grad(set_to_none=True)
                    loss = F.cross_entropy(run(x), y)
                    loss.backward()
                    opt.step()

                print('RESULT', name, mode, median_ms(step))
            except Exception as e:
                print('RESULT', name, mode, 'error', str(e).split('\n')[0][:120])


main()
