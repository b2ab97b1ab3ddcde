# case: batched inference with torch.compile(mode=reduce-overhead): variable-length 1-D tensors right-padded with F.pad, torch.stack, eval + no_grad
# category: seed
# from: 001_ea0e9edca80b62e7.txt, section "2. 批处理优化"
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
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


def batch_inference_optimized(model: nn.Module, data_list: list, batch_size: int = 32):
    """
    优化的批量推理函数
    
    将多个小批次合并为大批次以提高 GPU 利用率
    """
    model = torch.compile(model, mode="reduce-overhead")
    model.eval()
    
    results = []
    
    with torch.no_grad():
        for i in range(0, len(data_list), batch_size):
            batch = data_list[i:i + batch_size]
            
            # 动态填充到相同长度
            max_len = max(len(item) for item in batch)
            padded_batch = torch.stack([
                F.pad(item, (0, max_len - len(item)))
                for item in batch
            ])
            
            outputs = model(padded_batch.to(device))
            results.extend(outputs.cpu())
    
    return results


# driver added: the document defines batch_inference_optimized but never calls it;
# every batch of 4 holds one length-8 item, so the padded batches are (4, 8) for Linear(8, 4)
data_list = [torch.randn(n) for n in (5, 8, 3, 6, 8, 2, 7, 4)]
batch_inference_optimized(nn.Linear(8, 4).to(device), data_list, batch_size=4)
