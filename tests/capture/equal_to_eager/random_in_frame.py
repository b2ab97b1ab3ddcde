# Random draws inside a compiled frame must differ from call to call (not be frozen into the
# graph), and follow the seed as eager does.
import torch


@torch.compile
def noisy(x):
    return x + torch.rand(3) + torch.randn_like(x) * 0 + torch.empty(3).uniform_() * 0


torch.manual_seed(0)
a = noisy(torch.zeros(3))
b = noisy(torch.zeros(3))
print(bool((a != b).any()))
torch.manual_seed(0)
print(bool((noisy(torch.zeros(3)) == a).all()))
