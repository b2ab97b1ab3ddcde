# case: environment check: imports and prints of torch version / CUDA availability / CUDA version
# category: seed
# from: 001_ea0e9edca80b62e7.txt, section "环境准备"
# 安装依赖(需要 Python 3.14+)
# pip install torch==2.10.0 torchvision torchaudio --index-url https://download.pytorch.org/whl/cu121

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import time
import numpy as np
from typing import Optional, Tuple

# 检查环境
print(f"PyTorch 版本: {torch.__version__}")
print(f"CUDA 可用: {torch.cuda.is_available()}")
print(f"CUDA 版本: {torch.version.cuda if torch.cuda.is_available() else 'N/A'}")
