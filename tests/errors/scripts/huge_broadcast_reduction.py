import torch

# A 2**40-element broadcast view has no storage of that size, but reducing it needs one
# offset per element: an allocator error, not a machine out of memory.
x = torch.ones(2**20).expand(2**20, 2**20)
print(x.sum())
