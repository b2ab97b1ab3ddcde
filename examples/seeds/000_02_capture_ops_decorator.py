# case: @torch.compile function x * 2, + 1, .relu() captured on its first call
# category: seed
# from: 000_e05bf646d5911d86.txt, section "工作原理"
import torch  # (definitions from section "什么是 torch.compile？" above)

torch.manual_seed(0)  # added: deterministic random inputs for comparison

@torch.compile
def forward(x):
    x = x * 2      # 记录这个操作
    x = x + 1      # 记录这个操作
    return x.relu()  # 记录这个操作

# 第一次执行时，PyTorch 会：
# 1. 正常执行代码
# 2. 同时记录所有操作
# 3. 构建并优化静态图

# driver added: the document defines forward but never calls it in this block
forward(torch.randn(32, 100))
