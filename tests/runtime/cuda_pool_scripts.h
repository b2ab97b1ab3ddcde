// The pooling scripts of tests/runtime/cuda_pool_test.cpp (label gpu), shared with
// cuda_eager_ops_test.cpp, which runs them with the CPU as the device under test (test::onDevice
// with "cpu") so a script error shows up without a GPU.
#pragma once

#include <string>

namespace kiln::test {

// Each case: f on a CPU tensor and on a copy on 'DEV', every result compared (max values and
// indices exactly, NaNs where the CPU has them), then the gradients of (y * r).sum() for fixed
// random r. Average pooling allows 1e-6 (the kernels add in the CPU's order, so it is normally
// exact); max pooling's gradient where windows overlap is added with atomics in the GPU's order.
inline const char* const kPoolChecks = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
dev = 'DEV'
torch.manual_seed(0)
def diff(a, b, tol):
    if a.device.type != dev or a.shape != b.shape or a.dtype != b.dtype:
        return 'got ' + str(a.device) + ' ' + str(a.dtype) + ' ' + str(tuple(a.shape)) + ', want ' + str(b.dtype) + ' ' + str(tuple(b.shape))
    a = a.cpu()
    if not a.is_floating_point():
        return '' if torch.equal(a, b) else 'values differ'
    na, nb = torch.isnan(a), torch.isnan(b)
    if not torch.equal(na, nb):
        return 'NaNs differ'
    a, b = a.masked_fill(na, 0.0), b.masked_fill(nb, 0.0)
    if torch.equal(a, b) or (tol > 0 and torch.allclose(a, b, rtol=tol, atol=tol)):
        return ''
    return 'max difference ' + str((a - b).abs().max().item())
def check(name, f, x, tol=0.0, gtol=1e-6, grad=True):
    xc = x.detach().clone().requires_grad_(grad)
    xd = x.detach().clone().to(dev).requires_grad_(grad)
    want, got = f(xc), f(xd)
    if not isinstance(want, tuple):
        want, got = (want,), (got,)
    why = ''
    for i in range(len(want)):
        why = why or diff(got[i], want[i], tol)
    if not why and grad:
        r = torch.randn(want[0].shape, dtype=want[0].dtype)
        (want[0] * r).sum().backward()
        (got[0] * r.to(dev)).sum().backward()
        if xd.grad is None:
            why = 'no gradient'
        else:
            why = diff(xd.grad, xc.grad, gtol)
            why = 'grad: ' + why if why else ''
    print(name, 'ok' if not why else why)
x = torch.randn(2, 3, 9, 10)
ties = torch.randint(0, 3, (2, 3, 9, 10)).float()
nans = torch.randn(2, 3, 9, 10)
nans[0, 1, 2, 3] = float('nan')
nans[1, 2, 4, 4] = float('nan')
nans[1, 2, 4, 5] = float('nan')
check('max_pool', lambda a: F.max_pool2d(a, 2), x)
check('max_pool_indices', lambda a: F.max_pool2d(a, 3, 2, 1, return_indices=True), x)
check('max_pool_ties_overlapping', lambda a: F.max_pool2d(a, 3, 1, 1, return_indices=True), ties)
check('max_pool_ties', lambda a: F.max_pool2d(a, 2, return_indices=True), ties)
check('max_pool_nan', lambda a: F.max_pool2d(a, 2, return_indices=True), nans)
check('max_pool_ceil_dilation', lambda a: F.max_pool2d(a, (3, 2), (2, 3), (1, 1), dilation=(2, 1), ceil_mode=True, return_indices=True), x)
check('max_pool_transposed_input', lambda a: F.max_pool2d(a.transpose(2, 3), 2, return_indices=True), x)
check('max_pool_channels_last', lambda a: F.max_pool2d(a.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2), 3, 2), x)
check('max_pool_unbatched', lambda a: F.max_pool2d(a[0], 2, 1, return_indices=True), x)
check('max_pool_float64', lambda a: F.max_pool2d(a, 3, 2, 1), x.double())
check('max_pool_int64', lambda a: F.max_pool2d(a, 2, return_indices=True), torch.randint(-5, 5, (2, 3, 6, 6)), grad=False)
check('max_pool_module_ceil', nn.MaxPool2d(2, ceil_mode=True), x)
check('avg_pool', lambda a: F.avg_pool2d(a, 2), x, 1e-6)
check('avg_pool_padding', lambda a: F.avg_pool2d(a, 3, 2, 1), x, 1e-6)
check('avg_pool_exclude_pad_ceil', lambda a: F.avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False), x, 1e-6)
check('avg_pool_divisor_override', lambda a: F.avg_pool2d(a, (2, 3), (1, 2), (1, 1), divisor_override=5), x, 1e-6)
check('avg_pool_transposed_input', lambda a: F.avg_pool2d(a.transpose(2, 3), 3, 2, 1, ceil_mode=True), x, 1e-6)
check('avg_pool_unbatched', lambda a: F.avg_pool2d(a[1], 2, 1), x, 1e-6)
check('avg_pool_float64', lambda a: F.avg_pool2d(a, 3, 2, 1, count_include_pad=False), x.double(), 1e-12, 1e-12)
check('adaptive_avg_pool', lambda a: F.adaptive_avg_pool2d(a, (4, 3)), x, 1e-6)
check('adaptive_avg_pool_larger', lambda a: F.adaptive_avg_pool2d(a, (11, 13)), x, 1e-6)
check('adaptive_avg_pool_unbatched', lambda a: F.adaptive_avg_pool2d(a[1], 5), x, 1e-6)
check('adaptive_avg_pool_1x1', lambda a: F.adaptive_avg_pool2d(a, 1), x, 1e-6)
check('adaptive_avg_pool_float64', lambda a: F.adaptive_avg_pool2d(a.transpose(2, 3), (3, 4)), x.double(), 1e-12, 1e-12)
)";

