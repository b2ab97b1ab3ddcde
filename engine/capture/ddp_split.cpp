#include "engine/capture/ddp_split.h"

#include <deque>
#include <map>
#include <set>

namespace kiln::capture {

namespace {

struct Bucket {
  int64_t size = 0;
  std::vector<std::string> params;
  std::vector<int> nodes;  // reverse graph order, as collected
};

bool hasExternalOutput(const ir::Graph& g, const Bucket& b) {
  std::set<int> inside(b.nodes.begin(), b.nodes.end());
  for (int id : b.nodes)
    for (int user : g.users(id))
      if (!inside.count(user)) return true;
  return false;
}

}  // namespace

DdpBuckets ddpBuckets(const ir::Graph& g, const std::vector<int64_t>& paramBytes, int64_t cap, int64_t firstCap) {
  std::map<int, size_t> placeholderIndex;
  {
    size_t i = 0;
    for (const ir::Node* p : g.placeholders()) placeholderIndex[p->id] = i++;
  }
  std::deque<Bucket> buckets(1);
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    const ir::Node& n = *it;
    if (n.kind == ir::NodeKind::Output || n.kind == ir::NodeKind::Placeholder) continue;
    Bucket& front = buckets.front();
    if (front.size >= cap || (buckets.size() == 1 && front.size >= firstCap)) {
      if (hasExternalOutput(g, front)) buckets.emplace_front();
    }
    Bucket& cur = buckets.front();
    if (n.isCall()) {
      for (const ir::Arg& a : n.args) {  // direct arguments only, as FX's node.args
        if (!a.isNode()) continue;
        auto pi = placeholderIndex.find(a.node);
        if (pi == placeholderIndex.end() || pi->second >= paramBytes.size() || paramBytes[pi->second] == 0) continue;
        cur.size += paramBytes[pi->second];
        cur.params.push_back(g.find(a.node)->name);
      }
    }
    cur.nodes.push_back(n.id);
  }
  if (buckets.size() > 1 && buckets.front().size == 0) {
    Bucket pre = std::move(buckets.front());
    buckets.pop_front();
    buckets.front().nodes.insert(buckets.front().nodes.end(), pre.nodes.begin(), pre.nodes.end());
  }
  DdpBuckets out;
  for (auto& b : buckets) {
    out.nodes.emplace_back(b.nodes.rbegin(), b.nodes.rend());
    out.bytes.push_back(b.size);
    out.params.push_back(b.params);
  }
  return out;
}

