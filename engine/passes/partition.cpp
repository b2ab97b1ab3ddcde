#include "engine/passes/partition.h"

#include "engine/ir/text.h"
#include "engine/ops/op_table.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>

namespace kiln::passes {

namespace {

constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;

// Max flow by Dinic's algorithm; after maxFlow(), sourceSide() is the source's side of a minimum
// cut (the vertices still reachable in the residual graph).
class FlowNetwork {
 public:
  explicit FlowNetwork(int n) : adj_(static_cast<size_t>(n)), level_(static_cast<size_t>(n)), next_(static_cast<size_t>(n)) {}
  void edge(int u, int v, int64_t cap) {
    adj_[static_cast<size_t>(u)].push_back(static_cast<int>(edges_.size()));
    edges_.push_back({v, cap});
    adj_[static_cast<size_t>(v)].push_back(static_cast<int>(edges_.size()));
    edges_.push_back({u, 0});
  }
  int64_t maxFlow(int s, int t) {
    int64_t flow = 0;
    while (levels(s, t)) {
      std::fill(next_.begin(), next_.end(), 0);
      while (int64_t f = push(s, t, kInf)) flow += f;
    }
    return flow;
  }
  std::vector<bool> sourceSide(int s) {
    levels(s, -1);
    std::vector<bool> out(level_.size());
    for (size_t i = 0; i < level_.size(); ++i) out[i] = level_[i] >= 0;
    return out;
  }

