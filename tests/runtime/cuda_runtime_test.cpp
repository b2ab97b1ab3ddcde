// The GPU runtime on a GPU (ctest label `gpu`; every test skips, saying why, where there is
// none): CUDA tensors' storage from the caching allocator and its figures, copies both ways,
// eager pointwise ops through kernel IR -> CUDA against the CPU's results, the clear errors (an op
// without a CUDA kernel, mixed devices) and TENSOR_MATCH guarding on the device.
#include "engine/runtime/cuda_runtime.h"
#include "engine/session/events.h"
#include "engine/tensor/tensor.h"
#include "tests/runtime/require_gpu.h"
#include "tests/runtime/run_py.h"
#include "tests/support/corpus.h"
#include "tests/support/dynamo_parity.h"
#include "tests/support/golden.h"
#include "tests/support/outs_compare.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kiln {
namespace {

using Out = test::ScriptOut;
using test::runPy;

TEST(CudaRuntime, CopiesRoundTripAndTheAllocatorCachesBlocks) {
  REQUIRE_GPU();
  runtime::cuda::lazyInit();
  auto& alloc = runtime::cuda::allocator();
  tensor::Tensor h = tensor::Tensor::full({1000}, 0, ir::DType::Float32);
  for (int i = 0; i < 1000; ++i) h.storeAt(i, i * 0.5);
  const auto before = alloc.stats();
  {
    tensor::Tensor d = h.toDevice(tensor::Device::cuda(0));
    EXPECT_TRUE(d.device().isCuda());
    EXPECT_THROW(d.data(), tensor::TorchError);                   // the host never reads device memory
    EXPECT_EQ(alloc.stats().allocated, before.allocated + 4096);  // 4000 bytes: the 4 KiB class
    tensor::Tensor back = d.toDevice(tensor::Device::cpu());
    EXPECT_EQ(back.toDoubles(), h.toDoubles());
  }
  EXPECT_EQ(alloc.stats().allocated, before.allocated);
  const auto mid = alloc.stats();
  tensor::Tensor again = h.toDevice(tensor::Device::cuda(0));  // the freed block comes back
  EXPECT_EQ(alloc.stats().driverAllocations, mid.driverAllocations);
  EXPECT_EQ(alloc.stats().cacheHits, mid.cacheHits + 1);
  // A strided view comes back as its elements.
  tensor::Tensor m = tensor::Tensor::full({4, 6}, 0, ir::DType::Float32);
  for (int i = 0; i < 24; ++i) m.storeAt(i, i);
  tensor::Tensor md = m.toDevice(tensor::Device::cuda(0));
  tensor::Tensor col = md.view({4}, {6}, 2);
  EXPECT_EQ(col.toDevice(tensor::Device::cpu()).toDoubles(), (std::vector<double>{2, 8, 14, 20}));
}

TEST(CudaRuntime, ScriptsRunPointwiseOpsOnTheGpu) {
  REQUIRE_GPU();
  Out o = runPy("cuda_pointwise", R"(import torch
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
x = torch.randn(1000, 37)
y = torch.randn(37)
xd, yd = x.to(device), y.cuda()
print(xd.device, xd.is_cuda, repr(xd.device))
for f in [lambda a, b: a * 2 + 1, lambda a, b: torch.relu(a), lambda a, b: a * b, lambda a, b: torch.cos(torch.cos(a)),
          lambda a, b: torch.where(a > 0, a, b), lambda a, b: (a / b).exp()]:
    r = f(xd, yd)
    print(r.device, torch.allclose(r.cpu(), f(x, y), atol=1e-5))
print(torch.ones(2, device='cuda'))
print(torch.cuda.memory_allocated() > 0, torch.cuda.memory_reserved() >= torch.cuda.memory_allocated())
print(torch.cuda.get_device_name() != '', torch.cuda.device_count() >= 1, torch.cuda.current_device())
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
z = xd * 3
end.record()
torch.cuda.synchronize()
print(start.elapsed_time(end) >= 0.0)
m = torch.nn.Linear(4, 2).to(device)
print(m.weight.device, m.weight.is_cuda, isinstance(m.weight, torch.nn.Parameter))
try:
    xd + x
except RuntimeError as e:
    print(e)
print((xd @ xd.t()).device)
)");
  ASSERT_EQ(o.exitCode, 0) << o.error;
  EXPECT_EQ(o.printed,
            "cuda:0 True device(type='cuda', index=0)\n"
            "cuda:0 True\ncuda:0 True\ncuda:0 True\ncuda:0 True\ncuda:0 True\ncuda:0 True\n"
            "tensor([1., 1.], device='cuda:0')\n"
            "True True\n"
            "True True 0\n"
            "True\n"
            "cuda:0 True True\n"
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n"
            "cuda:0\n");
}

// Pointwise kernels take four floats per thread with 128-bit loads and stores where every address
// is 16-byte aligned (codegen/cuda/cuda_source.h); a view that starts one float in is not, and
// the same kernel then loads element by element. Both give the CPU's values, eager and compiled,
// as do rows of 2-D tensors and a broadcast bias.
TEST(CudaRuntime, FourFloatsPerThreadAlignedOrNot) {
  REQUIRE_GPU();
  Out o = runPy("cuda_vector", R"(import torch
x = torch.randn(4 * 4099 + 1)
b = torch.randn(64)
m = torch.randn(300, 64)
xd, bd, md = x.cuda(), b.cuda(), m.cuda()
f = lambda a: torch.relu(a * 2 + 1) - 0.5
g = torch.compile(f)
h = torch.compile(lambda a, c: torch.sigmoid(a + c) * a)
for start in [0, 1, 2, 4]:
    v, vd = x[start:start + 4 * 4096], xd[start:start + 4 * 4096]
    print(start, torch.equal(f(vd).cpu(), f(v)), torch.equal(g(vd).cpu(), f(v)))
print('rows', torch.allclose(h(md, bd).cpu(), torch.sigmoid(m + b) * m, atol=1e-6))
print('offset rows', torch.allclose(h(md[1:], bd).cpu(), torch.sigmoid(m[1:] + b) * m[1:], atol=1e-6))
out = torch.empty(4 * 4096 + 1, device='cuda')
torch.mul(xd[:4 * 4096], 3, out=out[1:])
print('out view', torch.equal(out[1:].cpu(), x[:4 * 4096] * 3))
)",
                false);
  ASSERT_EQ(o.exitCode, 0) << o.error;
  EXPECT_EQ(o.printed, "0 True True\n1 True True\n2 True True\n4 True True\nrows True\noffset rows True\nout view True\n");
}

