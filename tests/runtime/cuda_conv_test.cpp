// Convolutions on the GPU through cuDNN (runtime/cuda_conv.cpp; ctest label `gpu`, each test
// skips, saying why, where there is no GPU): forward, grad input, grad weight and grad bias of
// conv1d / conv2d with stride, padding, dilation, groups and bias against Kiln's CPU
// convolution; transposed convolution, float64 and float16; a small CNN trained on cuda as on the
// CPU; a compiled CNN on cuda (conv as an extern cuDNN call, the rest as generated kernels)
// against eager on cuda. TF32 is turned off (the script sets torch.backends.cudnn.allow_tf32 =
// False) where values are compared with the CPU's float32, and left at PyTorch's default (on) in
// one check with a TF32 tolerance.
#include "engine/runtime/cuda_conv.h"
#include "engine/runtime/cuda_runtime.h"
#include "tests/runtime/require_gpu.h"
#include "tests/runtime/run_py.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln {
namespace {

using test::runPy;

// The script with TF32 turned off the way a PyTorch script does it (every script starts from
// PyTorch's default, allow_tf32 = True; the assignment reaches cuDNN through device_api.cpp).
std::string noTf32(const std::string& script) { return "import torch\ntorch.backends.cudnn.allow_tf32 = False\n" + script; }

// Each case: conv1d/conv2d on the CPU and on cuda with the same values, then the gradients of
// (y * r).sum() with respect to input, weight and bias. Prints the case and one flag per value.
const char* kGradChecks = R"(import torch
import torch.nn.functional as F
torch.manual_seed(0)
TOL = __TOL__
def close(r, e):
    return r.device.type == 'cuda' and tuple(r.shape) == tuple(e.shape) and torch.allclose(r.cpu(), e, rtol=TOL, atol=TOL)
cases = [
    ('conv2d', (2, 3, 9, 9), (5, 3, 3, 3), dict(stride=1, padding=1), True),
    ('stride_padding', (2, 4, 11, 10), (6, 4, 3, 2), dict(stride=(2, 3), padding=(1, 0)), True),
    ('dilation', (1, 3, 12, 12), (4, 3, 3, 3), dict(padding=2, dilation=2), False),
    ('groups', (2, 6, 8, 8), (9, 2, 3, 3), dict(stride=2, padding=1, groups=3), True),
    ('depthwise', (2, 4, 7, 7), (4, 1, 5, 5), dict(padding=2, groups=4), True),
    ('pointwise', (3, 8, 5, 5), (4, 8, 1, 1), dict(), True),
    ('uneven_stride', (2, 3, 11, 11), (4, 3, 3, 3), dict(stride=3, padding=1), True),
    ('conv1d', (2, 4, 20), (6, 2, 5), dict(stride=2, padding=3, dilation=2, groups=2), True),
    ('conv1d_plain', (3, 5, 16), (7, 5, 3), dict(), False),
]
for name, xs, ws, kw, has_bias in cases:
    x = torch.randn(*xs)
    w = torch.randn(*ws) * 0.3
    b = torch.randn(ws[0])
    conv = F.conv1d if len(xs) == 3 else F.conv2d
    xc, wc, bc = x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()
    xg, wg, bg = x.cuda().requires_grad_(), w.cuda().requires_grad_(), b.cuda().requires_grad_()
    y = conv(xc, wc, bc if has_bias else None, **kw)
    yg = conv(xg, wg, bg if has_bias else None, **kw)
    r = torch.randn(*y.shape)
    (y * r).sum().backward()
    (yg * r.cuda()).sum().backward()
    flags = [close(yg, y), close(xg.grad, xc.grad), close(wg.grad, wc.grad)]
    if has_bias:
        flags.append(close(bg.grad, bc.grad))
    print(name, flags)
)";

const char* kGradChecksExpected =
    "conv2d [True, True, True, True]\nstride_padding [True, True, True, True]\ndilation [True, True, True]\n"
    "groups [True, True, True, True]\ndepthwise [True, True, True, True]\npointwise [True, True, True, True]\n"
    "uneven_stride [True, True, True, True]\nconv1d [True, True, True, True]\nconv1d_plain [True, True, True]\n";

std::string withTol(std::string script, const char* tol) {
  const std::string key = "__TOL__";
  script.replace(script.find(key), key.size(), tol);
  return script;
}

TEST(CudaConv, ForwardAndGradientsMatchTheCpu) {
  REQUIRE_GPU();
  test::ScriptOut o = runPy("cuda_conv_grads", noTf32(withTol(kGradChecks, "2e-4")));
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, kGradChecksExpected);
  EXPECT_FALSE(runtime::cuda::cudnnAllowTf32());  // the script's assignment reached the runtime
}

// PyTorch's default: torch.backends.cudnn.allow_tf32 = True, so float32 convolutions may run on
// TF32 tensor cores (10-bit mantissas): the same checks within a TF32 tolerance.
TEST(CudaConv, Tf32ByDefaultStaysWithinTf32Tolerance) {
  REQUIRE_GPU();
  runtime::cuda::setCudnnAllowTf32(false);  // as an earlier script may have left it: a new script starts from True
  test::ScriptOut o = runPy("cuda_conv_tf32", withTol(kGradChecks, "5e-2"));
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, kGradChecksExpected);
  EXPECT_TRUE(runtime::cuda::cudnnAllowTf32());
}

