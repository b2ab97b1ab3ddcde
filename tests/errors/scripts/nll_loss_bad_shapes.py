# Found by tests/fuzz (tensor_fuzzer): nll_loss checked neither the weight against the classes nor
# the target against the input's spatial dims, and read past both.
import torch
import torch.nn.functional as F

try:
    F.nll_loss(torch.randn(2, 3, 4), torch.zeros(2, dtype=torch.long))
except RuntimeError as e:
    print(e)
F.nll_loss(torch.randn(2, 3), torch.tensor([0, 2]), weight=torch.ones(1, 3))
