# case: eager Python loop of 1000 x = x + 1 additions (illustrates per-op Python overhead; no compile)
# category: seed
# from: 000_e05bf646d5911d86.txt, section "2. 消除 Python 开销"
import torch

torch.manual_seed(0)  # added: deterministic random inputs for comparison

# (definitions from section "什么是 torch.compile？" above)
x = torch.randn(32, 100)

# 动态图：每次循环都有 Python 开销
for i in range(1000):
    x = x + 1  # 1000 次 Python 函数调用

# 静态图：编译成底层循环
# 直接执行，没有 Python 参与
