# Found by tests/fuzz (tensor_fuzzer): batch_norm checked the weight and running_mean against the
# channels but not the bias or running_var (a training step wrote running_var out of bounds), and
# read channel dim 1 of a 1-D input.
import torch
import torch.nn.functional as F

x = torch.randn(4, 3)
for kw in (dict(running_var=torch.ones(1), training=True), dict(bias=torch.zeros(2)), dict(running_var=torch.tensor(1.0))):
    args = dict(running_mean=torch.zeros(3), running_var=torch.ones(3))
    args.update(kw)
    try:
        F.batch_norm(x, **args)
    except RuntimeError as e:
        print(e)
F.batch_norm(torch.ones(3), torch.zeros(3), torch.ones(3))