TEST(CudaRuntime, GuardsIncludeTheDevice) {
  REQUIRE_GPU();
  Out o = runPy("cuda_guards", R"(import torch
@torch.compile
def f(x):
    return x + 1
print(f(torch.ones(3)))
print(f(torch.ones(3, device='cuda')))
print(f(torch.ones(3)))
)",
                false);
  ASSERT_EQ(o.exitCode, 0) << o.error;
  // The CPU entry's TENSOR_MATCH fails on the device, so the CUDA call gets its own entry (run
  // on the GPU); had the guard passed, CPU kernels would have met device memory and raised.
  EXPECT_EQ(o.printed, "tensor([2., 2., 2.])\ntensor([2., 2., 2.], device='cuda:0')\ntensor([2., 2., 2.])\n");
}

// Reductions (block per row, split over the grid), matmuls through cuBLAS, eager autograd,
// in-place updates and a compiled graph, all on the GPU, against the same script's CPU values.
TEST(CudaRuntime, ReductionsMatmulsAutogradAndCompiledGraphsOnTheGpu) {
  REQUIRE_GPU();
  Out o = runPy("cuda_reductions", R"(import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(64, 1000)
w = torch.randn(1000, 300)
b = torch.randn(300)
xd, wd, bd = x.cuda(), w.cuda(), b.cuda()
def close(r, e, tol=1e-4):
    return r.device.type == 'cuda' and torch.allclose(r.cpu(), e, rtol=tol, atol=tol)
checks = [('sum', lambda a: a.sum()), ('sum1', lambda a: a.sum(1)), ('mean0', lambda a: a.mean(0)),
          ('amax', lambda a: a.amax(-1)), ('amin', lambda a: a.amin(0)), ('max', lambda a: a.max()),
          ('softmax', lambda a: torch.softmax(a, -1)), ('log_softmax', lambda a: torch.log_softmax(a, 1)),
          ('layer_norm', lambda a: F.layer_norm(a, (1000,))), ('var', lambda a: a.var(1)),
          ('t_sum', lambda a: a.t().sum(1)), ('big', lambda a: (a.reshape(-1) * 2).sum() / 1000),
          ('keepdim', lambda a: a - a.mean(1, keepdim=True))]
for name, f in checks:
    print(name, close(f(xd), f(x)))
print('mm', close(xd @ wd, x @ w, 1e-3))
print('linear', close(F.linear(xd, wd.t(), bd), F.linear(x, w.t(), b), 1e-3))
print('bmm', close(torch.bmm(xd.view(4, 16, 1000), wd.view(1, 1000, 300).expand(4, 1000, 300)),
                   torch.bmm(x.view(4, 16, 1000), w.view(1, 1000, 300).expand(4, 1000, 300)), 1e-3))
def loss(a, w, b):
    return (F.linear(a, w.t(), b).relu() ** 2).mean()
wc, wg = w.clone().requires_grad_(), wd.clone().requires_grad_()
loss(x, wc, b).backward()
loss(xd, wg, bd).backward()
print('grad', wg.grad.device, close(wg.grad, wc.grad, 1e-3))
y, yd = x.clone(), xd.clone()
y.add_(1); yd.add_(1)
y[0] = 5.0; yd[0] = 5.0
y[:, 1] = y[:, 2]; yd[:, 1] = yd[:, 2]
print('inplace', close(yd, y))
@torch.compile
def g(a, w, b):
    return torch.softmax(a @ w + b, -1).sum(1) + F.layer_norm(a, (1000,)).amax(1)
print('compiled', close(g(xd, wd, bd), g(x, w, b), 1e-3))
)",
                false);
  ASSERT_EQ(o.exitCode, 0) << o.error;
  EXPECT_EQ(o.printed,
            "sum True\nsum1 True\nmean0 True\namax True\namin True\nmax True\nsoftmax True\nlog_softmax True\n"
            "layer_norm True\nvar True\nt_sum True\nbig True\nkeepdim True\nmm True\nlinear True\nbmm True\n"
            "grad cuda:0 True\ninplace True\ncompiled True\n");
}

