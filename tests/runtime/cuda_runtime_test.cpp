// The GPU runtime on a GPU (ctest label `gpu`; every test skips, saying why, where there is
// none): CUDA tensors' storage from the caching allocator and its figures, copies both ways,
// eager pointwise ops through kernel IR -> CUDA against the CPU's results, the clear errors (an op
// without a CUDA kernel, mixed devices) and TENSOR_MATCH guarding on the device.
#include "tests/runtime/run_py.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/session/events.h"
#include "engine/tensor/tensor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kiln {
namespace {

#define REQUIRE_GPU()                                                                                             \
  if (!runtime::cuda::isAvailable())                                                                             \
    GTEST_SKIP() << "no GPU here (" << runtime::CudaDriver::unavailableMessage() << "): run on the GPU machine " \
                 << "(ctest -L gpu, README 'On a GPU machine')";

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
    EXPECT_THROW(d.data(), tensor::TorchError);  // the host never reads device memory
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
try:
    xd @ xd.t()
except NotImplementedError as e:
    print('NotImplementedError', 'cuda:0' in str(e))
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
            "NotImplementedError True\n");
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
)", false);
  ASSERT_EQ(o.exitCode, 0) << o.error;
  // The CPU entry's TENSOR_MATCH fails on the device, so the CUDA call gets its own entry (run
  // on the GPU); had the guard passed, CPU kernels would have met device memory and raised.
  EXPECT_EQ(o.printed, "tensor([2., 2., 2.])\ntensor([2., 2., 2.], device='cuda:0')\ntensor([2., 2., 2.])\n");
}

}  // namespace
}  // namespace kiln
