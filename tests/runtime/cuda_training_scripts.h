// The training scripts of tests/runtime/cuda_training_test.cpp (label gpu), shared with
// cuda_eager_ops_test.cpp, which runs them with the CPU as the device under test so a script
// error shows up without a GPU.
#pragma once

#include <string>

namespace kiln::test {

// `DEV` in the scripts is the device under test (the CPU runs beside it); the scripts run on a
// machine without a GPU with DEV = 'cpu', which is how they were checked there.
inline std::string onDevice(std::string script, const std::string& dev = "cuda") {
  for (size_t p; (p = script.find("'DEV'")) != std::string::npos;) script.replace(p, 5, "'" + dev + "'");
  return script;
}

// Each op with its gradient: f on CPU tensors and on device copies, the sum of f's result times
// fixed random weights backpropagated, results and gradients compared.
inline const char* const kOpChecks = R"(import torch
import torch.nn.functional as F
dev = 'DEV'
torch.manual_seed(0)
def same(a, b, tol):
    if a.device.type != dev or a.shape != b.shape:
        return 'on ' + str(a.device) + ' shape ' + str(tuple(a.shape)) + ' vs ' + str(tuple(b.shape))
    a = a.cpu()
    if a.dtype != b.dtype:
        return 'dtype ' + str(a.dtype) + ' vs ' + str(b.dtype)
    if a.dtype in (torch.int64, torch.int32, torch.bool):
        return '' if torch.equal(a, b) else 'values differ'
    if torch.allclose(a, b, rtol=tol, atol=tol):
        return ''
    return 'max difference ' + str((a - b).abs().max().item())
def check(name, f, *xs, tol=1e-4, grad=True):
    cpu_in = [x.detach().clone().requires_grad_(grad and x.is_floating_point()) for x in xs]
    dev_in = [x.detach().clone().to(dev).requires_grad_(grad and x.is_floating_point()) for x in xs]
    want, got = f(*cpu_in), f(*dev_in)
    why = same(got, want, tol)
    if not why and grad:
        w = torch.randn(want.shape)
        (want * w).sum().backward()
        (got * w.to(dev)).sum().backward()
        for i, (a, b) in enumerate(zip(dev_in, cpu_in)):
            if b.grad is None:
                continue
            g = same(a.grad, b.grad, tol) if a.grad is not None else 'missing'
            if g and not why:
                why = 'grad ' + str(i) + ': ' + g
    print(name, 'ok' if not why else why)
x = torch.randn(4, 16, 64)
ids = torch.randint(0, 100, (4, 16))
ids[0, :4] = 7  # repeated rows: the embedding gradient adds into one row from several threads
emb = torch.randn(100, 64)
check('embedding', lambda w: F.embedding(ids.to(w.device), w), emb)
check('embedding_padding_idx', lambda w: F.embedding(ids.to(w.device), w, padding_idx=7), emb)
check('position_embedding', lambda w: F.embedding(torch.arange(16, device=w.device).unsqueeze(0).expand(4, -1), w), torch.randn(16, 64))
check('index_select', lambda a: torch.index_select(a, 1, torch.tensor([3, 0, 3, 15], device=a.device)), x)
check('index', lambda a: a[torch.tensor([[1, -1], [0, 3]], device=a.device)], x)
check('index_dim1', lambda a: a[:, torch.tensor([3, 3, -16], device=a.device)], x)
def set_rows(a):
    b = a * 1
    b[torch.tensor([0, 2], device=a.device)] = 0.5
    b[:, torch.tensor([1, 5], device=a.device)] = torch.ones(4, 2, 64, device=a.device)
    return b
check('index_put', set_rows, x)
def set_rows_no_grad(a):
    b = a.detach().clone()
    b[torch.tensor([0, -1], device=a.device)] = 0.5
    b[:, torch.tensor([1, 5], device=a.device)] = torch.ones(4, 2, 64, device=a.device)
    return b
check('index_put_no_grad', set_rows_no_grad, x, grad=False)
check('arange', lambda a: torch.arange(16, device=a.device) * a[0, :, 0], x, grad=False)
check('gelu', lambda a: F.gelu(a), x)
check('gelu_tanh', lambda a: F.gelu(a, approximate='tanh'), x)
check('layer_norm', lambda a, w, b: F.layer_norm(a, (64,), w, b), x, torch.randn(64), torch.randn(64))
check('layer_norm_plain', lambda a: F.layer_norm(a, (16, 64)), x)
check('softmax', lambda a: F.softmax(a.view(4, 4, 16, 16), dim=-1), x)
check('log_softmax', lambda a: F.log_softmax(a, dim=-1), x)
logits, labels = torch.randn(8, 10), torch.randint(0, 10, (8,))
check('cross_entropy', lambda a: F.cross_entropy(a, labels.to(a.device)), logits)
check('cross_entropy_sum', lambda a: F.cross_entropy(a, labels.to(a.device), reduction='sum'), logits)
check('cross_entropy_none', lambda a: F.cross_entropy(a, labels.to(a.device), reduction='none'), logits)
check('cross_entropy_weight', lambda a, w: F.cross_entropy(a, labels.to(a.device), weight=w), logits, torch.rand(10))
ignored = labels.clone()
ignored[2] = -100
check('cross_entropy_ignore', lambda a: F.cross_entropy(a, ignored.to(a.device)), logits)
check('nll_loss', lambda a: F.nll_loss(F.log_softmax(a, 1), labels.to(a.device)), logits)
check('select', lambda a: a[:, 0, :] * 2, x)
check('slice', lambda a: a[:, 2:10:2, 1:] + 1, x)
check('qkv_heads', lambda a: a.reshape(4, 16, 4, 16).permute(0, 2, 1, 3)[0].contiguous(), x)
def attention(a, w, b):
    qkv = F.linear(a, w, b).reshape(4, 16, 3, 4, 16).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    att = F.softmax(torch.matmul(q, k.transpose(-2, -1)) * 0.25, dim=-1)
    return torch.matmul(att, v).transpose(1, 2).contiguous().reshape(4, 16, 64)
check('attention', attention, x, torch.randn(192, 64) * 0.1, torch.randn(192))
check('residual_norm', lambda a, w: F.layer_norm(a + F.gelu(F.linear(a, w)), (64,)), x, torch.randn(64, 64) * 0.1)
check('cat', lambda a, b: torch.cat([a, b * 2], dim=1), x, torch.randn(4, 3, 64))
check('stack', lambda a, b: torch.stack([a, b], dim=0), x, torch.randn(4, 16, 64))
check('flatten_cat', lambda a, b: torch.cat([a.reshape(-1), b.reshape(-1)]), x, torch.randn(10, 3))
check('pad', lambda a: F.pad(a, (1, 2, 0, 1), value=0.5), x)
check('mean_loss', lambda a: (a ** 2).mean(), x)
check('argmax', lambda a: torch.argmax(a, dim=-1), x, grad=False)
check('argmax_all', lambda a: a.argmax(), x, grad=False)
check('max_dim', lambda a: torch.max(a, dim=1)[0], x)
check('gather', lambda a: torch.gather(a, 1, labels.to(a.device).unsqueeze(1)), logits)
check('maximum', lambda a, b: torch.maximum(a, b), x, torch.randn(4, 16, 64))
p = torch.randn(4, 16, 64)
keep = F.dropout(p.to(dev), 0.5, True)
k = keep.cpu()  # the checks themselves on the CPU
print('dropout', keep.device.type == dev and bool(((k == 0) | torch.isclose(k, p * 2)).all()) and 0.3 < (k != 0).float().mean().item() < 0.7)
q = p.to(dev).requires_grad_()
out = F.dropout(q, 0.5, True)
out.sum().backward()
g, o = q.grad.cpu(), out.detach().cpu()
print('dropout_grad', bool(((g == 0) | (g == 2)).all()) and bool(((g == 2) == (o != 0)).all()))
print('dropout_module', torch.nn.Dropout(0.1).train()(p.to(dev)).shape == p.shape)
# BatchNorm: training (batch statistics, running stats updated in place) and eval, with gradients.
def bn(device, training):
    torch.manual_seed(4)
    m = torch.nn.BatchNorm1d(3).to(device)
    m.train(training)
    if not training:
        m.running_mean.fill_(0.2)
        m.running_var.fill_(1.5)
    inp = torch.randn(4, 3, 5).to(device).requires_grad_()
    out = m(inp)
    (out * torch.arange(5.0, device=device)).sum().backward()
    return [t.detach().cpu() for t in (out, inp.grad, m.weight.grad, m.bias.grad, m.running_mean, m.running_var)]
for training in (True, False):
    print('batch_norm_train' if training else 'batch_norm_eval',
          all(torch.allclose(a, b, rtol=1e-4, atol=1e-4) for a, b in zip(bn(dev, training), bn('cpu', training))))
# AdamW's step on one parameter: the in-place updates on the device.
def adamw(device):
    torch.manual_seed(3)
    w = torch.nn.Parameter(torch.randn(32, 16).to(device))
    opt = torch.optim.AdamW([w], lr=1e-2)
    for _ in range(3):
        opt.zero_grad()
        ((w * torch.arange(16.0, device=device)).sin() ** 2).sum().backward()
        opt.step()
    return w.detach()
print('adamw', same(adamw(dev), adamw('cpu'), 1e-5) or 'ok')
a, b, c = torch.randn(64), torch.randn(64), torch.rand(64) + 0.5
ad = a.to(dev)
ad.mul_(0.9).addcmul_(b.to(dev), b.to(dev), value=0.1).addcdiv_(b.to(dev), c.to(dev), value=-0.01).add_(1e-8)
a.mul_(0.9).addcmul_(b, b, value=0.1).addcdiv_(b, c, value=-0.01).add_(1e-8)
print('inplace', same(ad, a, 1e-6) or 'ok')
)";