// A linear layer's addmm adds its 1-d float32 bias in cuBLASLt's epilogue (cuda_blas_lt.h); other
// biases (2-d, broadcast rows, strided, beta != 1, float64) take the copy-then-GEMM path. Every
// shape and layout agrees with the CPU, eager and compiled, TF32 off.
TEST(CudaRuntime, LinearLayersAddTheirBiasInTheGemmEpilogueAsTheCpuDoes) {
  REQUIRE_GPU();
  Out o = runPy("cuda_linear_bias", R"(import torch
import torch.nn.functional as F
torch.manual_seed(0)
def close(r, e, tol=1e-3):
    return r.device.type == 'cuda' and torch.allclose(r.cpu(), e, rtol=tol, atol=tol)
results = []
for m, k, n in [(1024, 1024, 1024), (128, 1024, 10), (3, 5, 7), (1, 64, 1), (7, 1, 3), (5, 0, 4)]:
    x, w, b = torch.randn(m, k), torch.randn(n, k), torch.randn(n)
    xd, wd, bd = x.cuda(), w.cuda(), b.cuda()
    results.append(close(F.linear(xd, wd, bd), F.linear(x, w, b)))
    results.append(close(torch.addmm(bd, xd, wd.t()), torch.addmm(b, x, w.t())))
    results.append(close(torch.addmm(bd, xd.t().contiguous().t(), wd.t(), alpha=0.5), torch.addmm(b, x, w.t(), alpha=0.5)))
print('epilogue', all(results), len(results))
x, w = torch.randn(6, 4), torch.randn(4, 5)
xd, wd = x.cuda(), w.cuda()
for name, bias in [('2d', torch.randn(6, 5)), ('row', torch.randn(1, 5)), ('strided', torch.randn(10)[::2])]:
    print(name, close(torch.addmm(bias.cuda(), xd, wd), torch.addmm(bias, x, w)))
b = torch.randn(5)
print('beta', close(torch.addmm(b.cuda(), xd, wd, beta=0.5), torch.addmm(b, x, w, beta=0.5)))
print('beta0', close(torch.addmm(torch.full((5,), float('nan')).cuda(), xd, wd, beta=0), x @ w))
print('f64', close(torch.addmm(b.double().cuda(), xd.double(), wd.double()), torch.addmm(b.double(), x.double(), w.double())))
lin = torch.nn.Linear(256, 64)
f = torch.compile(lambda a: torch.relu(lin(a)))
a = torch.randn(32, 256)
expected = f(a)
lin.cuda()
print('compiled', close(f(a.cuda()), expected))
)",
                false);
  ASSERT_EQ(o.exitCode, 0) << o.error;
  EXPECT_EQ(o.printed, "epilogue True 18\n2d True\nrow True\nstrided True\nbeta True\nbeta0 True\nf64 True\ncompiled True\n");
}

