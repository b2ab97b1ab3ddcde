# Found by tests/fuzz (tensor_fuzzer): a requested view shape whose product overflows int64 was
# multiplied with signed overflow (undefined behaviour) before being compared with the size.
import torch

x = torch.zeros(4)
print(torch.zeros(0).view(0, 2**62, 4).shape)
x.view(2, 2, 2**62, 2**62)
