# case: eager chain a = x * 2, b = a + 1, c = b.relu() (illustrates intermediate buffer reuse; no compile)
# category: seed
# from: 000_e05bf646d5911d86.txt, section "3. 内存优化"
import torch

torch.manual_seed(0)  # added: deterministic random inputs for comparison

# (definitions from section "什么是 torch.compile？" above)
x = torch.randn(32, 100)

# 编译器可以分析整个计算流程
# 智能复用中间变量的内存
a = x * 2      # 分配 buffer_1
b = a + 1      # 分配 buffer_2
c = b.relu()   # 复用 buffer_1（a 不再使用）
