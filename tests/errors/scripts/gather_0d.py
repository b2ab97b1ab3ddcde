# Found by tests/fuzz (tensor_fuzzer): gather from a 0-dim tensor with a 1-dim index read strides
# the tensor does not have (out of bounds). PyTorch treats it as one element along dim 0.
import torch

x = torch.tensor(5.0)
print(x.gather(0, torch.zeros(3, dtype=torch.long)))
x.gather(0, torch.ones(3, dtype=torch.long))
