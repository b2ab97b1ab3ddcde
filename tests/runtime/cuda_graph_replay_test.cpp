// mode="reduce-overhead" on a GPU (ctest label `gpu`): compiled graphs replayed as CUDA graphs
// (runtime/cuda_graph_replay.h) give the CPU's values call after call, whether their inputs stay
// where they were (read in place) or move (copied into static buffers); outputs a caller keeps
// are never overwritten by a later replay; in-place updates of inputs land in the inputs; and the
// private pool keeps the graph's blocks from every other tensor.
#include "engine/runtime/cuda_graph_replay.h"
#include "engine/ops/op_table.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/session/events.h"
#include "engine/session/sink.h"
#include "engine/tensor/tensor.h"
#include "tests/runtime/require_gpu.h"
#include "tests/runtime/run_py.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln {
namespace {

using tensor::Tensor;

Tensor values(const tensor::Shape& shape, int seed) {
  Tensor t = Tensor::empty(shape, ir::DType::Float32);
  for (int64_t i = 0; i < t.numel(); ++i) t.storeAt(i, static_cast<double>((i * 37 + seed * 11) % 101) / 17.0 - 3.0);
  return t;
}

std::vector<double> onHost(const Tensor& t) { return t.toDevice(tensor::Device::cpu()).toDoubles(); }

// The graph of one softmax through the same passes and kernels as a compiled one.
std::shared_ptr<runtime::cuda::GpuGraph> softmaxGraph(const Tensor& x) {
  const ops::OpDef& op = ops::op("aten._softmax.default");
  auto g = runtime::cuda::eagerOpGraph(op, {ops::Val::of(x), ops::Val::integer(-1), ops::Val::boolean(false)}, x.device());
  if (!g) return nullptr;
  return std::make_shared<runtime::cuda::GpuGraph>(std::move(g->fused), std::move(g->sched));
}

TEST(CudaGraphReplay, ReplaysGiveTheKernelsValuesAndHeldOutputsStay) {
  REQUIRE_GPU();
  runtime::cuda::lazyInit();
  const tensor::Device cuda = tensor::Device::cuda(0);
  Tensor x0 = values({64, 300}, 1).toDevice(cuda);
  auto gpu = softmaxGraph(x0);
  ASSERT_NE(gpu, nullptr);
  runtime::cuda::CudaGraphReplay replay(gpu);
  // Call 1 warms up, call 2 records, calls 3.. replay; every output stays as it was returned.
  std::vector<Tensor> held, want;
  std::vector<Tensor> inputs;
  for (int call = 0; call < 6; ++call) {
    Tensor x = call < 3 ? x0 : values({64, 300}, call).toDevice(cuda);  // moves after call 3
    inputs.push_back(x);
    held.push_back(replay.run({x}).at(0));
    want.push_back(gpu->run({x}).at(0));
  }
  EXPECT_EQ(replay.records(), 2) << replay.status();  // recorded at call 2, again when x moved
  EXPECT_EQ(replay.replays(), 3) << replay.status();
  EXPECT_FALSE(replay.skipped()) << replay.status();
  for (size_t c = 0; c < held.size(); ++c) EXPECT_EQ(onHost(held[c]), onHost(want[c])) << "call " << c + 1;
  EXPECT_NE(replay.status().find("1 copied"), std::string::npos) << replay.status();
}

TEST(CudaGraphReplay, ThePrivatePoolKeepsTheGraphsBlocks) {
  REQUIRE_GPU();
  runtime::cuda::lazyInit();
  const tensor::Device cuda = tensor::Device::cuda(0);
  auto& alloc = runtime::cuda::allocator();
  alloc.emptyCache();  // no cached block of the shared cache to be handed out instead
  // A block allocated while a pool captures and freed goes back to that pool: a tensor of its
  // size made outside gets another block, one made while the pool captures gets it again.
  const int pool = alloc.beginPool();
  unsigned long long inPool = runtime::cuda::devicePtr(Tensor::empty({1000}, ir::DType::Float32, cuda));
  alloc.endPool();
  Tensor outside = Tensor::empty({1000}, ir::DType::Float32, cuda);
  EXPECT_NE(runtime::cuda::devicePtr(outside), inPool);
  // Once the pool is retired (its graph is gone), its blocks serve everyone.
  alloc.retirePool(pool);
  Tensor after = Tensor::empty({1000}, ir::DType::Float32, cuda);
  EXPECT_EQ(runtime::cuda::devicePtr(after), inPool);

  // A replay writes the recorded output block again and returns it, when no caller holds it.
  Tensor x = values({32, 128}, 3).toDevice(cuda);
  auto gpu = softmaxGraph(x);
  ASSERT_NE(gpu, nullptr);
  runtime::cuda::CudaGraphReplay replay(gpu);
  replay.run({x});
  const unsigned long long out = runtime::cuda::devicePtr(replay.run({x}).at(0));
  EXPECT_EQ(runtime::cuda::devicePtr(replay.run({x}).at(0)), out);
  // ... and when one does, the caller's tensor gets a copy and the graph keeps its block.
  Tensor kept = replay.run({x}).at(0);
  Tensor next = replay.run({x}).at(0);
  EXPECT_EQ(runtime::cuda::devicePtr(next), out);
  EXPECT_NE(runtime::cuda::devicePtr(kept), out);
  EXPECT_EQ(onHost(kept), onHost(next));
}

struct TimingSink : session::NullSink {
  int records = 0;
  std::string wrappers;
  void timing(const session::TimingEvent& e) override { records += e.phase == "cudagraph record"; }
  void wrapper(const session::WrapperEvent& e) override { wrappers += e.text; }
};

// The whole path from torch.compile(mode="reduce-overhead"): a model, an SGD-like in-place update
// and a function returning its input; the CPU's values, eagerly computed.
TEST(CudaGraphReplay, ReduceOverheadScriptsMatchTheCpu) {
  REQUIRE_GPU();
  TimingSink sink;
  test::ScriptOut o = test::runPy("cuda_reduce_overhead", R"(import torch
torch.manual_seed(0)
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 128)
        self.fc2 = torch.nn.Linear(128, 32)
        self.ln = torch.nn.LayerNorm(32)
    def forward(self, x):
        return self.ln(self.fc2(torch.relu(self.fc1(x)))).softmax(-1)
m = M()
xs = [torch.randn(16, 64) for _ in range(6)]
with torch.no_grad():
    want = [m(x) for x in xs]
    want2 = m(xs[0] * 2)
m.cuda()
g = torch.compile(m, mode='reduce-overhead')
with torch.no_grad():
    held = [g(x.cuda()) for x in xs]
    print('model', all(torch.allclose(h.cpu(), w, atol=1e-5) for h, w in zip(held, want)))
    xd = xs[0].cuda()
    same = [g(xd).cpu() for _ in range(3)]
    xd.mul_(2)
    print('in place input', torch.allclose(g(xd).cpu(), want2, atol=1e-5), all(torch.allclose(s, want[0], atol=1e-5) for s in same))
def sgd(p, grad):
    p.add_(grad, alpha=-0.1)
    return p.sum()
p = torch.randn(64, 32)
pd = p.cuda()
step = torch.compile(sgd, mode='reduce-overhead')
ok = True
for _ in range(5):
    grad = torch.randn(64, 32)
    s, sd = sgd(p, grad), step(pd, grad.cuda())
    ok = ok and torch.allclose(sd.cpu(), s, atol=1e-4) and torch.allclose(pd.cpu(), p, atol=1e-6)
print('sgd', ok)
def twice(x):
    return x, x * 2
t = torch.compile(twice, mode='reduce-overhead')
a = torch.randn(10)
outs = [t(a.cuda()) for _ in range(4)]
print('alias', all(torch.equal(o[0].cpu(), a) and torch.equal(o[1].cpu(), a * 2) for o in outs))
)",
                                  false, sink);
  ASSERT_EQ(o.exitCode, 0) << o.error;
  EXPECT_EQ(o.printed, "model True\nin place input True True\nsgd True\nalias True\n");
  // Each of the three compiled graphs recorded (the model's twice: its input moved after call 2).
  EXPECT_GE(sink.records, 3);
  EXPECT_NE(sink.wrappers.find("mode='reduce-overhead': CUDA graph"), std::string::npos);
}

}  // namespace
}  // namespace kiln