// Rows held in registers (up to 16 steps of the block: rows of 8192 exactly, 5000 ragged) and
// rows strided over once per nest (20000), compiled and eager, against the CPU's values.
TEST(CudaRuntime, RowReductionsInRegistersAndStridedAgreeWithTheCpu) {
  REQUIRE_GPU();
  Out o = runPy("cuda_rows", R"(import torch
import torch.nn.functional as F
torch.manual_seed(0)
def norm(a):
    return F.layer_norm(a, (a.shape[-1],)) * 2 + 1
def pair(a):
    return torch.softmax(a, -1) + torch.log_softmax(a * 0.5, -1), a.var(-1) + a.amax(-1)
for n in [8192, 5000, 20000]:
    x = torch.randn(24, n) * 3
    xd = x.cuda()
    for name, f in [('softmax', lambda a: torch.softmax(a, -1)), ('norm', norm), ('pair', pair)]:
        want = f(x)
        got = torch.compile(f, dynamic=False)(xd)
        eager = f(xd)
        if not isinstance(want, tuple):
            want, got, eager = (want,), (got,), (eager,)
        ok = all(torch.allclose(g.cpu(), w, rtol=1e-4, atol=1e-5) and torch.allclose(e.cpu(), w, rtol=1e-4, atol=1e-5)
                 for g, w, e in zip(got, want, eager))
        print(n, name, ok)
)",
                false);
  ASSERT_EQ(o.exitCode, 0) << o.error;
  EXPECT_EQ(o.printed,
            "8192 softmax True\n8192 norm True\n8192 pair True\n5000 softmax True\n5000 norm True\n5000 pair True\n"
            "20000 softmax True\n20000 norm True\n20000 pair True\n");
}

// Dynamic shapes on the GPU: the third batch size makes the entry dynamic (automatic dynamic
// shapes), whose kernels run over size symbols read from the device (`ks`), and later sizes
// reuse them; no graph runs op by op, and every call gives the CPU's values.
TEST(CudaRuntime, DynamicShapesRunAsKernelsOverSizeSymbols) {
  REQUIRE_GPU();
  testing::internal::CaptureStderr();
  Out o = runPy("cuda_dynamic", R"(import torch
import torch.nn.functional as F
torch.manual_seed(0)
w = torch.randn(64, 48)
b = torch.randn(48)
wd, bd = w.cuda(), b.cuda()
def f(x, w, b):
    h = F.relu(x @ w + b)
    return torch.softmax(h * 2.0, -1) + F.layer_norm(h, (48,)), (h - h.mean(0)).sum(0)
g = torch.compile(f)
for n in [8, 16, 33, 100, 7]:
    x = torch.randn(n, 64)
    got, want = g(x.cuda(), wd, bd), f(x, w, b)
    print(n, all(torch.allclose(a.cpu(), e, rtol=1e-4, atol=1e-4) for a, e in zip(got, want)), got[0].device)
)",
                false);
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nstderr:\n" << err;
  EXPECT_EQ(o.printed, "8 True cuda:0\n16 True cuda:0\n33 True cuda:0\n100 True cuda:0\n7 True cuda:0\n");
  EXPECT_EQ(err.find("runs op by op on the GPU"), std::string::npos) << err;
}

