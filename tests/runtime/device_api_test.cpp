// Devices in scripts, as PyTorch 2.11 behaves: torch.device values (printing, equality, parsing
// errors), device= on factories and .to(), .device / .is_cuda, torch.cuda and its figures, and
// on a machine without a GPU (CI, the build machine) PyTorch's own error for every CUDA request:
// never a CPU tensor handed back as a CUDA one. GPU behaviour is in cuda_runtime_test.cpp.
#include "engine/runtime/cuda_allocator.h"
#include "engine/runtime/cuda_conv.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/session/events.h"
#include "tests/runtime/run_py.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kiln {
namespace {

using Out = test::ScriptOut;
using test::runPy;

TEST(DeviceApi, DeviceObjectsPrintCompareAndParseAsPyTorch) {
  Out o = runPy("device_objects", R"(import torch
a = torch.device('cuda')
b = torch.device('cuda:0')
c = torch.device('cuda', 0)
print(repr(a), repr(b), repr(torch.device('cpu')))
print(str(a), str(b), a.type, a.index, b.index)
print(a == b, b == c, b != c, torch.device('cpu') == 'cpu', torch.device(1))
print(len({b, c, torch.device('cpu')}), isinstance(b, torch.device))
try:
    torch.device('cuda:x')
except RuntimeError as e:
    print('E1', e)
try:
    torch.device('gpu')
except RuntimeError as e:
    print('E2', str(e)[:40], str(e)[-20:])
try:
    torch.device('cuda:0', 1)
except RuntimeError as e:
    print('E3', e)
x = torch.ones(2)
print(x.device, repr(x.device), x.is_cuda, x.get_device(), x.device == torch.device('cpu'))
print(x.to('cpu') is x, x.cpu() is x, x.to(torch.device('cpu'), torch.float64).dtype)
print(torch.zeros(2, device='cpu'), torch.randn(2, device=torch.device('cpu')).device)
print(torch.version.cuda is None or isinstance(torch.version.cuda, str), torch.backends.cudnn.enabled)
)");
  ASSERT_EQ(o.exitCode, 0) << o.error;
  EXPECT_EQ(o.printed,
            "device(type='cuda') device(type='cuda', index=0) device(type='cpu')\n"
            "cuda cuda:0 cuda None 0\n"
            "False True False False cuda:1\n"
            "2 True\n"
            "E1 Invalid device string: 'cuda:x'\n"
            "E2 Expected one of cpu, cuda, ipu, xpu, mkl f device string: gpu\n"
            "E3 type (string) must not include an index because index was passed explicitly: cuda:0\n"
            "cpu device(type='cpu') False -1 True\n"
            "True True torch.float64\n"
            "tensor([0., 0.]) cpu\n"
            "True True\n");
}

TEST(DeviceApi, WithoutAGpuEveryCudaRequestIsPyTorchsError) {
  if (runtime::cuda::isAvailable()) GTEST_SKIP() << "this machine has a GPU: cuda_runtime_test.cpp covers it";
  const std::string msg = runtime::CudaDriver::unavailableMessage();
  // PyTorch's CUDA build: no driver library, or a driver and no GPU.
  EXPECT_TRUE(msg.rfind("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from "
                        "http://www.nvidia.com/Download/index.aspx",
                        0) == 0 ||
              msg == "No CUDA GPUs are available")
      << msg;
  // The message as a Python literal, so the script can compare it.
  std::string script = R"(import torch
MSG = ")" + msg + R"("
)";
  Out o2 = runPy("device_no_gpu2", script + R"(attempts = [
    lambda: torch.zeros(3, device='cuda'),
    lambda: torch.randn(3, device='cuda:0'),
    lambda: torch.ones(2).cuda(),
    lambda: torch.ones(2).to('cuda'),
    lambda: torch.ones(2).to(torch.device('cuda'), torch.float64),
    lambda: torch.tensor([1.0], device='cuda'),
    lambda: torch.arange(3, device='cuda'),
    lambda: torch.zeros_like(torch.ones(2), device='cuda'),
    lambda: torch.ones(2).new_zeros(3, device='cuda'),
    lambda: torch.nn.Linear(2, 2).to('cuda'),
    lambda: torch.nn.Linear(2, 2).cuda(),
    lambda: torch.cuda.current_device(),
    lambda: torch.cuda.get_device_name(),
    lambda: torch.cuda.synchronize(),
    lambda: torch.cuda.reset_peak_memory_stats(),
    lambda: torch.cuda.Event(enable_timing=True).record(),
]
for f in attempts:
    try:
        r = f()
        print('no error', r)
    except RuntimeError as e:
        print(type(e).__name__, str(e) == MSG)
print(torch.cuda.is_available(), torch.cuda.device_count(), torch.cuda.is_initialized())
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
print(device, torch.ones(2, device=device).device)
torch.cuda.manual_seed(0)
torch.cuda.manual_seed_all(0)
torch.cuda.empty_cache()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated(), torch.cuda.memory_reserved())
)");
  ASSERT_EQ(o2.exitCode, 0) << o2.error;
  std::string expected;
  for (int i = 0; i < 16; ++i) expected += "RuntimeError True\n";
  expected += "False 0 False\ncpu cpu\n0 0 0\n";
  EXPECT_EQ(o2.printed, expected);
}

