# case: torch._dynamo.explain on (x + 1).sin(), called in the document's form explain(f, (x,)), result printed
# category: seed
# from: 002_2cad80cdf2d10311.txt, section "5.2 一些 debug 的方法"
import torch
import torch._dynamo as dynamo

torch.manual_seed(0)  # added: deterministic random inputs for comparison

def forward_func(x):
    return (x + 1).sin()

x = torch.randn(10)

# Explanation of compilation
explanation = dynamo.explain(forward_func, (x,))

print(explanation)
