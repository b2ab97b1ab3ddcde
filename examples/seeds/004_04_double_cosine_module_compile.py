# case: nn.Module DoubleCosine (cos(cos(x))) compiled in place with mod.compile()
# category: seed
# from: 004_7d32193c3cc701e3.txt, section "编译方法"
import torch

torch.manual_seed(0)  # added: deterministic random inputs for comparison

class DoubleCosine(torch.nn.Module):
    def forward(self, x):
        return torch.cos(torch.cos(x))

mod = DoubleCosine()
mod.compile()

# driver added: the document compiles mod but never calls it
mod(torch.randn(1024, 1024))
