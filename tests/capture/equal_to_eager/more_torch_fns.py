# sdpa (float and bool masks, causal, scale), outer, sort/topk/argsort, one_hot, new_*,
# repeat_interleave, einsum, cumsum, isnan and in-place index_add_/index_copy_/addcmul_ on
# inputs, compiled as eager runs them.
import torch
import torch.nn.functional as F


@torch.compile
def attend(q, k, v, mask, bias):
    a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    b = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=0.3)
    c = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return a, b, c


@torch.compile
def misc(x, y, idx):
    vals, pos = x.topk(2, dim=-1)
    s, order = torch.sort(y, descending=True)
    h = F.one_hot(idx, 4) * 2
    z = x.new_zeros(2, x.shape[0] - 1) + torch.outer(y[:2], y[:2])
    r = x.repeat_interleave(2, dim=0)
    e = torch.einsum("nd,de->ne", x, x.t())
    return vals, pos, s, order, torch.argsort(idx), h, z, r, e, torch.cumsum(x, dim=1), torch.isnan(x).any()


@torch.compile
def update(acc, cache, idx, src):
    acc.index_add_(0, idx, src)
    cache.index_copy_(1, idx[:1], src[:1].t())
    acc.addcmul_(src[:3], src[:3], value=0.5)
    return acc.sum() + cache.sum()


q = torch.arange(24.0).reshape(1, 2, 3, 4) / 10
k = q * 0.5 + 0.1
v = q * 2
mask = torch.tensor([[True, False, True], [True, True, False], [False, False, False]])
bias = torch.arange(9.0).reshape(3, 3) / -4
for t in attend(q, k, v, mask, bias):
    print(t)
x = torch.tensor([[0.5, -1.0, 2.0], [3.0, 1.5, -2.5], [0.0, 4.0, 1.0]])
for t in misc(x, torch.tensor([2.0, -1.0, 3.0, 0.5]), torch.tensor([3, 0, 2])):
    print(t)
acc = torch.zeros(3, 3)
cache = torch.zeros(3, 4)
src = torch.arange(9.0).reshape(3, 3)
print(update(acc, cache, torch.tensor([2, 0, 2]), src))
print(acc)
print(cache)