// Compiled in-place updates of inputs on the GPU: the kernel computing the new value writes it
// into the input where nothing else reads the old one (y.copy_(x), p.add_(g * lr), running
// stats), and into a buffer of its own otherwise (the input read through a transpose, read
// again later, or passed twice); every case gives the CPU's values, eagerly computed.
TEST(CudaRuntime, CompiledInPlaceUpdatesOfInputsAgreeWithTheCpu) {
  REQUIRE_GPU();
  Out o = runPy("cuda_inplace", R"(import torch
torch.manual_seed(0)
def copy_into(x, y):
    return y.copy_(x)
def sgd(p, g):
    p.add_(g, alpha=-0.1)
    return p.sum()
def transposed(y):
    return y.copy_(y.t() * 2)
def read_later(y, x):
    y.mul_(2)
    return y + x
def twice(a, b):
    a.add_(b)
    return a
cases = [('copy', copy_into, lambda: [torch.randn(1000), torch.zeros(1000)]),
         ('sgd', sgd, lambda: [torch.randn(64, 32), torch.randn(64, 32)]),
         ('transposed', transposed, lambda: [torch.randn(16, 16)]),
         ('read_later', read_later, lambda: [torch.randn(256), torch.randn(256)])]
for name, f, make in cases:
    g = torch.compile(f)
    ok = True
    for _ in range(3):
        xs = make()
        xd = [x.cuda() for x in xs]
        want, got = f(*xs), g(*xd)
        ok = ok and torch.allclose(got.cpu(), want, atol=1e-5) and all(torch.allclose(a.cpu(), b, atol=1e-5) for a, b in zip(xd, xs))
    print(name, ok)
a = torch.randn(8)
ad = a.cuda()
g = torch.compile(twice)
print('twice', torch.allclose(g(ad, ad).cpu(), twice(a, a)), torch.allclose(ad.cpu(), a))
bn = torch.nn.BatchNorm1d(32)
bnd = torch.nn.BatchNorm1d(32).cuda()
gb = torch.compile(bnd)
for _ in range(3):
    x = torch.randn(16, 32)
    y, yd = bn(x), gb(x.cuda())
print('batchnorm', torch.allclose(yd.cpu(), y, atol=1e-5), torch.allclose(bnd.running_mean.cpu(), bn.running_mean, atol=1e-6),
      torch.allclose(bnd.running_var.cpu(), bn.running_var, atol=1e-6))
)",
                false);
  ASSERT_EQ(o.exitCode, 0) << o.error;
  EXPECT_EQ(o.printed, "copy True\nsgd True\ntransposed True\nread_later True\ntwice True True\nbatchnorm True True True\n");
}