// Transposed convolution (cudnnConvolutionBackwardData) with output_padding and groups, float64
// forward and backward, float16 forward (float accumulation) against the float32 CPU values.
TEST(CudaConv, TransposedDoubleAndHalfConvolutions) {
  REQUIRE_GPU();
  test::ScriptOut o = runPy("cuda_conv_dtypes", noTf32(R"(import torch
import torch.nn.functional as F
torch.manual_seed(1)
def close(r, e, tol):
    return r.device.type == 'cuda' and tuple(r.shape) == tuple(e.shape) and torch.allclose(r.cpu().to(e.dtype), e, rtol=tol, atol=tol)
x = torch.randn(2, 4, 5, 6)
w = torch.randn(4, 3, 3, 3) * 0.3
b = torch.randn(6)
e = F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2)
print('transposed', close(F.conv_transpose2d(x.cuda(), w.cuda(), b.cuda(), stride=2, padding=1, output_padding=1, groups=2), e, 2e-4))
x1 = torch.randn(2, 3, 9)
w1 = torch.randn(3, 2, 4) * 0.3
print('transposed1d', close(F.conv_transpose1d(x1.cuda(), w1.cuda(), stride=3, dilation=2), F.conv_transpose1d(x1, w1, stride=3, dilation=2), 2e-4))
xd = torch.randn(2, 3, 8, 8, dtype=torch.float64)
wd = torch.randn(5, 3, 3, 3, dtype=torch.float64)
xc, wc = xd.clone().requires_grad_(), wd.clone().requires_grad_()
xg, wg = xd.cuda().requires_grad_(), wd.cuda().requires_grad_()
F.conv2d(xc, wc, padding=1, stride=2).pow(2).sum().backward()
yg = F.conv2d(xg, wg, padding=1, stride=2)
yg.pow(2).sum().backward()
print('float64', yg.dtype, close(yg, F.conv2d(xd, wd, padding=1, stride=2), 1e-10), close(xg.grad, xc.grad, 1e-9), close(wg.grad, wc.grad, 1e-9))
xh = torch.randn(2, 8, 10, 10)
wh = torch.randn(16, 8, 3, 3) * 0.1
bh = torch.randn(16)
yh = F.conv2d(xh.half().cuda(), wh.half().cuda(), bh.half().cuda(), padding=1)
print('float16', yh.dtype, close(yh, F.conv2d(xh.half().float(), wh.half().float(), bh.half().float(), padding=1), 2e-2))
)"));
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, "transposed True\ntransposed1d True\nfloat64 torch.float64 True True True\nfloat16 torch.float16 True\n");
}

// Conv -> BatchNorm -> ReLU -> grouped strided conv -> ReLU -> Linear (the seed CNNs' pattern)
// trained with SGD for a few steps on cuda and on the CPU: the same losses and parameters.
const char* kCnn = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2)
        self.fc = nn.Linear(16 * 6 * 6, 10)
    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.fc(x.view(x.size(0), -1))
)";

TEST(CudaConv, CnnTrainsOnTheGpuAsOnTheCpu) {
  REQUIRE_GPU();
  test::ScriptOut o = runPy("cuda_conv_train", noTf32(std::string(kCnn) + R"(
torch.manual_seed(0)
cpu = Net()
gpu = Net()
gpu.load_state_dict(cpu.state_dict())
gpu = gpu.to('cuda')
x = torch.randn(8, 3, 12, 12)
t = torch.randint(0, 10, (8,))
xg, tg = x.cuda(), t.cuda()
oc = torch.optim.SGD(cpu.parameters(), lr=0.05, momentum=0.9)
og = torch.optim.SGD(gpu.parameters(), lr=0.05, momentum=0.9)
lc, lg = [], []
for step in range(4):
    oc.zero_grad()
    og.zero_grad()
    a = F.cross_entropy(cpu(x), t)
    b = F.cross_entropy(gpu(xg), tg)
    a.backward()
    b.backward()
    oc.step()
    og.step()
    lc.append(a.item())
    lg.append(b.item())
print('devices', all(p.device.type == 'cuda' for p in gpu.parameters()))
print('losses', all(abs(p - q) < 1e-4 for p, q in zip(lc, lg)))
sd = gpu.state_dict()
print('params', all(torch.allclose(sd[k].cpu().float(), v.float(), rtol=1e-3, atol=1e-4) for k, v in cpu.state_dict().items()))
print('trained', lg[-1] < lg[0])
)"));
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, "devices True\nlosses True\nparams True\ntrained True\n");
}

// Inference with parameters that do not require grad: the compiled graph runs as CUDA kernels
// (no "runs op by op" note on stderr), its convolutions as extern calls to the same cuDNN op
// eager uses, and gives eager's values; both agree with the CPU.
TEST(CudaConv, CompiledCnnOnTheGpuMatchesEager) {
  REQUIRE_GPU();
  testing::internal::CaptureStderr();
  test::ScriptOut o = runPy("cuda_conv_compiled", noTf32(std::string(kCnn) + R"(
torch.manual_seed(0)
net = Net().eval()
for p in net.parameters():
    p.requires_grad_(False)
x = torch.randn(4, 3, 12, 12)
cpu = net(x)
net = net.to('cuda')
xg = x.cuda()
eager = net(xg)
compiled = torch.compile(net)
c1 = compiled(xg)
c2 = compiled(xg)
print('device', c1.device)
print('compiled_vs_eager', torch.allclose(c1.cpu(), eager.cpu(), rtol=1e-4, atol=1e-4), torch.allclose(c2.cpu(), c1.cpu()))
print('gpu_vs_cpu', torch.allclose(eager.cpu(), cpu, rtol=1e-4, atol=1e-4))
)"),
                            false);
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed << "\nstderr:\n" << err;
  EXPECT_EQ(o.printed, "device cuda:0\ncompiled_vs_eager True True\ngpu_vs_cpu True\n");
  EXPECT_EQ(err.find("runs op by op on the GPU"), std::string::npos) << err;
}

}  // namespace
}  // namespace kiln
