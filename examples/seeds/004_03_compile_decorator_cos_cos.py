# case: @torch.compile on f(x) = cos(cos(x)) (one-decorator compile of a function)
# category: seed
# from: 004_7d32193c3cc701e3.txt, section "编译方法"
import torch

torch.manual_seed(0)  # added: deterministic random inputs for comparison

@torch.compile
def f(x):
    a = torch.cos(x)
    b = torch.cos(a)
    return b

# driver added: the document defines f but never calls it
f(torch.randn(1024, 1024))
