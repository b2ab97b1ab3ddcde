# case: torch.compile of an nn.Sequential MLP (Linear-ReLU-Linear), called once on a (32, 100) input
# category: seed
# from: 000_e05bf646d5911d86.txt, section "什么是 torch.compile？"
import torch
import torch.nn as nn

torch.manual_seed(0)  # added: deterministic random weights/inputs for comparison

# 普通的 PyTorch 模型（动态图）
model = nn.Sequential(
    nn.Linear(100, 200),
    nn.ReLU(),
    nn.Linear(200, 10)
)

# 一行代码启用编译优化
compiled_model = torch.compile(model)

# 使用方式完全相同
x = torch.randn(32, 100)
output = compiled_model(x)  # 自动获得性能提升！
