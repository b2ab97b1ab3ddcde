# case: @torch.compile function with a data-dependent Python if on x.sum() > threshold, called so that both branches run
# category: seed
# from: 000_e05bf646d5911d86.txt, section "支持动态控制流"
import torch  # (definitions from section "什么是 torch.compile？" above)

torch.manual_seed(0)  # added: deterministic random inputs for comparison

@torch.compile
def dynamic_forward(x, threshold):
    if x.sum() > threshold:  # 原生 Python 控制流
        return x * 2
    else:
        return x * 3

# 第一次运行针对具体的分支编译
# 如果条件改变，会重新编译

# driver added: the document defines dynamic_forward but never calls it
x = torch.randn(32, 100)
dynamic_forward(x, -1000.0)
dynamic_forward(x, 1000.0)
