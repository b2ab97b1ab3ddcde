# case: calling the @torch.compile function (x * 2 + 1).relu() on the (32, 100) input; result kept
# category: seed
# from: 000_e05bf646d5911d86.txt, section "工作原理"
import torch

torch.manual_seed(0)  # added: deterministic random inputs for comparison

# (definitions from section "什么是 torch.compile？" above)
x = torch.randn(32, 100)

# (definitions from section "工作原理" above, its first block)
@torch.compile
def forward(x):
    x = x * 2      # 记录这个操作
    x = x + 1      # 记录这个操作
    return x.relu()  # 记录这个操作

# 之后的调用直接运行编译好的代码
# 不再需要 Python 解释器参与
result = forward(x)  # 快！
