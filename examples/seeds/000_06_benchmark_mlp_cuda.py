# case: 1024-1024-1024-10 MLP on CUDA, eager vs torch.compile timing over 100 calls (batch 128, first compiled call included)
# category: seed
# from: 000_e05bf646d5911d86.txt, section "性能对比"
# requires: cuda
import time
import torch
import torch.nn as nn

torch.manual_seed(0)  # added: deterministic random weights/inputs for comparison

class SimpleModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(1024, 1024),
            nn.ReLU(),
            nn.Linear(1024, 1024),
            nn.ReLU(),
            nn.Linear(1024, 10)
        )

    def forward(self, x):
        return self.layers(x)

model = SimpleModel().cuda()
compiled_model = torch.compile(model)

x = torch.randn(128, 1024).cuda()

# 动态图性能
start = time.time()
for _ in range(100):
    y = model(x)
print(f"动态图: {time.time() - start:.3f}s")

# 静态图性能（第一次会有编译开销）
start = time.time()
for _ in range(100):
    y = compiled_model(x)
print(f"静态图: {time.time() - start:.3f}s")

# 典型结果：静态图可以快 1.5-2 倍！
