# Found by tests/fuzz (tensor_fuzzer): narrow of a 0-dim tensor read the size of a dimension it
# does not have (out of bounds), and a huge length overflowed start + length.
import torch

x = torch.arange(6)
try:
    x.narrow(0, 2, 2**62)
except RuntimeError as e:
    print(e)
torch.tensor(5).narrow(0, 0, 0)
