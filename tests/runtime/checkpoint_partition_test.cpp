// torch.utils.checkpoint under torch.compile: the checkpointed function is captured in place with
// its nodes marked as a region (`# checkpoint region k` in the captured graph), and the min-cut
// partition recomputes the region in the backward, matmuls included, instead of saving its
// activations (AOTAutograd's MUST_RECOMPUTE); consecutive regions save the value between them.
// Gradients equal eager's (runCompiled compares every out*, the eager run checkpointing through
// the autograd Function).
#include "engine/ir/text.h"
#include "engine/passes/partition.h"
#include "tests/runtime/run_util.h"

#include <set>

namespace kiln {
namespace {

// Matmuls of `g` that depend on no tangent: forward work the backward graph does again.
int recomputedMatmuls(const ir::Graph& g) {
  const std::set<int> dep = passes::tangentDependent(g);
  int n = 0;
  for (const auto& node : g.nodes)
    if (node.isCall() && !dep.count(node.id) && node.target.find("mm") != std::string::npos) ++n;
  return n;
}

const char* kMlp = R"(import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
block = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.Tanh())
head = nn.Linear(64, 10)
def forward(x):
    h = CKPT
    return head(h)
f = torch.compile(forward)
x = torch.randn(16, 32)
y = torch.randint(0, 10, (16,))
for step in range(2):
    block.zero_grad()
    head.zero_grad()
    loss = nn.functional.cross_entropy(f(x), y)
    loss.backward()
out = block[0].weight.grad
out_1 = block[2].weight.grad
out_2 = head.weight.grad
out_3 = loss
)";

std::string withRegion(const std::string& call) {
  std::string s = kMlp;
  s.replace(s.find("CKPT"), 4, call);
  return s;
}

TEST(CheckpointPartition, RegionIsRecomputedNotSaved) {
  Ran plain, ckpt;
  runCompiled("ckpt_plain", withRegion("block(x)"), 1, plain);
  runCompiled("ckpt_region", withRegion("checkpoint(block, x, use_reentrant=False)"), 1, ckpt);
  ASSERT_TRUE(plain.sink.stages.count("backward:partition"));
  ASSERT_TRUE(ckpt.sink.stages.count("backward:partition"));
  const std::string& text = ckpt.sink.stages["backward:partition"];
  // The captured graph marks the region's nodes.
  EXPECT_NE(ckpt.sink.stages["captured"].find("# checkpoint region 0"), std::string::npos) << ckpt.sink.stages["captured"];
  EXPECT_EQ(plain.sink.stages["captured"].find("# checkpoint region"), std::string::npos);
  // The partition recomputes the region's nodes, its two matmuls among them.
  EXPECT_NE(text.find("# recomputed (checkpoint):"), std::string::npos) << text;
  EXPECT_NE(text.find("(aten.addmm.default, region 0)"), std::string::npos) << text;
  EXPECT_EQ(plain.sink.stages["backward:partition"].find("recomputed (checkpoint)"), std::string::npos);
  EXPECT_EQ(recomputedMatmuls(plain.sink.stageGraphs["backward:aten"]), 0);
  EXPECT_EQ(recomputedMatmuls(ckpt.sink.stageGraphs["backward:aten"]), 2);
  // Nothing the region computes is saved: the saved tensors are the head's (the region's output,
  // recomputed, is not among them), fewer bytes than without the checkpoint.
  const ir::Graph& graph = ckpt.sink.stageGraphs["backward:partition"];
  for (const auto& n : graph.nodes)
    if (n.kernel == "saved for backward") {
      EXPECT_LT(n.prov.checkpointRegion, 0) << n.name << " (" << n.target << ") is in the region and saved\n" << text;
    }
}

TEST(CheckpointPartition, SequentialSegmentsSaveTheirBoundary) {
  const char* script = R"(import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint_sequential
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 4))
@torch.compile
def f(x):
    return checkpoint_sequential(model, 3, x, use_reentrant=False)
x = torch.randn(8, 16, requires_grad=True)
f(x).pow(2).sum().backward()
out = model[0].weight.grad
out_1 = model[2].weight.grad
out_2 = model[4].weight.grad
out_3 = model[6].weight.grad
out_4 = x.grad
)";
  Ran r;
  runCompiled("ckpt_sequential", script, 1, r);
  ASSERT_TRUE(r.sink.stages.count("backward:partition"));
  const std::string& text = r.sink.stages["backward:partition"];
  const std::string& captured = r.sink.stages["captured"];
  EXPECT_NE(captured.find("# checkpoint region 0"), std::string::npos) << captured;
  EXPECT_NE(captured.find("# checkpoint region 1"), std::string::npos) << captured;
  EXPECT_EQ(captured.find("# checkpoint region 2"), std::string::npos) << captured;  // the last segment is not checkpointed
  EXPECT_NE(text.find("region 0)"), std::string::npos) << text;
  EXPECT_NE(text.find("region 1)"), std::string::npos) << text;
  // Region 0's output (the GELU region 1 reads) is saved, not recomputed: MUST_SAVE.
  const ir::Graph& graph = r.sink.stageGraphs["backward:partition"];
  int savedBoundary = 0;
  for (const auto& n : graph.nodes)
    if (n.kernel == "saved for backward" && n.prov.checkpointRegion == 0) ++savedBoundary;
  EXPECT_EQ(savedBoundary, 1) << text;
}

