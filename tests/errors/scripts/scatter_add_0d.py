# Found by tests/fuzz (tensor_fuzzer): scatter_add into a 0-dim tensor read the size of a
# dimension it does not have (out of bounds). PyTorch treats it as one element along dim 0.
import torch

x = torch.tensor(5)
x.scatter_add_(0, torch.tensor(0), torch.tensor(3))
print(x)
x.scatter_add_(0, torch.tensor(1), torch.tensor(3))
