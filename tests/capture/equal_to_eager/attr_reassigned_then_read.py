# An attribute the compiled method reassigns (self.items = self.items[-3:]) and then reads from:
# the tensors taken from its old value are graph inputs read through where they were when the
# call started (self.items[0], self.items[1] ...), never a frozen copy; the list's length is
# guarded, so each new length recompiles.
import torch


class History:
    def __init__(self):
        self.items = [torch.zeros(4), torch.ones(4), torch.full((4,), 2.0)]

    @torch.compile
    def push(self, x):
        self.items = self.items[-3:]
        self.items.append(x)
        return torch.sin(x) + self.items[0]


h = History()
for s in range(1, 6):
    print(h.push(torch.arange(4.0) * s), len(h.items))
print(torch.stack(h.items))