inline const char* const kOpChecksExpected =
    "embedding ok\nembedding_padding_idx ok\nposition_embedding ok\nindex_select ok\nindex ok\nindex_dim1 ok\nindex_put ok\nindex_put_no_grad ok\n"
    "arange ok\ngelu ok\ngelu_tanh ok\n"
    "layer_norm ok\nlayer_norm_plain ok\nsoftmax ok\nlog_softmax ok\ncross_entropy ok\ncross_entropy_sum ok\n"
    "cross_entropy_none ok\ncross_entropy_weight ok\ncross_entropy_ignore ok\nnll_loss ok\nselect ok\nslice ok\nqkv_heads ok\n"
    "attention ok\nresidual_norm ok\ncat ok\nstack ok\nflatten_cat ok\npad ok\nmean_loss ok\nargmax ok\nargmax_all ok\nmax_dim ok\ngather ok\n"
    "maximum ok\n"
    "dropout True\ndropout_grad True\ndropout_module True\nbatch_norm_train True\nbatch_norm_eval True\nadamw ok\ninplace ok\n";

// The seed tutorial's model (examples/seeds/001_14_distributed_compiled_training.py), smaller.
inline const char* const kModel = R"(import math
import torch
import torch.nn as nn
import torch.nn.functional as F
dev = 'DEV'

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.1):
        super().__init__()
        self.d_model, self.num_heads, self.d_k = d_model, num_heads, d_model // num_heads
        self.qkv_proj = nn.Linear(d_model, d_model * 3)
        self.out_proj = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)
        self.scale = self.d_k ** -0.5
    def forward(self, x):
        batch_size, seq_len, _ = x.shape
        qkv = self.qkv_proj(x).reshape(batch_size, seq_len, 3, self.num_heads, self.d_k).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        attn_weights = self.dropout(F.softmax(scores, dim=-1))
        attn_output = torch.matmul(attn_weights, v).transpose(1, 2).contiguous()
        return self.out_proj(attn_output.reshape(batch_size, seq_len, self.d_model))