// A compiled graph whose kernel only copies one contiguous buffer into another of its dtype
// (y.copy_(x), x.clone()) runs it as a device memcpy, with no NVRTC compile, and its wrapper says
// so; a copy that converts or reads through strides still launches its generated kernel.
TEST(CudaRuntime, PlainCopiesRunAsDeviceMemcpyOthersAsKernels) {
  REQUIRE_GPU();
  struct Wrappers : session::NullSink {
    std::vector<std::string> texts;
    void wrapper(const session::WrapperEvent& e) override { texts.push_back(e.text); }
  } sink;
  const test::ScriptOut o = test::runPy("cuda_plain_copy", R"(import torch
x = torch.randn(3000, device='cuda')
y = torch.zeros(3000, device='cuda')
@torch.compile
def copy_into(x, y):
    return y.copy_(x)
@torch.compile
def cloned(x):
    return x.clone()
@torch.compile
def to_double(x):
    return x.to(torch.float64)
@torch.compile
def transposed(m):
    return m.t().contiguous()
m = torch.randn(40, 30, device='cuda')
print(torch.equal(copy_into(x, y), x), torch.equal(y, x), torch.equal(cloned(x), x))
print(torch.equal(to_double(x).cpu(), x.cpu().double()), torch.equal(transposed(m).cpu(), m.cpu().t()))
)",
                                        false, sink);
  ASSERT_EQ(o.exitCode, 0) << o.error;
  EXPECT_EQ(o.printed, "True True True\nTrue True\n");
  ASSERT_EQ(sink.texts.size(), 4u);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_NE(sink.texts[i].find("a plain copy: cuMemcpyDtoDAsync of 12000 bytes"), std::string::npos) << sink.texts[i];
  for (size_t i = 2; i < 4; ++i) {
    EXPECT_EQ(sink.texts[i].find("cuMemcpyDtoDAsync"), std::string::npos) << sink.texts[i];
    EXPECT_NE(sink.texts[i].find(".run(...)  # grid"), std::string::npos) << sink.texts[i];
  }
}

// The public corpus with every tensor on the GPU (kiln run --default-device cuda), compiled:
// each program gives the oracle's outputs or fails saying why; none gives other numbers.
TEST(CudaCorpus, EveryPublicProgramOnTheGpuMatchesTheOracleOrRaises) {
  REQUIRE_GPU();
  int passed = 0, raised = 0;
  std::string failures;
  for (const std::string& name : test::corpusPrograms()) {
    session::NullSink sink;
    std::ostringstream out;
    driver::RunOptions ro;
    ro.scriptPath = test::corpusPath("public/" + name + ".py");
    ro.defaultDevice = "cuda";
    // cuDNN runs float32 convolutions in TF32 by default (torch.backends.cudnn.allow_tf32, in
    // PyTorch as here): ~1e-3 relative per convolution against the oracle's CPU run, compounding
    // over a training loop's steps (seed_training_loop_cnn: 1.8e-2 after its steps on the H100).
    // A program with convolutions runs with TF32 off, as a user comparing with the CPU would, and
    // must then match as closely as the others; CudaConv tests the TF32 default itself.
    const std::string script = test::readFile(ro.scriptPath);
    const bool convolves = script.find("Conv") != std::string::npos || script.find("conv2d") != std::string::npos;
    if (convolves) {
      const std::filesystem::path copy = std::filesystem::temp_directory_path() / ("kiln_fp32_" + name + ".py");
      std::ofstream(copy) << "import torch\ntorch.backends.cudnn.allow_tf32 = False\n" << script;
      ro.scriptPath = copy.string();
    }
    driver::RunResult r = driver::runScript(ro, sink, out);
    if (r.exitCode != 0) {
      ++raised;
      std::cout << "[ RAISED   ] " << name << ": " << r.error.substr(r.error.rfind('\n', r.error.size() - 2) + 1);
      continue;
    }
    // What the compiled run must give: the eager outputs, or the oracle's compiled error.
    const nlohmann::json expected =
        test::expectedCompiledOuts(test::loadCorpusJson("oracle/" + name + ".json"), test::loadCorpusJson("oracle/" + name + ".outs.json"));
    const std::string diff = test::compareOuts(nlohmann::json::parse(r.outputsJson), expected, 1e-3);
    if (diff.empty()) {
      ++passed;
      std::cout << "[ MATCHES  ] " << name << (convolves ? " (convolutions: cuDNN TF32 off)" : "") << "\n";
    } else {
      failures += name + ": " + diff + "\n";
    }
  }
  std::cout << "[ GPU      ] corpus on cuda: " << passed << " match the oracle, " << raised << " raise\n";
  EXPECT_EQ(failures, "") << "programs whose GPU outputs differ from the oracle";
  EXPECT_GT(passed, 0);
}

}  // namespace
}  // namespace kiln
