# Found by tests/fuzz (tensor_fuzzer): torch.atan2, Tensor.add and the other binary functions read
# a dtype, list, string or None operand as the number 0; a backward through the result then ran
# on a tensor that does not exist and Kiln crashed (SIGSEGV).
import torch

t = torch.tensor(2.0, requires_grad=True)
try:
    torch.ones(2).add(None)
except TypeError as e:
    print(e)
y = torch.atan2(torch.bool, [-3, False, t, 7])
y.backward()