class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1):
        super().__init__()
        self.attention = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Dropout(dropout), nn.Linear(d_ff, d_model),
                                          nn.Dropout(dropout))
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
    def forward(self, x):
        x = self.norm1(x + self.dropout(self.attention(x)))
        return self.norm2(x + self.feed_forward(x))

class MiniTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_seq_len, dropout, num_classes=10):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(max_seq_len, d_model)
        self.transformer_blocks = nn.ModuleList([TransformerBlock(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)])
        self.classifier = nn.Linear(d_model, num_classes)
        self.dropout = nn.Dropout(dropout)
    def forward(self, input_ids):
        batch_size, seq_len = input_ids.shape
        positions = torch.arange(seq_len, device=input_ids.device).unsqueeze(0).expand(batch_size, -1)
        x = self.dropout(self.token_embedding(input_ids) + self.position_embedding(positions))
        for block in self.transformer_blocks:
            x = block(x)
        return self.classifier(x[:, 0, :])

torch.manual_seed(0)
data = [(torch.randint(0, 100, (4, 16)), torch.randint(0, 10, (4,))) for _ in range(3)]

def train(device, dropout, compiled=False):
    torch.manual_seed(1)
    model = MiniTransformer(vocab_size=100, d_model=64, num_heads=4, num_layers=2, d_ff=128, max_seq_len=16, dropout=dropout).to(device)
    model.train()
    step_model = torch.compile(model) if compiled else model
    # eps 1e-6: a gradient that is zero up to rounding (the key projection's bias: softmax ignores
    # a shift of a whole row) would otherwise be scaled to a full step of either sign by Adam.
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-6)
    losses = []
    for inputs, labels in data:
        loss = F.cross_entropy(step_model(inputs.to(device)), labels.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [(n, p.detach().cpu()) for n, p in model.named_parameters()], [p.device.type for p in model.parameters()]
)";

