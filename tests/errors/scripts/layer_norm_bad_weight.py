# Found by tests/fuzz (tensor_fuzzer): layer_norm read the elements of a weight or bias that was
# not a tensor (a null pointer).
import torch
import torch.nn.functional as F

x = torch.randn(2, 4)
F.layer_norm(x, (4,), weight=torch.ones(4), bias=[1.0, 2.0, 3.0, 4.0])