// The seed document's memory-efficient training loop (examples/seeds/001_07) on the CPU: a
// MiniTransformer under torch.autocast("cpu", bfloat16), GradScaler("cpu") and AdamW (the seed's
// lr=1e-4), three copies from the same weights: compiled with its block checkpointed, compiled
// without, and eager with the checkpoint. The checkpoint changes nothing in the compiled
// forward (losses and scale equal exactly); the first gradients agree within bf16's tolerance
// (3e-2 of their largest element), not exactly: since bf16 ops are generated kernels computing in
// f32 (issue 18), the backward's recomputed region rounds where its kernels store, not where the
// forward's did, and AdamW's normalised steps carry that into the weights. Compiled and eager agree within
// bfloat16's tolerance (losses within 5e-3, the first step's gradients within 3e-2 of their
// largest element: a few bf16 ulps; measured 1.2e-3 and 2^-7), beyond the corpus's float32
// tolerance because the compiled graph rounds the bf16 ops' decompositions differently, with or
// without the checkpoint. The script asserts; a failed assert fails the run.
TEST(CheckpointPartition, MixedPrecisionTrainingLoopOnCpu) {
  const char* script = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
class Block(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ff = nn.Sequential(nn.Linear(d, ff), nn.GELU(), nn.Linear(ff, d))
        self.norm1 = nn.LayerNorm(d)
        self.norm2 = nn.LayerNorm(d)
    def forward(self, x):
        b, s, d = x.shape
        qkv = self.qkv(x).reshape(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = F.softmax(torch.matmul(q, k.transpose(-2, -1)) * (d // self.heads) ** -0.5, dim=-1)
        a = torch.matmul(attn, v).transpose(1, 2).reshape(b, s, d)
        x = self.norm1(x + self.proj(a))
        return self.norm2(x + self.ff(x))
class MiniTransformer(nn.Module):
    def __init__(self, use_checkpoint, vocab=50, d=16, heads=2, ff=32, classes=4):
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.emb = nn.Embedding(vocab, d)
        self.block = Block(d, heads, ff)
        self.classifier = nn.Linear(d, classes)
    def forward(self, ids):
        x = self.emb(ids)
        x = checkpoint(self.block, x, use_reentrant=False) if self.use_checkpoint else self.block(x)
        return self.classifier(x[:, 0, :])
ckpt = MiniTransformer(True)
plain = MiniTransformer(False)
ref = MiniTransformer(True)
plain.load_state_dict(ckpt.state_dict())
ref.load_state_dict(ckpt.state_dict())
runs = []
for model, fn in [(ckpt, torch.compile(ckpt)), (plain, torch.compile(plain)), (ref, ref)]:
    torch.manual_seed(1)
    scaler = torch.amp.GradScaler("cpu", init_scale=256.0, growth_interval=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    losses = []
    for step in range(3):
        ids = torch.randint(0, 50, (4, 6))
        labels = torch.randint(0, 4, (4,))
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = F.cross_entropy(fn(ids), labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
        if step == 0:
            grads = [p.grad.clone() for p in model.parameters()]
    runs.append((losses, [p.detach().clone() for p in model.parameters()], scaler.get_scale(), grads))
def loss_diff(a, b):
    return max(abs(x - y) for x, y in zip(a[0], b[0]))
def weight_diff(a, b):
    return max((x - y).abs().max().item() for x, y in zip(a[1], b[1]))
def grad_diff(a, b):
    # Relative to each gradient's largest element: the first step's unscaled gradients.
    return max(((x - y).abs().max() / y.abs().max()).item() for x, y in zip(a[3], b[3]))
assert loss_diff(runs[0], runs[1]) == 0.0, loss_diff(runs[0], runs[1])
assert grad_diff(runs[0], runs[1]) < 3e-2, grad_diff(runs[0], runs[1])
assert runs[0][2] == runs[2][2] == 512.0, (runs[0][2], runs[2][2])
assert loss_diff(runs[0], runs[2]) < 5e-3, loss_diff(runs[0], runs[2])
assert grad_diff(runs[0], runs[2]) < 3e-2, grad_diff(runs[0], runs[2])
)";
  Ran r;
  run("ckpt_amp_loop", script, false, r);
  ASSERT_EQ(r.result.exitCode, 0) << r.result.error;
  EXPECT_EQ(r.log.frames.size(), 2u);  // the two compiled models, one graph each
  ASSERT_EQ(r.log.frames.size(), 2u);
  // The checkpointed model's graph marks the region, the other's does not (the recorder keeps
  // only the last graph's stage texts).
  EXPECT_NE(ir::printGraph(r.log.frames[0]->captured).find("# checkpoint region 0"), std::string::npos);
  EXPECT_EQ(ir::printGraph(r.log.frames[1]->captured).find("# checkpoint region"), std::string::npos);
}

}  // namespace
}  // namespace kiln
