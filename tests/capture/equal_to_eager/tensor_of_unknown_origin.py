# Tensors the frame reaches through something Kiln cannot name as a source (a set, a dict
# keyed by a tuple holding an object): they must not be frozen into the graph as constants.
import torch


class Key:
    pass


k = Key()
bag = {t for t in [torch.ones(3)]}
table = {(k, 1): torch.ones(3)}


@torch.compile
def from_set(x):
    for t in bag:
        x = x + t
    return x * 2


@torch.compile
def from_odd_key(x):
    return x + table[(k, 1)]


x = torch.arange(3.0)
print(from_set(x), from_odd_key(x))
for t in bag:
    t.mul_(10)
table[(k, 1)].add_(5)
print(from_set(x), from_odd_key(x))
