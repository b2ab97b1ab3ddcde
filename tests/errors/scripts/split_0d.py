# Found by tests/fuzz (tensor_fuzzer): split of a 0-dim tensor read the size of a dimension it does
# not have (out of bounds); split sizes could overflow their sum, chunk its chunk size.
import torch

x = torch.arange(6)
print([t.tolist() for t in x.chunk(2**63 - 1)])
for sizes in ([2**62, 2**62, 2**62, 2**62, 6], [8, -2]):
    try:
        x.split(sizes)
    except RuntimeError as e:
        print(e)
torch.tensor(1.0).split(1)