inline const char* const kPoolChecksExpected =
    "max_pool ok\nmax_pool_indices ok\nmax_pool_ties_overlapping ok\nmax_pool_ties ok\nmax_pool_nan ok\nmax_pool_ceil_dilation ok\n"
    "max_pool_transposed_input ok\nmax_pool_channels_last ok\nmax_pool_unbatched ok\nmax_pool_float64 ok\nmax_pool_int64 ok\n"
    "max_pool_module_ceil ok\navg_pool ok\navg_pool_padding ok\navg_pool_exclude_pad_ceil ok\navg_pool_divisor_override ok\n"
    "avg_pool_transposed_input ok\navg_pool_unbatched ok\navg_pool_float64 ok\nadaptive_avg_pool ok\n"
    "adaptive_avg_pool_larger ok\nadaptive_avg_pool_unbatched ok\nadaptive_avg_pool_1x1 ok\nadaptive_avg_pool_float64 ok\n";

// A CNN with max, average and adaptive pooling (ReLU's zeros make ties in the max windows): one
// SGD step eager on the CPU, eager on 'DEV' and compiled on 'DEV' from the same weights; the
// losses, gradients and updated weights must agree. Then inference compiled on 'DEV' (weights
// without grad: one compiled graph, the pooling ops as extern calls to the eager device kernels)
// against eager.
inline const char* const kPoolCnn = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
dev = 'DEV'
torch.backends.cudnn.allow_tf32 = False
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool2 = nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)
        self.pool3 = nn.AvgPool2d(2, stride=1, padding=1, count_include_pad=False)
        self.gap = nn.AdaptiveAvgPool2d((2, 3))
        self.fc = nn.Linear(16 * 2 * 3, 10)
    def forward(self, x):
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool3(self.pool2(F.relu(self.conv2(x))))
        return self.fc(self.gap(x).flatten(1))
torch.manual_seed(0)
ref = Net()
x = torch.randn(4, 3, 12, 12)
t = torch.randint(0, 10, (4,))
def copy_to(d):
    n = Net()
    n.load_state_dict(ref.state_dict())
    return n.to(d)
def step(net, run, x, t):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    opt.zero_grad()
    loss = F.cross_entropy(run(x), t)
    loss.backward()
    grads = {k: p.grad.detach().cpu() for k, p in net.named_parameters()}
    opt.step()
    return loss.item(), grads
cpu, eager, comp = copy_to('cpu'), copy_to(dev), copy_to(dev)
lc, gc = step(cpu, cpu, x, t)
le, ge = step(eager, eager, x.to(dev), t.to(dev))
lk, gk = step(comp, torch.compile(comp), x.to(dev), t.to(dev))
def agree(loss, grads, net):
    sd = net.state_dict()
    return (abs(loss - lc) < 1e-5 and all(torch.allclose(grads[k], gc[k], rtol=1e-4, atol=1e-5) for k in gc)
            and all(torch.allclose(sd[k].cpu(), v, rtol=1e-4, atol=1e-5) for k, v in cpu.state_dict().items()))
print('devices', all(p.device.type == dev for p in eager.parameters()), all(p.device.type == dev for p in comp.parameters()))
print('eager', agree(le, ge, eager))
print('compiled', agree(lk, gk, comp))
net = copy_to(dev).eval()
for p in net.parameters():
    p.requires_grad_(False)
xd = x.to(dev)
want = net(xd)
compiled = torch.compile(net)
c1 = compiled(xd)
c2 = compiled(xd)
print('inference', c1.device.type == dev, torch.allclose(c1.cpu(), want.cpu(), rtol=1e-5, atol=1e-6), torch.equal(c1.cpu(), c2.cpu()))
)";

inline const char* const kPoolCnnExpected = "devices True True\neager True\ncompiled True\ninference True True True\n";

}  // namespace kiln::test