inline const char* const kTrainSame = R"(
want, want_params, _ = train('cpu', 0.0)
got, got_params, where = train(dev, 0.0, COMPILED)
print('devices', set(where) == {dev})
print('losses', all(abs(a - b) < 1e-4 for a, b in zip(got, want)) or (got, want))
bad = [n + ' ' + str((a - b).abs().max().item()) for (n, a), (_, b) in zip(got_params, want_params) if not torch.allclose(a, b, rtol=1e-4, atol=1e-4)]
print('params', bad or True)
print('trained', want[0] != want[-1] and all(l == l and abs(l) < float("inf") for l in want))
)";

inline std::string trainScript(bool compiled, const std::string& dev = "cuda") {
  std::string tail = kTrainSame;
  tail.replace(tail.find("COMPILED"), 8, compiled ? "True" : "False");
  return onDevice(std::string(kModel) + tail, dev);
}

// A compiled Conv -> BatchNorm (training) -> ReLU -> Linear model, trained three steps on the
// CPU and on DEV (seed 001_04's model, smaller): the compiled frame mutates BatchNorm's running
// stats and num_batches_tracked, written back into the module's buffers after each call (on the
// GPU that write-back read device memory on the host). cuDNN convolutions use TF32 as PyTorch's
// default, hence the looser tolerance.
inline const char* const kConvBnTrain = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
dev = 'DEV'
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8 * 8 * 8, 10)
    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        return self.fc(x.view(x.size(0), -1))
def train(device):
    torch.manual_seed(1)
    m = M().to(device)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    f = torch.compile(m)
    torch.manual_seed(2)
    losses = []
    for _ in range(3):
        x = torch.randn(4, 3, 8, 8).to(device)
        y = torch.randint(0, 10, (4,)).to(device)
        opt.zero_grad()
        loss = F.cross_entropy(f(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return m, losses
mc, lc = train('cpu')
md, ld = train(dev)
print('losses', all(abs(a - b) < 1e-2 for a, b in zip(lc, ld)) or (ld, lc))
print('running stats', torch.allclose(md.bn.running_mean.cpu(), mc.bn.running_mean, atol=1e-2) and torch.allclose(md.bn.running_var.cpu(), mc.bn.running_var, atol=1e-2), int(md.bn.num_batches_tracked.item()), md.bn.running_mean.device.type == dev)
)";

inline std::string dropoutTrainScript(const std::string& dev = "cuda") {
  return onDevice(std::string(kModel) + R"(
want, want_params, _ = train('cpu', 0.1)
got, got_params, where = train(dev, 0.1)
print('devices', set(where) == {dev})
print('losses', len(got) == 3 and all(l == l and abs(l) < float("inf") for l in got))
print('params', all(a.shape == b.shape and bool(torch.isfinite(a).all()) for (_, a), (_, b) in zip(got_params, want_params)))
print('trained', got[0] != got[-1])
)",
                  dev);
}

}  // namespace kiln::test