// kiln run --default-device cuda without a GPU: the script's first tensor raises PyTorch's
// error; the next script in the process starts on the CPU again (a new interpreter is a new
// process).
TEST(DeviceApi, DefaultDeviceCudaWithoutAGpuIsPyTorchsError) {
  if (runtime::cuda::isAvailable()) GTEST_SKIP() << "this machine has a GPU: cuda_runtime_test.cpp covers it";
  const std::string path = (std::filesystem::temp_directory_path() / "default_device_cuda.py").string();
  std::ofstream(path) << "import torch\nprint('start')\nprint(torch.ones(2))\n";
  session::NullSink sink;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  ro.eager = true;
  ro.defaultDevice = "cuda";
  driver::RunResult r = driver::runScript(ro, sink, out);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(out.str(), "start\n");
  EXPECT_NE(r.error.find("RuntimeError: " + runtime::CudaDriver::unavailableMessage()), std::string::npos) << r.error;
  Out o = runPy("default_device_cpu_again", "import torch\nprint(torch.ones(2), torch.get_default_device())\n");
  ASSERT_EQ(o.exitCode, 0) << o.error;
  EXPECT_EQ(o.printed, "tensor([1., 1.]) cpu\n");
}

TEST(DeviceApi, CompiledCodeSeesTheDevicePattern) {
  // The seed scripts' pattern inside and around a compiled function: the device is a constant
  // of the frame and device= reaches the captured factory.
  Out o = runPy("device_compiled", R"(import torch
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
@torch.compile
def f(x):
    return x * 2 + torch.ones(3, device=x.device)
x = torch.arange(3.0, device=device)
print(f(x).device == x.device, f(x).tolist())
)",
                false);
  ASSERT_EQ(o.exitCode, 0) << o.error;
  EXPECT_EQ(o.printed, "True [1.0, 3.0, 5.0]\n");
}

// torch.backends.cudnn.allow_tf32 and torch.backends.cuda.matmul.allow_tf32: assigning them
// reaches the runtime (read at each convolution / GEMM), only a bool is taken, and every script
// starts from PyTorch's defaults whatever an earlier one left. is_available() and version() say
// whether cuDNN loads (here or not: neither needs a GPU) as PyTorch does.
TEST(DeviceApi, BackendFlagsReachTheCudaRuntime) {
  runtime::cuda::setCudnnAllowTf32(false);  // what an earlier script may have left
  runtime::cuda::setCublasAllowTf32(true);
  Out o = runPy("backend_flags", R"(import torch
import torch.backends.cudnn as cudnn
print(torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = True
print(torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
try:
    torch.backends.cudnn.allow_tf32 = 1
except RuntimeError as e:
    print('E1', e)
try:
    torch.backends.cuda.matmul.allow_tf32 = None
except RuntimeError as e:
    print('E2', e)
print(torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
torch.backends.cudnn.benchmark = True
print(torch.backends.cudnn.benchmark)
v = torch.backends.cudnn.version()
print(torch.backends.cudnn.is_available(), v if v is None else type(v).__name__)
print(v)
)");
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  const long version = runtime::cuda::cudnnVersion();
  const std::string loads = version > 0 ? "True int\n" + std::to_string(version) + "\n" : "False None\nNone\n";
  EXPECT_EQ(o.printed,
            "True False\nFalse True\nE1 set_allow_tf32_cuDNN expects a bool, but got int\n"
            "E2 set_allow_tf32_cublas expects a bool, but got NoneType\nFalse True\nTrue\n" +
                loads);
  EXPECT_FALSE(runtime::cuda::cudnnAllowTf32());
  EXPECT_TRUE(runtime::cuda::cublasAllowTf32());
  Out fresh = runPy("backend_flags_fresh", "import torch\nprint(torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)\n");
  EXPECT_EQ(fresh.printed, "True False\n");
  EXPECT_TRUE(runtime::cuda::cudnnAllowTf32());
  EXPECT_FALSE(runtime::cuda::cublasAllowTf32());
}

TEST(CudaAllocator, SizeClassesArePyTorchs) {
  using A = runtime::CudaCachingAllocator;
  EXPECT_EQ(A::roundSize(1), 512u);
  EXPECT_EQ(A::roundSize(512), 512u);
  EXPECT_EQ(A::roundSize(513), 1024u);
  EXPECT_EQ(A::roundSize(1 << 20), size_t{1} << 20);
  EXPECT_EQ(A::roundSize((1 << 20) + 1), size_t{2} << 20);
  EXPECT_EQ(A::roundSize(5 << 20), size_t{6} << 20);
}

}  // namespace
}  // namespace kiln