std::optional<DdpSplit> splitForDdp(const ir::Graph& g, const DdpBuckets& buckets, std::string* why) {
  auto fail = [&](const std::string& reason) -> std::optional<DdpSplit> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (buckets.nodes.size() < 2) return fail("one bucket");
  std::map<int, int> pieceOf;
  for (size_t b = 0; b < buckets.nodes.size(); ++b)
    for (int id : buckets.nodes[b]) pieceOf[id] = int(b);
  std::map<int, int> placeholderIndex;
  {
    int i = 0;
    for (const ir::Node* p : g.placeholders()) placeholderIndex[p->id] = i++;
  }
  for (const auto& n : g.nodes) {
    if (n.target == "torch._C._set_grad_enabled" || n.target.find("autocast") != std::string::npos)
      return fail("the graph changes grad mode or autocast (" + n.target + ")");
  }
  const ir::Node* out = g.output();
  if (!out || out->args.size() != 1 || out->args[0].kind != ir::Arg::Kind::List) return fail("the graph's output is not a list");
  for (const auto& a : out->args[0].list)
    if (!a.isNode()) return fail("an output that is not a graph value");

  // Values each piece needs from elsewhere, and values each piece hands on.
  const size_t np = buckets.nodes.size();
  std::vector<std::vector<int>> needs(np), gives(np);
  std::vector<std::set<int>> needSet(np), giveSet(np);
  auto crossing = [&](int producer, size_t consumerPiece) -> std::optional<std::string> {
    const ir::Node* p = g.find(producer);
    if (!p) return "a missing node";
    if (p->kind != ir::NodeKind::Placeholder && p->types.size() != 1) return "'" + p->name + "' (not one tensor) is used across buckets";
    if (needSet[consumerPiece].insert(producer).second) needs[consumerPiece].push_back(producer);
    if (p->kind != ir::NodeKind::Placeholder) {
      int from = pieceOf.at(producer);
      if (giveSet[size_t(from)].insert(producer).second) gives[size_t(from)].push_back(producer);
    }
    return std::nullopt;
  };
  for (const auto& n : g.nodes) {
    if (n.kind == ir::NodeKind::Placeholder || n.kind == ir::NodeKind::Output) continue;
    size_t mine = size_t(pieceOf.at(n.id));
    std::optional<std::string> bad;
    ir::forEachNodeArg(n, [&](int id) {
      if (bad) return;
      auto it = pieceOf.find(id);
      if (it != pieceOf.end() && size_t(it->second) == mine) return;
      bad = crossing(id, mine);
    });
    if (bad) return fail(*bad);
  }
  for (const auto& a : out->args[0].list) {
    const ir::Node* p = g.find(a.node);
    if (!p) return fail("a missing output");
    if (p->kind == ir::NodeKind::Placeholder) continue;
    if (p->types.size() != 1) return fail("'" + p->name + "' (not one tensor) is an output");
    int from = pieceOf.at(a.node);
    if (giveSet[size_t(from)].insert(a.node).second) gives[size_t(from)].push_back(a.node);
  }

  DdpSplit s;
  s.buckets = buckets;
  std::map<int, DdpRef> where;  // original node id -> where its value lives
  for (const auto& [id, idx] : placeholderIndex) where[id] = DdpRef{-1, idx};
  for (size_t b = 0; b < np; ++b) {
    DdpPiece piece;
    ir::Graph& pg = piece.graph;
    pg.name = "submod_" + std::to_string(b);
    pg.reserveIds(g.nextId());
    std::map<int, int> remap;  // original id -> id in this piece
    for (int id : needs[b]) {
      const ir::Node* src = g.find(id);
      ir::Node ph;
      ph.kind = ir::NodeKind::Placeholder;
      ph.name = src->name;
      ph.target = src->kind == ir::NodeKind::Placeholder ? src->target : src->name;
      ph.types = src->types;
      ph.prov = src->prov;
      remap[id] = pg.add(std::move(ph)).id;
      piece.inputs.push_back(where.at(id));
    }
    std::set<int> members(buckets.nodes[b].begin(), buckets.nodes[b].end());
    auto fix = [&](ir::Arg& a, auto&& self) -> void {
      if (a.isNode()) {
        auto r = remap.find(a.node);
        if (r != remap.end()) a.node = r->second;
      }
      for (auto& x : a.list) self(x, self);
    };
    for (const auto& n : g.nodes) {
      if (!members.count(n.id)) continue;
      ir::Node copy = n;
      for (auto& a : copy.args) fix(a, fix);
      for (auto& [k, a] : copy.kwargs) fix(a, fix);
      remap[n.id] = pg.add(std::move(copy)).id;
    }
    ir::Node o;
    o.kind = ir::NodeKind::Output;
    o.name = "output";
    o.target = "output";
    std::vector<ir::Arg> refs;
    for (size_t k = 0; k < gives[b].size(); ++k) {
      refs.push_back(ir::Arg::ref(remap.at(gives[b][k])));
      where[gives[b][k]] = DdpRef{int(b), int(k)};
    }
    o.args.push_back(ir::Arg::listOf(std::move(refs)));
    pg.add(std::move(o));
    s.pieces.push_back(std::move(piece));
  }
  for (const auto& a : out->args[0].list) s.outputs.push_back(where.at(a.node));
  return s;
}

