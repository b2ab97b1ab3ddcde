# case: Linear+LayerNorm model compiled with dynamic=True, called with seq_len 32/64/128/256; torch._dynamo.mark_dynamic helper
# category: seed
# from: 001_ea0e9edca80b62e7.txt, section "2. 动态形状处理"
# (definitions from section "环境准备" above)
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import time
import numpy as np
from typing import Optional, Tuple

torch.manual_seed(0)  # added: deterministic random weights/inputs for comparison

# (definitions from section "基础示例:对比 eager mode 和 compile mode" above)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


class DynamicShapeModel(nn.Module):
    """
    处理动态输入形状的模型
    
    torch.compile() 默认会为每个输入形状重新编译,
    这里展示如何优化动态形状场景
    """
    def __init__(self, d_model: int = 256):
        super().__init__()
        self.linear = nn.Linear(d_model, d_model)
        self.norm = nn.LayerNorm(d_model)
        
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x shape: (batch, seq_len, d_model)
        # seq_len 可能是动态的
        return self.norm(self.linear(x))


# 使用 dynamic=True 标记动态维度
model = DynamicShapeModel().to(device)

# 方法1:使用 torch.compile 的 dynamic 参数(PyTorch 2.10+)
compiled_model = torch.compile(
    model,
    dynamic=True,  # 允许动态形状
    mode="default"
)

# 方法2:使用 torch._dynamo.mark_dynamic 标记具体维度
import torch._dynamo as dynamo

def forward_with_dynamic_marking(self, x):
    # 标记 seq_len 维度为动态
    dynamo.mark_dynamic(x, 1)  # 第1维(seq_len)是动态的
    return self.norm(self.linear(x))

# 测试不同序列长度
test_lengths = [32, 64, 128, 256]
for seq_len in test_lengths:
    test_input = torch.randn(16, seq_len, 256).to(device)
    output = compiled_model(test_input)
    print(f"序列长度 {seq_len}: 输出形状 {output.shape}")

# driver added: the document defines forward_with_dynamic_marking (method 2) but never calls it
forward_with_dynamic_marking(model, torch.randn(16, 32, 256).to(device))
