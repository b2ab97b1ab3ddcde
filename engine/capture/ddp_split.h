// Dynamo's DDPOptimizer (torch/_dynamo/backends/distributed.py): while a compiled module runs
// inside DistributedDataParallel.forward, the captured graph is split at gradient-bucket
// boundaries and each piece compiled on its own, so that in backward each piece is its own
// autograd node: the last piece's parameter gradients are ready (and DDP's all-reduce of their
// bucket starts) while earlier pieces are still differentiating. One Dynamo graph, N compiled
// subgraphs (`submod_0` ... in forward order, as FX's split_module names them).
//
// Buckets, as DDPOptimizer counts them: graph nodes walked in reverse; each call's placeholder
// arguments that are parameters requiring grad add their storage bytes to the current bucket;
// once the bucket holds `firstCap` (the first one) or `cap` bytes, the next node starts a new
// bucket, unless no node of the current one has a user outside it (it is extended then); a
// final preamble without parameters joins the bucket after it.
#pragma once

#include "engine/capture/backend.h"
#include "engine/ir/graph.h"
#include "engine/session/sink.h"

#include <functional>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::capture {

struct DdpBuckets {
  std::vector<std::vector<int>> nodes;           // node ids of each bucket, forward order (bucket 0 runs first)
  std::vector<int64_t> bytes;                    // parameter bytes counted in each
  std::vector<std::vector<std::string>> params;  // placeholder names of those parameters
};

// `paramBytes[i]`: the storage bytes of placeholder i when it holds a parameter that requires
// grad, else 0.
DdpBuckets ddpBuckets(const ir::Graph& g, const std::vector<int64_t>& paramBytes, int64_t cap, int64_t firstCap);

// Where a value of the split comes from: piece -1 = the whole graph's input `index`, else output
// `index` of that piece.
struct DdpRef {
  int piece = -1;
  int index = 0;
};

struct DdpPiece {
  ir::Graph graph;             // placeholders first, one output node listing its results
  std::vector<DdpRef> inputs;  // per placeholder
  GraphRunner run;
  std::shared_ptr<BackwardCode> backward;
  // Where the piece's compile events go, kept as long as the piece: the backend reports its
  // backward's stages when it is first compiled, at the first backward.
  std::shared_ptr<session::SessionSink> sink;
};

struct DdpSplit {
  int64_t bucketCap = 0;
  DdpBuckets buckets;
  std::vector<DdpPiece> pieces;
  std::vector<DdpRef> outputs;  // the whole graph's outputs
};

// The pieces of `g` for `buckets` (two or more), or nullopt with the reason in `why` when Kiln
// cannot split this graph (a value crossing pieces that is not one tensor, a grad-mode or
// autocast region, an output that is not a node).
std::optional<DdpSplit> splitForDdp(const ir::Graph& g, const DdpBuckets& buckets, std::string* why);

// Compiles every piece with `backend`. Each piece's stages, kernels and wrapper go to `sink`
// under the compile id `cid`, named for the piece ("submod_0: captured", ...), so the studio
// shows one subgraph per bucket next to the whole graph.
void compileDdpPieces(DdpSplit& s, Backend& backend, const std::string& cid, session::SessionSink& sink,
                      const std::string& mode = "default");

// Runs the pieces one after another (no autograd: the caller attaches it per piece).
std::vector<tensor::Tensor> runDdpPieces(
    const DdpSplit& s, const std::vector<tensor::Tensor>& inputs,
    const std::function<std::vector<tensor::Tensor>(const DdpPiece&, const std::vector<tensor::Tensor>&)>& runPiece);

// The text DDPOptimizer logs (torch._dynamo.backends.distributed, INFO) and its bucket table.
std::string describeDdpSplit(const DdpSplit& s);

}  // namespace kiln::capture
