# mode="max-autotune" against the default mode on matrix-product-heavy frames (issue 18), one
# script that runs unchanged under Kiln (`kiln run`) and under PyTorch (`python3`): per workload
# and mode, the median time of one call of the compiled module (inference: no_grad) and of one
# training step (forward, cross-entropy, backward; the products of the compiled backward are tuned
# too), after warm-up calls that compile (and autotune). One line per result:
#   RESULT <workload> <default|max-autotune> <median_ms>
# A workload that cannot run prints `RESULT <workload> <mode> error <message>`.
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 3
REPEAT = 25


def mlp():
    # The seeds' SimpleModel: 1024-1024-1024-10.
    return nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))


def wide():
    # A transformer block's feed-forward at d 256: 256 -> 1024 -> 256, then a classifier.
    return nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 256), nn.ReLU(), nn.Linear(256, 10))


def median_ms(fn):
    for _ in range(WARMUP):
        fn()
    times = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
    times.sort()
    return times[len(times) // 2]


def workloads():
    return [
        ('MLP_infer_batch_16', mlp, 16, 1024, False),
        ('MLP_infer_batch_64', mlp, 64, 1024, False),
        ('MLP_infer_batch_512', mlp, 512, 1024, False),
        ('FFN_infer_tokens_512', wide, 512, 256, False),
        ('MLP_train_batch_64', mlp, 64, 1024, True),
        ('FFN_train_tokens_512', wide, 512, 256, True),
    ]


def main():
    for name, make, batch, width, train in workloads():
        for mode in ('default', 'max-autotune'):
            try:
                torch.manual_seed(0)
                model = make()
                x = torch.randn(batch, width)
                y = torch.randint(0, 10, (batch,))
                # Static: each workload its own entry (automatic dynamic shapes would make a recompile at
                # a new batch symbolic, and products over symbols are not tuned).
                run = torch.compile(model, mode=mode, dynamic=False)
                if train:
                    def step():
                        model.zero_grad(set_to_none=True)
                        F.cross_entropy(run(x), y).backward()
                else:
                    def step():
                        with torch.no_grad():
                            run(x)
                print('RESULT', name, mode, median_ms(step))
            except Exception as e:
                print('RESULT', name, mode, 'error', str(e).split('\n')[0][:120])


main()
