# case: recommended: torch.where(x.sum() > 0, path1(x), path2(x)) instead of a Python if, compiled and called on x and -x
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

# ✅ 正确:使用 torch 操作
class GoodModel(nn.Module):
    def forward(self, x):
        # 使用 torch.where 替代 if-else
        condition = x.sum() > 0
        return torch.where(
            condition,
            self.path1(x),
            self.path2(x)
        )


# driver added: the document never instantiates or calls the class, and its forward uses
# self.path1 / self.path2 without defining them; the driver attaches two Linear layers
model = GoodModel()
model.path1 = nn.Linear(16, 16)
model.path2 = nn.Linear(16, 16)
compiled_model = torch.compile(model)
x = torch.randn(4, 16)
compiled_model(x)
compiled_model(-x)