 private:
  struct Edge {
    int to;
    int64_t cap;
  };
  bool levels(int s, int t) {
    std::fill(level_.begin(), level_.end(), -1);
    std::queue<int> q;
    level_[static_cast<size_t>(s)] = 0;
    q.push(s);
    while (!q.empty()) {
      int u = q.front();
      q.pop();
      for (int e : adj_[static_cast<size_t>(u)])
        if (edges_[static_cast<size_t>(e)].cap > 0 && level_[static_cast<size_t>(edges_[static_cast<size_t>(e)].to)] < 0) {
          level_[static_cast<size_t>(edges_[static_cast<size_t>(e)].to)] = level_[static_cast<size_t>(u)] + 1;
          q.push(edges_[static_cast<size_t>(e)].to);
        }
    }
    return t >= 0 && level_[static_cast<size_t>(t)] >= 0;
  }
  int64_t push(int u, int t, int64_t f) {
    if (u == t) return f;
    auto& list = adj_[static_cast<size_t>(u)];
    for (int& i = next_[static_cast<size_t>(u)]; i < static_cast<int>(list.size()); ++i) {
      Edge& e = edges_[static_cast<size_t>(list[static_cast<size_t>(i)])];
      if (e.cap <= 0 || level_[static_cast<size_t>(e.to)] != level_[static_cast<size_t>(u)] + 1) continue;
      if (int64_t got = push(e.to, t, std::min(f, e.cap))) {
        e.cap -= got;
        edges_[static_cast<size_t>(list[static_cast<size_t>(i)] ^ 1)].cap += got;
        return got;
      }
    }
    return 0;
  }
  std::vector<std::vector<int>> adj_;
  std::vector<Edge> edges_;
  std::vector<int> level_, next_;
};

int64_t bytesOf(const ir::TensorType& t) {
  const int64_t n = t.numel();
  return n < 0 ? kInf / 1024 : n * static_cast<int64_t>(ir::itemSize(t.dtype));
}

void remap(ir::Arg& a, const std::map<int, int>& to) {
  if (a.isNode()) {
    if (auto it = to.find(a.node); it != to.end()) a.node = it->second;
  }
  for (auto& x : a.list) remap(x, to);
}

// Random ops draw new numbers on every run: recomputing them would change the values.
bool isRandom(const std::string& target) {
  for (const char* r : {"rand", "bernoulli", "dropout", "normal", "multinomial"})
    if (target.find(r) != std::string::npos) return true;
  return false;
}

std::string formatBytes(int64_t b) { return b >= 10240 ? std::to_string((b + 512) / 1024) + " KiB" : std::to_string(b) + " B"; }

}  // namespace

std::set<int> tangentDependent(const ir::Graph& g) {
  std::set<int> dep;
  for (const auto& n : g.nodes) {
    bool d = n.kind == ir::NodeKind::Placeholder && n.name.rfind("tangents_", 0) == 0;
    if (n.isCall()) ir::forEachNodeArg(n, [&](int a) { d = d || dep.count(a) > 0; });
    if (d) dep.insert(n.id);
  }
  return dep;
}

bool recomputable(const std::string& target) {
  if (isRandom(target)) return false;
  const ops::OpDef* op = ops::findOp(target);
  if (!op) return false;
  return op->kind == ops::OpKind::Pointwise || op->kind == ops::OpKind::View || op->kind == ops::OpKind::Creation;
}

Partition partitionJoint(const BackwardGraph& joint, const ir::Graph& forward) {
  const ir::Graph& g = joint.graph;
  Partition p;
  std::map<int, int> forwardOf;  // joint replay -> forward node (the first forward node it replays)
  for (const auto& [f, j] : joint.forwardValue) forwardOf.emplace(j, f);

  // The backward proper: the tangents and everything that depends on one.
  const std::set<int> backwardProper = tangentDependent(g);
  std::vector<const ir::Node*> fw;  // forward-side nodes (primals and tangent-free calls), in order
  for (const auto& n : g.nodes)
    if ((n.kind == ir::NodeKind::Placeholder || n.isCall()) && !backwardProper.count(n.id)) fw.push_back(&n);

  // Values the forward returns anyway: between cuts of equal bytes, saving them is preferred
  // (capacities are 2 x bytes, one less for these), so tanh(x @ w) saves the tanh the caller
  // already holds rather than the matmul before it.
  std::set<int> returned;
  if (const ir::Node* o = forward.output())
    for (const auto& a : o->args.at(0).list)
      if (a.isNode()) returned.insert(a.node);
  std::map<int, int> vertex;  // forward-side node -> its in-vertex (out = in + 1)
  for (const ir::Node* n : fw) vertex[n->id] = 2 + 2 * static_cast<int>(vertex.size());
  const int source = 0, sink = 1;
  FlowNetwork net(2 + 2 * static_cast<int>(vertex.size()));
  // Checkpoint regions: MUST_RECOMPUTE, except a value a later region reads (MUST_SAVE).
  std::set<int> mustRecompute, mustSave;
  for (const ir::Node* n : fw)
    if (n->isCall() && n->prov.checkpointRegion >= 0 && forwardOf.count(n->id) && !isRandom(n->target)) mustRecompute.insert(n->id);
  for (const ir::Node* n : fw)
    if (n->isCall() && n->prov.checkpointRegion >= 0)
      ir::forEachNodeArg(*n, [&](int a) {
        const ir::Node* p = g.find(a);
        // Only a value that can be saved (one tensor, not a view); a view stays recomputed.
        const ops::OpDef* pop = ops::findOp(p->target);
        const bool saveable = p->types.size() == 1 && !(pop && pop->kind == ops::OpKind::View);
        if (mustRecompute.count(a) && saveable && p->prov.checkpointRegion < n->prov.checkpointRegion) mustSave.insert(a);
      });
  for (int id : mustSave) mustRecompute.erase(id);
  for (const ir::Node* n : fw) {
    const int in = vertex.at(n->id), out = in + 1;
    if (n->kind == ir::NodeKind::Placeholder) {
      net.edge(source, in, kInf);
      net.edge(in, out, 0);
      continue;
    }
    const bool replay = forwardOf.count(n->id) > 0;
    // A view is never saved: it would keep its whole base alive while the cut counted only its
    // own bytes; its base (or what reads it) is saved instead and the view recomputed for free.
    const ops::OpDef* op = ops::findOp(n->target);
    const bool saveable = replay && n->types.size() == 1 && !(op && op->kind == ops::OpKind::View);
    const bool isReturned = replay && returned.count(forwardOf.at(n->id)) > 0;
    const bool forced = mustRecompute.count(n->id) > 0;
    net.edge(in, out, saveable && !forced ? 2 * bytesOf(n->types[0]) - (isReturned ? 1 : 0) : kInf);
    if (replay && !forced && (!recomputable(n->target) || mustSave.count(n->id))) {
      net.edge(source, in, kInf);
      p.banned.push_back(n->id);
    }
    ir::forEachNodeArg(*n, [&](int a) {
      if (auto it = vertex.find(a); it != vertex.end()) net.edge(it->second + 1, in, kInf);
    });
  }
  auto toSink = [&](int a) {
    if (auto it = vertex.find(a); it != vertex.end()) net.edge(it->second + 1, sink, kInf);
  };
  for (const auto& n : g.nodes)
    if (n.kind == ir::NodeKind::Output || backwardProper.count(n.id)) ir::forEachNodeArg(n, toSink);
  // Infinite flow with a checkpoint region: no cut of saveable values exists (the region reads a
  // value that can be neither saved nor recomputed); the caller then differentiates without a
  // partition (the backward recomputes the whole forward), which is still exact.
  if (net.maxFlow(source, sink) >= kInf && !mustRecompute.empty()) throw std::runtime_error("partition: no finite cut");
  const std::vector<bool> side = net.sourceSide(source);

  // Saved: in on the source's side, out on the sink's (a cut edge). Recomputed: both on the
  // sink's side. Source-side values are the forward's alone.
  std::map<int, int> rename;
  ir::Graph& bw = p.backward;
  bw.name = g.name;
  bw.reserveIds(g.nextId());
  std::set<int> dropped;
  for (const ir::Node* n : fw) {
    const int in = vertex.at(n->id);
    const bool inS = side[static_cast<size_t>(in)], outS = side[static_cast<size_t>(in + 1)];
    if (n->kind == ir::NodeKind::Placeholder) continue;
    if (inS && !outS) {
      const ir::Node* f = forward.find(forwardOf.at(n->id));
      p.saved.push_back(SavedValue{n->id, f->id, f->name, n->types.at(0), bytesOf(n->types.at(0))});
      p.savedBytes += p.saved.back().bytes;
      dropped.insert(n->id);
    } else if (outS) {
      dropped.insert(n->id);
    } else {
      p.recomputed.push_back(n->id);
      if (mustRecompute.count(n->id)) p.checkpointed.push_back(n->id);
    }
  }
  // primals, saved_k, tangents, then the recomputed values and the backward proper, in order.
  for (const auto& n : g.nodes)
    if (n.kind == ir::NodeKind::Placeholder && !backwardProper.count(n.id)) bw.add(n);
  for (size_t k = 0; k < p.saved.size(); ++k) {
    ir::Node s;
    s.kind = ir::NodeKind::Placeholder;
    s.name = s.target = "saved_" + std::to_string(k + 1);
    s.types = {p.saved[k].type};
    s.types[0].requiresGrad = false;
    s.prov = g.find(p.saved[k].jointNode)->prov;
    rename[p.saved[k].jointNode] = bw.add(std::move(s)).id;
  }
  for (const auto& n : g.nodes)
    if (n.kind == ir::NodeKind::Placeholder && backwardProper.count(n.id)) bw.add(n);
  for (const auto& n : g.nodes) {
    if (n.kind == ir::NodeKind::Placeholder || dropped.count(n.id)) continue;
    ir::Node c = n;
    for (auto& a : c.args) remap(a, rename);
    for (auto& [k, a] : c.kwargs) remap(a, rename);
    bw.add(std::move(c));
  }
  return p;
}

std::string Partition::summary() const {
  std::string s = "# partition (min-cut): " + std::to_string(saved.size()) + " saved tensors, " + formatBytes(savedBytes) + "; " +
                  std::to_string(recomputed.size()) + " forward nodes recomputed in the backward; " + std::to_string(banned.size()) +
                  " forward nodes never recomputed (matmul, convolution, reductions, random ...)\n";
  for (size_t k = 0; k < saved.size(); ++k)
    s += "#   saved_" + std::to_string(k + 1) + " = " + saved[k].name + "  " + saved[k].type.str() + "  " + formatBytes(saved[k].bytes) +
         "\n";
  const std::set<int> forced(checkpointed.begin(), checkpointed.end());
  if (recomputed.size() > forced.size()) {
    s += "# recomputed:";
    for (int id : recomputed)
      if (const ir::Node* n = backward.find(id); n && !forced.count(id)) s += " " + n->name + " (" + n->target + ")";
    s += "\n";
  }
  if (!forced.empty()) {
    s += "# recomputed (checkpoint):";
    for (int id : checkpointed)
      if (const ir::Node* n = backward.find(id))
        s += " " + n->name + " (" + n->target + ", region " + std::to_string(n->prov.checkpointRegion) + ")";
    s += "\n";
  }
  return s + ir::printGraph(backward);
}

}  // namespace kiln::passes
