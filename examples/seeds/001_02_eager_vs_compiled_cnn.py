# case: conv-bn-relu x2 + fc CNN (SimpleModel), eager vs torch.compile default inference benchmark (10 warmup + 100 iters, no_grad, eval)
# category: seed
# from: 001_ea0e9edca80b62e7.txt, section "基础示例:对比 eager mode 和 compile mode"
# (definitions from section "环境准备" above)
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import time
import numpy as np
from typing import Optional, Tuple

torch.manual_seed(0)  # added: deterministic random weights/inputs for comparison

class SimpleModel(nn.Module):
    """
    简单的卷积神经网络,用于演示 torch.compile() 的效果
    
    架构:Conv -> BatchNorm -> ReLU -> Conv -> BatchNorm -> ReLU -> FC
    """
    def __init__(self, in_channels: int = 3, num_classes: int = 10):
        super().__init__()
        
        # 第一个卷积块
        self.conv1 = nn.Conv2d(in_channels, 64, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(64)
        
        # 第二个卷积块
        self.conv2 = nn.Conv2d(64, 128, kernel_size=3, padding=1)
        self.bn2 = nn.BatchNorm2d(128)
        
        # 全连接层
        self.fc = nn.Linear(128 * 32 * 32, num_classes)
        
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x shape: (batch, 3, 32, 32)
        
        # 第一个卷积块 + 激活
        x = self.conv1(x)  # (batch, 64, 32, 32)
        x = self.bn1(x)
        x = F.relu(x)
        
        # 第二个卷积块 + 激活
        x = self.conv2(x)  # (batch, 128, 32, 32)
        x = self.bn2(x)
        x = F.relu(x)
        
        # 展平并分类
        x = x.view(x.size(0), -1)  # (batch, 128*32*32)
        x = self.fc(x)  # (batch, num_classes)
        
        return x


def benchmark_model(model: nn.Module, input_tensor: torch.Tensor, 
                   num_iterations: int = 100, warmup: int = 10) -> float:
    """
    性能基准测试函数
    
    Args:
        model: 待测试的模型
        input_tensor: 输入数据
        num_iterations: 测试迭代次数
        warmup: 预热次数(不计入统计)
    
    Returns:
        平均每次推理的时间(毫秒)
    """
    model.eval()
    
    # 预热阶段:让 CUDA kernel 完全加载,JIT 编译完成
    with torch.no_grad():
        for _ in range(warmup):
            _ = model(input_tensor)
    
    # 同步 GPU(确保之前的操作完成)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    
    # 正式测试
    start_time = time.time()
    with torch.no_grad():
        for _ in range(num_iterations):
            _ = model(input_tensor)
    
    # 再次同步 GPU
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    
    end_time = time.time()
    avg_time = (end_time - start_time) / num_iterations * 1000  # 转换为毫秒
    
    return avg_time


# 创建测试数据
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
batch_size = 32
test_input = torch.randn(batch_size, 3, 32, 32).to(device)

# 创建两个相同的模型实例
model_eager = SimpleModel().to(device)
model_compiled = SimpleModel().to(device)

# 确保权重完全相同
model_compiled.load_state_dict(model_eager.state_dict())

# 编译模型(使用默认后端)
model_compiled = torch.compile(model_compiled)

# 性能对比
print("=" * 60)
print("性能对比测试")
print("=" * 60)

eager_time = benchmark_model(model_eager, test_input)
print(f"Eager Mode 平均推理时间: {eager_time:.4f} ms")

compiled_time = benchmark_model(model_compiled, test_input)
print(f"Compiled Mode 平均推理时间: {compiled_time:.4f} ms")

speedup = eager_time / compiled_time
print(f"加速比: {speedup:.2f}x")
print("=" * 60)
