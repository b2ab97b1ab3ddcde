# case: anti-pattern: data-dependent Python if on x.sum() > 0 inside forward (graph break), compiled and called on x and -x
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

# ❌ 错误:在 forward 中使用 Python 控制流
class BadModel(nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # 这会导致图断点
            return self.path1(x)
        else:
            return self.path2(x)


# driver added: the document never instantiates or calls the class, and its forward uses
# self.path1 / self.path2 without defining them; the driver attaches two Linear layers
model = BadModel()
model.path1 = nn.Linear(16, 16)
model.path2 = nn.Linear(16, 16)
compiled_model = torch.compile(model)
x = torch.randn(4, 16)
compiled_model(x)
compiled_model(-x)
