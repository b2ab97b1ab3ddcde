# The seed MiniTransformer (examples/seeds/001_03_transformer_benchmark.py) with LAYERS layers
# (default 200; `LAYERS=48 kiln run ...`), compiled and called once: the recording-scale
# benchmark of issue 17 (docs/perf.md, "Recording scale"). The widths are small so that the run
# is the compile and its recording, not the math; the graph has the seed's nodes per layer
# (200 layers: 17,016 in the fused stage; 48: 4,096).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import Optional

torch.manual_seed(0)

class MultiHeadAttention(nn.Module):
    """
    多头注意力机制实现
    
    这是 Transformer 的核心组件,torch.compile() 在这里能显著优化性能
    """
    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.1):
        super().__init__()
        assert d_model % num_heads == 0, "d_model 必须能被 num_heads 整除"
        
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads  # 每个头的维度
        
        # Q, K, V 的线性变换(合并为一个矩阵以提高效率)
        self.qkv_proj = nn.Linear(d_model, d_model * 3)
        self.out_proj = nn.Linear(d_model, d_model)
        
        self.dropout = nn.Dropout(dropout)
        self.scale = self.d_k ** -0.5  # 缩放因子:1/sqrt(d_k)
        
    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        """
        Args:
            x: (batch, seq_len, d_model)
            mask: (batch, seq_len, seq_len) 可选的注意力掩码
        
        Returns:
            (batch, seq_len, d_model)
        """
        batch_size, seq_len, _ = x.shape
        
        # 1. 计算 Q, K, V
        # qkv shape: (batch, seq_len, 3 * d_model)
        qkv = self.qkv_proj(x)
        
        # 重塑为多头格式
        # (batch, seq_len, 3, num_heads, d_k)
        qkv = qkv.reshape(batch_size, seq_len, 3, self.num_heads, self.d_k)
        
        # 转置为 (3, batch, num_heads, seq_len, d_k)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        
        # 分离 Q, K, V,每个 shape: (batch, num_heads, seq_len, d_k)
        q, k, v = qkv[0], qkv[1], qkv[2]
        
        # 2. 计算注意力分数
        # scores shape: (batch, num_heads, seq_len, seq_len)
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        
        # 3. 应用掩码(如果提供)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float('-inf'))
        
        # 4. Softmax 归一化
        attn_weights = F.softmax(scores, dim=-1)
        attn_weights = self.dropout(attn_weights)
        
        # 5. 加权求和
        # (batch, num_heads, seq_len, d_k)
        attn_output = torch.matmul(attn_weights, v)
        
        # 6. 合并多头
        # (batch, seq_len, num_heads, d_k)
        attn_output = attn_output.transpose(1, 2).contiguous()
        
        # (batch, seq_len, d_model)
        attn_output = attn_output.reshape(batch_size, seq_len, self.d_model)
        
        # 7. 最终线性变换
        output = self.out_proj(attn_output)
        
        return output


class TransformerBlock(nn.Module):
    """
    完整的 Transformer 编码器块
    
    包含:多头注意力 + 前馈网络 + 残差连接 + LayerNorm
    """
    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.1):
        super().__init__()
        
        # 多头注意力
        self.attention = MultiHeadAttention(d_model, num_heads, dropout)
        
        # 前馈网络(两层全连接 + GELU 激活)
        self.feed_forward = nn.Sequential(
            nn.Linear(d_model, d_ff),
            nn.GELU(),
            nn.Dropout(dropout),
            nn.Linear(d_ff, d_model),
            nn.Dropout(dropout)
        )
        
        # LayerNorm
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        
        self.dropout = nn.Dropout(dropout)
        
    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        """
        Args:
            x: (batch, seq_len, d_model)
            mask: 可选的注意力掩码
        
        Returns:
            (batch, seq_len, d_model)
        """
        # 注意力子层 + 残差连接 + LayerNorm
        attn_output = self.attention(x, mask)
        x = self.norm1(x + self.dropout(attn_output))
        
        # 前馈子层 + 残差连接 + LayerNorm
        ff_output = self.feed_forward(x)
        x = self.norm2(x + ff_output)
        
        return x


class MiniTransformer(nn.Module):
    """
    小型 Transformer 模型,用于演示 torch.compile() 的优化效果
    """
    def __init__(self, vocab_size: int, d_model: int = 512, num_heads: int = 8,
                 num_layers: int = 6, d_ff: int = 2048, max_seq_len: int = 512,
                 dropout: float = 0.1, num_classes: int = 10):
        super().__init__()
        
        # Token 嵌入
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        
        # 位置编码
        self.position_embedding = nn.Embedding(max_seq_len, d_model)
        
        # Transformer 块堆叠
        self.transformer_blocks = nn.ModuleList([
            TransformerBlock(d_model, num_heads, d_ff, dropout)
            for _ in range(num_layers)
        ])
        
        # 分类头
        self.classifier = nn.Linear(d_model, num_classes)
        
        self.dropout = nn.Dropout(dropout)
        
    def forward(self, input_ids: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        """
        Args:
            input_ids: (batch, seq_len) token 索引
            mask: (batch, seq_len, seq_len) 注意力掩码
        
        Returns:
            (batch, num_classes) 分类 logits
        """
        batch_size, seq_len = input_ids.shape
        
        # 创建位置索引
        positions = torch.arange(seq_len, device=input_ids.device).unsqueeze(0).expand(batch_size, -1)
        
        # 嵌入层
        token_emb = self.token_embedding(input_ids)  # (batch, seq_len, d_model)
        pos_emb = self.position_embedding(positions)  # (batch, seq_len, d_model)
        
        x = self.dropout(token_emb + pos_emb)
        
        # 通过所有 Transformer 块
        for block in self.transformer_blocks:
            x = block(x, mask)
        
        # 取第一个 token 的输出(类似 BERT 的 [CLS] token)
        cls_output = x[:, 0, :]  # (batch, d_model)
        
        # 分类
        logits = self.classifier(cls_output)  # (batch, num_classes)
        
        return logits


layers = int(os.environ.get("LAYERS", "200"))
model = MiniTransformer(vocab_size=1000, d_model=64, num_heads=4, num_layers=layers, d_ff=128, max_seq_len=64)
model.eval()
compiled = torch.compile(model)
input_ids = torch.randint(0, 1000, (2, 16))
with torch.no_grad():
    out = compiled(input_ids)
print(tuple(out.shape))
