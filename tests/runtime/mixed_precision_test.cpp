// 16-bit floats in generated kernels (issue 18): bf16 / f16 graphs fuse into kernels that load
// widened to f32, compute in f32 and round at the store, as Inductor's do, so compiled and eager
// agree within torch.testing.assert_close's default tolerances for the dtype (bf16: rtol 1.6e-2,
// atol 1e-5; f16: rtol 1e-3, atol 1e-5), not bit for bit. Each script checks that itself against
// its own eager call; the test checks the fused stage: one kernel, no dtype fallback.
#include "engine/codegen/kernel_compiler.h"
#include "engine/kir/kernel_ir.h"
#include "tests/runtime/run_util.h"

#include <set>

namespace kiln {
namespace {

// Pointwise ops around a softmax and a row mean, in DT: one reduction kernel.
const char* kSoftmaxScript = R"(import torch
torch.manual_seed(0)
def f(x, w):
    y = torch.relu(x * w + 0.5)
    return torch.softmax(y, dim=-1) + y.mean(dim=-1, keepdim=True)
cf = torch.compile(f)
x = torch.randn(16, 96).to(DT)
w = torch.randn(96).to(DT)
x[3, 5] = float('nan')
got = cf(x, w)
want = f(x, w)
exact = f(x.double(), w.double())
assert got.dtype == DT, got.dtype
assert torch.isnan(got[3]).all() and torch.isnan(want[3]).all()
keep = torch.arange(16) != 3
got, want, exact = got[keep].double(), want[keep].double(), exact[keep]
print("vs eager", ((got - want).abs() / want.abs()).max().item(), "vs float64", ((got - exact).abs() / exact.abs()).max().item(), "eager vs float64", ((want - exact).abs() / exact.abs()).max().item())
# One rounding at the store: within the dtype's tolerance of the float64 computation.
assert torch.allclose(got, exact, rtol=RTOL, atol=1e-5), (got - exact).abs().max()
# Eager rounds after every op (relu's result, the softmax, the mean, the sum): up to EAGER_ULPS
# roundings of the dtype from the compiled value.
assert torch.allclose(got, want, rtol=EAGER_ULPS * RTOL, atol=1e-5), (got - want).abs().max()
out = got
)";

std::string script(const std::string& dt, const std::string& rtol, const std::string& eagerUlps) {
  std::string s = kSoftmaxScript;
  auto replaceAll = [&](const std::string& from, const std::string& to) {
    for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
  };
  replaceAll("EAGER_ULPS", eagerUlps);
  replaceAll("DT", dt);
  replaceAll("RTOL", rtol);
  return s;
}

// Names of the kernels of the fused stage's call nodes, and how many call nodes stay eager.
std::pair<std::set<std::string>, int> kernelsOf(const ir::Graph& g) {
  std::set<std::string> kernels;
  int eager = 0;
  for (const auto& n : g.nodes) {
    if (!n.isCall()) continue;
    if (n.kernel.empty()) ++eager;
    else kernels.insert(n.kernel);
  }
  return {kernels, eager};
}

bool firedDtypeFallback(const Recorder& sink) {
  for (const auto& [stage, rules] : sink.stageRules)
    for (const auto& r : rules)
      if (r.rule.find("generated kernels do not compute in") != std::string::npos) return true;
  return false;
}

void checkOneKernel(const std::string& name, const std::string& dt, const std::string& rtol, const std::string& eagerUlps,
                    const std::string& shortName) {
  Ran r;
  run(name, script(dt, rtol, eagerUlps), false, r);
  ASSERT_EQ(r.result.exitCode, 0) << r.result.error;
  ASSERT_TRUE(r.sink.stageGraphs.count("fused"));
  auto [kernels, eager] = kernelsOf(r.sink.stageGraphs["fused"]);
  EXPECT_EQ(kernels.size(), 1u) << r.sink.stages["fused"];
  EXPECT_EQ(eager, 0) << r.sink.stages["fused"];
  EXPECT_FALSE(firedDtypeFallback(r.sink));
  ASSERT_EQ(r.sink.kernels.size(), 1u);
  const std::string& ir = r.sink.kernels[0].kernelIr;
  // 16-bit buffers, widened at the load, reduced in f32 or wider.
  EXPECT_NE(ir.find("in in_"), std::string::npos) << ir;
  EXPECT_NE(ir.find(": " + shortName + "[16, 96]"), std::string::npos) << ir;
  EXPECT_NE(ir.find("] : f32"), std::string::npos) << ir;
  EXPECT_EQ(r.sink.kernels[0].kind, "reduction");
  // The same kernels as CUDA C++ compile with NVRTC where it is installed (no GPU needed).
  std::string why;
  if (auto cuda = codegen::makeCudaCompiler(&why)) {
    auto module = cuda->compile(kir::parseKernels(ir), name);
    ASSERT_EQ(module->kernels.size(), 1u);
    EXPECT_NE(module->kernels[0].assembly.find(".entry"), std::string::npos);
  }
}

TEST(MixedPrecision, BFloat16SoftmaxAndMeanAreOneKernel) { checkOneKernel("mp_bf16_softmax", "torch.bfloat16", "1.6e-2", "1", "bf16"); }

TEST(MixedPrecision, Float16SoftmaxAndMeanAreOneKernel) { checkOneKernel("mp_f16_softmax", "torch.float16", "1e-3", "2", "f16"); }

// Conversions are kernel ops: f32 -> bf16 -> f32 rounds inside the kernel (x.to(torch.bfloat16)
// is an explicit rounding, kept), so the compiled result equals eager's exactly here.
TEST(MixedPrecision, ConversionsRoundInsideKernels) {
  const char* s = R"(import torch
torch.manual_seed(0)
def f(x):
    h = (x * 3.0).to(torch.bfloat16)
    return h.to(torch.float32) + 1.0, h.to(torch.float16)
cf = torch.compile(f)
x = torch.randn(64) * 100
a, b = cf(x)
ea, eb = f(x)
assert a.dtype == torch.float32 and b.dtype == torch.float16
assert torch.equal(a, ea), (a - ea).abs().max()
assert torch.equal(b.float(), eb.float()), (b.float() - eb.float()).abs().max()
out = a
out_1 = b
)";
  Ran r;
  runCompiled("mp_convert", s, 1, r);
  auto [kernels, eager] = kernelsOf(r.sink.stageGraphs["fused"]);
  EXPECT_EQ(kernels.size(), 1u) << r.sink.stages["fused"];
  EXPECT_EQ(eager, 0) << r.sink.stages["fused"];
  ASSERT_EQ(r.sink.kernels.size(), 1u);
  EXPECT_NE(r.sink.kernels[0].kernelIr.find("cast"), std::string::npos) << r.sink.kernels[0].kernelIr;
}

