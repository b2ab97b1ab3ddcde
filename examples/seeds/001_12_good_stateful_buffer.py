# case: recommended: counter kept in a registered buffer, mutated in place (self.counter += 1) in forward, compiled and called 3 times
# category: seed
# from: 001_ea0e9edca80b62e7.txt, section "1. 避免常见陷阱"
# (definitions from section "环境准备" above)
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import time
import numpy as np
from typing import Optional, Tuple

torch.manual_seed(0)  # added: deterministic random weights/inputs for comparison

# ✅ 正确:使用 buffer 或参数
class GoodStatefulModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer('counter', torch.tensor(0))
        
    def forward(self, x):
        self.counter += 1
        return x * self.counter


# driver added: the document never instantiates or calls the class
compiled_model = torch.compile(GoodStatefulModel())
x = torch.randn(4, 16)
for _ in range(3):
    compiled_model(x)
