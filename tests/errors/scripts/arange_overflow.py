# Found by tests/fuzz (tensor_fuzzer): an arange wider than int64 (or to an infinity) converted its
# length to int64 with undefined behaviour. PyTorch refuses both.
import torch

try:
    torch.arange(0, float("inf"))
except RuntimeError as e:
    print(e)
torch.arange(-1e308, 1e308, 1.0)