// Dtypes kernels still do not generate (8- and 16-bit integers) stay eager with their reason.
TEST(MixedPrecision, IntegerDtypesKeepTheirFallbackReason) {
  const char* s = R"(import torch
def f(x):
    return x * 3 + 1
cf = torch.compile(f)
x = torch.arange(32, dtype=torch.int16)
assert torch.equal(cf(x), f(x))
out = cf(x)
)";
  Ran r;
  runCompiled("mp_int16", s, 1, r);
  EXPECT_TRUE(firedDtypeFallback(r.sink));
  EXPECT_TRUE(r.sink.kernels.empty());
}

// A CPU autocast(bfloat16) + GradScaler training loop under torch.compile: the forward's bf16
// ops are generated kernels (no dtype fallback anywhere), and losses, the scale and weights
// match the eager loop's within bf16 tolerance.
TEST(MixedPrecision, AutocastTrainingLoopRunsGeneratedKernels) {
  const char* s = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.norm = nn.LayerNorm(32)
        self.fc2 = nn.Linear(32, 4)
    def forward(self, x):
        h = F.gelu(self.fc1(x)) * 0.5 + self.fc1(x).sigmoid()
        h = self.norm(h)
        return F.softmax(self.fc2(h), dim=-1)
model = Net()
ref = Net()
ref.load_state_dict(model.state_dict())
runs = []
for m, fn in [(model, torch.compile(model)), (ref, ref)]:
    torch.manual_seed(1)
    scaler = torch.amp.GradScaler("cpu", init_scale=256.0, growth_interval=2)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    losses = []
    for step in range(4):
        x = torch.randn(8, 16)
        y = torch.randint(0, 4, (8,))
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            p = fn(x)
            loss = F.nll_loss(torch.log(p.float()), y)
        assert p.dtype == torch.bfloat16, p.dtype
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    runs.append((losses, [q.detach().clone() for q in m.parameters()], scaler.get_scale()))
assert runs[0][2] == runs[1][2], (runs[0][2], runs[1][2])
loss_diff = max(abs(a - b) for a, b in zip(runs[0][0], runs[1][0]))
assert loss_diff < 1.6e-2 * max(abs(b) for b in runs[1][0]), (runs[0][0], runs[1][0])
weight_diff = max(((a - b).abs().max() / b.abs().max()).item() for a, b in zip(runs[0][1], runs[1][1]))
assert weight_diff < 1.6e-2, weight_diff
out = torch.tensor(runs[0][0])
)";
  Ran r;
  run("mp_autocast_loop", s, false, r);
  ASSERT_EQ(r.result.exitCode, 0) << r.result.error;
  ASSERT_EQ(r.log.frames.size(), 1u);
  EXPECT_FALSE(firedDtypeFallback(r.sink));
  int bf16Kernels = 0;
  for (const auto& k : r.sink.kernels)
    if (k.kernelIr.find(": bf16[") != std::string::npos) ++bf16Kernels;
  EXPECT_GE(bf16Kernels, 1);
  std::cout << "[ autocast ] " << r.sink.kernels.size() << " kernels, " << bf16Kernels << " with bf16 buffers\n";
}

}  // namespace
}  // namespace kiln
