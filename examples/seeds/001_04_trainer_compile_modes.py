# case: CompilationAwareTrainer: one Adam training epoch of the CNN per mode (eager, default, reduce-overhead, max-autotune) on a shuffled TensorDataset via DataLoader
# category: seed
# from: 001_ea0e9edca80b62e7.txt, section "训练循环优化"
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


class CompilationAwareTrainer:
    """
    支持 torch.compile() 的训练器
    
    包含完整的训练循环、验证循环和性能监控
    """
    def __init__(self, model: nn.Module, compile_model: bool = True,
                 compile_mode: str = "default"):
        """
        Args:
            model: 待训练的模型
            compile_model: 是否编译模型
            compile_mode: 编译模式
                - "default": 平衡性能和编译时间
                - "reduce-overhead": 减少 Python 开销,适合小模型
                - "max-autotune": 最大化性能,编译时间较长
        """
        self.device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
        self.model = model.to(self.device)
        
        if compile_model:
            print(f"正在编译模型(模式:{compile_mode})...")
            self.model = torch.compile(self.model, mode=compile_mode)
            print("模型编译完成!")
        
        self.compile_mode = compile_mode if compile_model else "eager"
        
    def train_epoch(self, dataloader: DataLoader, optimizer: torch.optim.Optimizer,
                   criterion: nn.Module, epoch: int) -> Tuple[float, float]:
        """
        训练一个 epoch
        
        Returns:
            (平均损失, 平均准确率)
        """
        self.model.train()
        total_loss = 0.0
        correct = 0
        total = 0
        
        start_time = time.time()
        
        for batch_idx, (data, target) in enumerate(dataloader):
            data, target = data.to(self.device), target.to(self.device)
            
            # 前向传播
            optimizer.zero_grad()
            output = self.model(data)
            loss = criterion(output, target)
            
            # 反向传播
            loss.backward()
            optimizer.step()
            
            # 统计
            total_loss += loss.item()
            _, predicted = output.max(1)
            total += target.size(0)
            correct += predicted.eq(target).sum().item()
            
            # 打印进度
            if (batch_idx + 1) % 10 == 0:
                print(f"Epoch {epoch} | Batch {batch_idx + 1}/{len(dataloader)} | "
                      f"Loss: {loss.item():.4f} | "
                      f"Acc: {100. * correct / total:.2f}%")
        
        epoch_time = time.time() - start_time
        avg_loss = total_loss / len(dataloader)
        avg_acc = 100. * correct / total
        
        print(f"\nEpoch {epoch} 完成 | 用时: {epoch_time:.2f}s | "
              f"平均损失: {avg_loss:.4f} | 平均准确率: {avg_acc:.2f}%\n")
        
        return avg_loss, avg_acc
    
    @torch.no_grad()
    def validate(self, dataloader: DataLoader, criterion: nn.Module) -> Tuple[float, float]:
        """
        验证模型
        
        Returns:
            (平均损失, 平均准确率)
        """
        self.model.eval()
        total_loss = 0.0
        correct = 0
        total = 0
        
        for data, target in dataloader:
            data, target = data.to(self.device), target.to(self.device)
            
            output = self.model(data)
            loss = criterion(output, target)
            
            total_loss += loss.item()
            _, predicted = output.max(1)
            total += target.size(0)
            correct += predicted.eq(target).sum().item()
        
        avg_loss = total_loss / len(dataloader)
        avg_acc = 100. * correct / total
        
        return avg_loss, avg_acc


# 创建训练数据(模拟数据集)
def create_dummy_dataset(num_samples: int = 1000, num_classes: int = 10):
    """创建模拟数据集用于演示"""
    X = torch.randn(num_samples, 3, 32, 32)
    y = torch.randint(0, num_classes, (num_samples,))
    return TensorDataset(X, y)


# 训练演示
print("\n" + "=" * 60)
print("训练性能对比")
print("=" * 60)

# 创建数据集
train_dataset = create_dummy_dataset(num_samples=640)
train_loader = DataLoader(train_dataset, batch_size=32, shuffle=True)

# 测试不同编译模式
compile_modes = ["eager", "default", "reduce-overhead", "max-autotune"]
results = {}

for mode in compile_modes:
    print(f"\n{'='*60}")
    print(f"测试模式: {mode}")
    print(f"{'='*60}\n")
    
    # 创建新模型
    model = SimpleModel()
    compile_model = (mode != "eager")
    
    # 创建训练器
    trainer = CompilationAwareTrainer(
        model=model,
        compile_model=compile_model,
        compile_mode=mode if compile_model else "default"
    )
    
    # 优化器和损失函数
    optimizer = torch.optim.Adam(trainer.model.parameters(), lr=0.001)
    criterion = nn.CrossEntropyLoss()
    
    # 训练一个 epoch
    start_time = time.time()
    loss, acc = trainer.train_epoch(train_loader, optimizer, criterion, epoch=1)
    epoch_time = time.time() - start_time
    
    results[mode] = {
        'time': epoch_time,
        'loss': loss,
        'acc': acc
    }

# 打印对比结果
print("\n" + "=" * 60)
print("编译模式性能对比总结")
print("=" * 60)
print(f"{'模式':<20} {'训练时间(s)':<15} {'损失':<10} {'准确率(%)':<10} {'加速比':<10}")
print("-" * 60)

baseline_time = results['eager']['time']
for mode, result in results.items():
    speedup = baseline_time / result['time']
    print(f"{mode:<20} {result['time']:<15.2f} {result['loss']:<10.4f} "
          f"{result['acc']:<10.2f} {speedup:<10.2f}x")
print("=" * 60)
