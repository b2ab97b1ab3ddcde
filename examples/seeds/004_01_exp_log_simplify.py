# case: y = torch.exp(torch.log(x)) (algebraic simplification example: almost equal to y = x; eager, no compile)
# category: seed
# from: 004_7d32193c3cc701e3.txt, section "代数化简"
import torch  # added: the block uses torch without importing it

torch.manual_seed(0)  # added: deterministic random inputs for comparison

# input added: the document does not define x (positive values, so log is defined)
x = torch.rand(1024, 1024) + 0.1

y = torch.exp(torch.log(x))