namespace {

// Forwards a piece's compile events, named for the piece.
class PieceSink : public session::SessionSink {
 public:
  PieceSink(session::SessionSink& out, std::string prefix, int orderBase) : out_(out), prefix_(std::move(prefix)), orderBase_(orderBase) {}
  void stage(const session::StageEvent& e) override {
    session::StageEvent c = e;
    c.stage = prefix_ + ": " + e.stage;
    c.order = orderBase_ + e.order;
    out_.stage(c);
  }
  void kernel(const session::KernelEvent& e) override {
    session::KernelEvent c = e;
    c.name = prefix_ + "_" + e.name;
    out_.kernel(c);
  }
  void kernelViews(const session::KernelViewsEvent& e) override {
    session::KernelViewsEvent c = e;
    for (auto& k : c.kernels) k.name = prefix_ + "_" + k.name;  // the rows kernel() named
    out_.kernelViews(c);
  }
  bool wantsKernelViews() const override { return out_.wantsKernelViews(); }
  // Collected into one wrapper for the compile (compileDdpPieces); a later one (a backward's)
  // goes out on its own.
  void wrapper(const session::WrapperEvent& e) override {
    if (done_) {
      out_.wrapper(session::WrapperEvent{e.compileId, "# " + prefix_ + "\n" + e.text});
      return;
    }
    wrapper_ += "# " + prefix_ + "\n" + e.text + "\n";
  }
  void compiled() { done_ = true; }
  void timing(const session::TimingEvent& e) override { out_.timing(e); }
  void autotune(const session::AutotuneEvent& e) override {
    session::AutotuneEvent c = e;
    c.node = prefix_ + "_" + e.node;  // as kernel() names the piece's kernels: one compile id for all pieces
    out_.autotune(c);
  }
  void artifact(const session::ArtifactEvent& e) override { out_.artifact(e); }
  const std::string& wrapperText() const { return wrapper_; }

 private:
  session::SessionSink& out_;
  std::string prefix_;
  int orderBase_;
  std::string wrapper_;
  bool done_ = false;
};

}  // namespace

void compileDdpPieces(DdpSplit& s, Backend& backend, const std::string& cid, session::SessionSink& sink, const std::string& mode) {
  std::string wrappers;
  for (size_t i = 0; i < s.pieces.size(); ++i) {
    DdpPiece& p = s.pieces[i];
    auto ps = std::make_shared<PieceSink>(sink, p.graph.name, 100 * int(i + 1));
    p.sink = ps;
    CompileRequest request{&p.graph, nullptr, true, mode};  // torch.compile's mode reaches every piece
    CompiledCode code = backend.compile(p.graph, cid, *ps, request);
    p.run = std::move(code.run);
    p.backward = std::move(code.backward);
    wrappers += ps->wrapperText();
    ps->compiled();
  }
  if (!wrappers.empty()) sink.wrapper(session::WrapperEvent{cid, wrappers});
}

std::vector<tensor::Tensor> runDdpPieces(
    const DdpSplit& s, const std::vector<tensor::Tensor>& inputs,
    const std::function<std::vector<tensor::Tensor>(const DdpPiece&, const std::vector<tensor::Tensor>&)>& runPiece) {
  std::vector<std::vector<tensor::Tensor>> results(s.pieces.size());
  auto value = [&](const DdpRef& r) -> const tensor::Tensor& {
    return r.piece < 0 ? inputs.at(size_t(r.index)) : results.at(size_t(r.piece)).at(size_t(r.index));
  };
  for (size_t i = 0; i < s.pieces.size(); ++i) {
    std::vector<tensor::Tensor> in;
    for (const auto& r : s.pieces[i].inputs) in.push_back(value(r));
    results[i] = runPiece(s.pieces[i], in);
  }
  std::vector<tensor::Tensor> out;
  for (const auto& r : s.outputs) out.push_back(value(r));
  return out;
}

std::string describeDdpSplit(const DdpSplit& s) {
  std::string text = "DDPOptimizer used bucket cap " + std::to_string(s.bucketCap) + " and created " +
                     std::to_string(s.buckets.nodes.size()) + " buckets. Enable debug logs for detailed bucket info.\n";
  text += "Index  Size (b)  Param Names\n";
  // PyTorch's table lists the buckets from the last (the first all-reduced) to the first.
  for (size_t r = 0; r < s.buckets.nodes.size(); ++r) {
    size_t b = s.buckets.nodes.size() - 1 - r;
    const auto& params = s.buckets.params[b];
    for (size_t k = 0; k < params.size(); ++k) {
      if (k == 0) text += std::to_string(r) + "      " + std::to_string(s.buckets.bytes[b]) + "  " + params[k] + "\n";
      else text += "                " + params[k] + "\n";
    }
  }
  return text;
}

}  // namespace kiln::capture
