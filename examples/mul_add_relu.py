# The bundled example `make run` opens: a small module whose forward the compiler fuses into
# one kernel, with an exp(log(x)) pair the simplification pass removes.
import torch
import torch.nn as nn


class Scale(nn.Module):
    def forward(self, x):
        y = x * 2
        y = y + 1
        z = torch.exp(torch.log(y.relu() + 0.5))
        return z.sin() * 0.5 + z.cos()


model = Scale()
compiled = torch.compile(model)

x = torch.linspace(-2.0, 2.0, 4096).reshape(64, 64)
out = compiled(x)
out_1 = compiled(x * 3.0)
print("max:", out.max().item(), out_1.max().item())
