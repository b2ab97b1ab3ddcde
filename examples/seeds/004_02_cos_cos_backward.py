# case: eager f(x) = cos(cos(x)) on a (1024, 1024, 1024) requires_grad tensor, then out.sum().backward() (saves x and cos(x); ~4 GiB per tensor, ~20 GiB peak)
# category: seed
# from: 004_7d32193c3cc701e3.txt, section "算子融合"
import torch

torch.manual_seed(0)  # added: deterministic random inputs for comparison

def f(x):
    a = torch.cos(x)
    b = torch.cos(a)
    return b
x = torch.randn(1024,1024,1024)
x.requires_grad = True
out = f(x)
out.sum().backward()
