# case: debugging: dynamo.reset, config.verbose, torch._logging.set_logs(dynamo=INFO), compile with backend=inductor, torch._dynamo.explain, torch._dynamo.export on the CNN
# category: seed
# from: 001_ea0e9edca80b62e7.txt, section "4. 调试编译问题"
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


# (definitions from section "基础示例:对比 eager mode 和 compile mode" above)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


def debug_compilation():
    """
    调试 torch.compile() 编译问题的工具函数
    """
    import torch._dynamo as dynamo
    
    model = SimpleModel().to(device)
    
    # 1. 查看编译过程中的图断点(Graph Breaks)
    print("=" * 60)
    print("图断点分析")
    print("=" * 60)
    
    # 重置 dynamo 状态
    dynamo.reset()
    
    # 启用详细日志
    import logging
    torch._dynamo.config.verbose = True
    torch._logging.set_logs(dynamo=logging.INFO)
    
    compiled_model = torch.compile(model, backend="inductor")
    
    # 运行一次以触发编译
    test_input = torch.randn(4, 3, 32, 32).to(device)
    _ = compiled_model(test_input)
    
    # 2. 查看生成的代码
    print("\n" + "=" * 60)
    print("查看生成的优化代码")
    print("=" * 60)
    
    # 使用 explain 查看编译信息
    explanation = torch._dynamo.explain(model)(test_input)
    print(explanation)
    
    # 3. 禁用特定优化以隔离问题
    print("\n" + "=" * 60)
    print("选择性禁用优化")
    print("=" * 60)
    
    # 禁用算子融合
    torch._dynamo.config.suppress_errors = False
    
    # 4. 导出编译后的图
    from torch._dynamo import export
    
    exported_program = export(model, test_input)
    print(f"\n导出的图节点数: {len(exported_program.graph.nodes)}")
    
    # 清理
    dynamo.reset()
    torch._dynamo.config.verbose = False


print("\n" + "=" * 60)
print("编译调试工具演示")
print("=" * 60 + "\n")

debug_compilation()
