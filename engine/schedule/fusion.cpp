#include "engine/schedule/fusion.h"

#include "engine/schedule/inline_constant.h"

#include "engine/ops/op_table.h"
#include "engine/schedule/iteration_space.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace kiln::schedule {

namespace {

// Inductor's max_fusion_size: a kernel stops growing at this many nodes.
constexpr size_t kMaxKernelNodes = 64;

std::optional<std::vector<int64_t>> concrete(const ir::Node& n) {
  if (n.types.size() != 1) return std::nullopt;
  return concreteSizes(n.types[0]);
}

using ReductionSite = IterationSpace;

// The dtypes generated kernels read and write. 16-bit floats are loaded into f32, computed in
// f32 and rounded to nearest even at the store, as Inductor does (kernel_builder.cpp); a node
// reading or making another dtype (8- and 16-bit integers) stays an eager ATen call, with the
// reason recorded, rather than a kernel that would wrap differently from PyTorch's.
bool generatedDType(ir::DType d) {
  return d == ir::DType::Float32 || d == ir::DType::Float64 || d == ir::DType::Int64 || d == ir::DType::Int32 || d == ir::DType::Bool ||
         ir::isReducedFloat(d);
}

// The short name of the first dtype of n or its inputs that kernels cannot use, or "".
std::string ungeneratedDType(const ir::Graph& g, const ir::Node& n) {
  std::string bad;
  for (const auto& t : n.types)
    if (bad.empty() && !generatedDType(t.dtype)) bad = ir::shortName(t.dtype);
  ir::forEachNodeArg(n, [&](int a) {
    const ir::Node* in = g.find(a);
    if (!in) return;
    for (const auto& t : in->types)
      if (bad.empty() && !generatedDType(t.dtype)) bad = ir::shortName(t.dtype);
  });
  return bad;
}

// A reduction code generation can emit: a concrete, non-empty input of a supported dtype.
std::optional<ReductionSite> generatedReduction(const ir::Graph& g, const ir::Node& n) {
  auto site = reductionSpace(g, n);
  if (!site || n.types.size() != 1 || !concrete(n) || std::count(site->shape.begin(), site->shape.end(), 0)) return std::nullopt;
  if (!ungeneratedDType(g, n).empty()) return std::nullopt;
  return site;
}

bool trailing(const ReductionSite& site) {
  for (size_t i = 0; i < site.reduced.size(); ++i)
    if (site.reduced[i] != static_cast<int64_t>(site.shape.size() - site.reduced.size() + i)) return false;
  return true;
}

bool isPointwise(const ir::Node& n) {
  if (n.kind != ir::NodeKind::CallFunction) return false;
  const ops::OpDef* op = ops::findOp(n.target);
  return op && op->kind == ops::OpKind::Pointwise && op->pointwise;
}

std::string shapeKey(const ir::Node& n) { return n.types.empty() ? "" : n.types[0].str().substr(n.types[0].str().find('[')); }

// A kernel being formed. A pointwise group iterates over its members' shape; a reduction group
// over `site.shape`, reducing `site.reduced` (kernel_builder.cpp builds it).
struct Group {
  std::vector<int> members;
  std::optional<ReductionSite> site;
};

// A set of group ids as bits. Each node's set holds every group upstream of it, which grows with
// the graph: as std::set<int>, copying them made fusion quadratic (2 s for a 200-layer
// transformer's 1,600 kernels); as bits a union is a few hundred word ORs.
class GroupSet {
 public:
  void insert(int gid) {
    auto w = static_cast<size_t>(gid) / 64;
    if (w >= bits_.size()) bits_.resize(w + 1, 0);
    bits_[w] |= uint64_t{1} << (gid % 64);
  }
  void insert(const GroupSet& o) {
    if (o.bits_.size() > bits_.size()) bits_.resize(o.bits_.size(), 0);
    for (size_t i = 0; i < o.bits_.size(); ++i) bits_[i] |= o.bits_[i];
  }
  void erase(int gid) {
    auto w = static_cast<size_t>(gid) / 64;
    if (w < bits_.size()) bits_[w] &= ~(uint64_t{1} << (gid % 64));
  }
  bool count(int gid) const {
    auto w = static_cast<size_t>(gid) / 64;
    return w < bits_.size() && (bits_[w] >> (gid % 64) & 1) != 0;
  }

 private:
  std::vector<uint64_t> bits_;
};

Layout layoutIn(const ReductionSite& site, const ir::Node& n) {
  auto s = concrete(n);
  return s ? schedule::layoutIn(site, *s) : Layout::None;
}

class Fuser {
 public:
  Fuser(const ir::Graph& g, Fused& out, int limit, const FusionRule& fired) : g_(g), out_(out), fired_(fired), fusionsLeft_(limit) {}

  void run() {
    for (const auto& n : g_.nodes) {
      GroupSet& d = deps_[n.id];
      ir::forEachNodeArg(n, [&](int a) {
        d.insert(deps_[a]);
        if (group_.count(a)) d.insert(group_[a]);
      });
      if (auto site = generatedReduction(g_, n)) placeReduction(n, *site);
      else if (isPointwise(n)) {
        if (std::string bad = ungeneratedDType(g_, n); !bad.empty())
          fired_("not fused: " + n.name + " runs eagerly (generated kernels do not compute in " + bad + ")", n.id);
        else placePointwise(n);
      }
    }
    name();
  }

 private:
  // Joining group gid would make n wait on a node that waits on the group: a cycle.
  bool cycle(const ir::Node& n, int gid) const {
    bool c = false;
    ir::forEachNodeArg(n, [&](int b) {
      if (group_.count(b) && group_.at(b) == gid) return;
      if (deps_.at(b).count(gid)) c = true;
    });
    return c;
  }

  bool full(int gid) const { return groups_[gid].members.size() >= kMaxKernelNodes; }

  // Whether one more fusion decision is allowed (the fusion limit); counts it.
  bool mayFuse(const ir::Node& n) {
    if (fusionsLeft_ == 0) {
      fired_("not fused: " + n.name + " is past the fusion limit", n.id);
      return false;
    }
    if (fusionsLeft_ > 0) --fusionsLeft_;
    return true;
  }

  // Why pointwise node n cannot join group gid, or "" when it can.
  std::string blockPointwise(const ir::Node& n, int gid) const {
    const Group& G = groups_[gid];
    if (full(gid)) return "not fused: " + n.name + " would grow the kernel past " + std::to_string(kMaxKernelNodes) + " nodes";
    if (!G.site) {
      if (shapeKey(*g_.find(G.members.front())) != shapeKey(n))
        return "not fused: " + n.name + " and " + g_.find(G.members.front())->name + " iterate over different shapes";
    } else {
      Layout mine = layoutIn(*G.site, n);
      if (mine == Layout::None) return "not fused: " + n.name + "'s shape does not fit the reduction kernel";
      std::string why;
      ir::forEachNodeArg(n, [&](int a) {
        if (!why.empty() || !group_.count(a) || group_.at(a) != gid) return;
        const ir::Node& p = *g_.find(a);
        Layout theirs = layoutIn(*G.site, p);
        if (mine == Layout::Full && theirs == Layout::DropDims)
          why = "not fused: " + n.name + " reads " + p.name + " without the reduced dims kept";
        else if (mine != Layout::Full && shapeKey(p) != shapeKey(n))
          why = "not fused: " + n.name + " and " + p.name + " iterate over different shapes";
      });
      if (!why.empty()) return why;
    }
    if (cycle(n, gid)) return "not fused: " + n.name + " would make kernel wait on itself";
    return "";
  }

  void placePointwise(const ir::Node& n) {
    int chosen = -1;
    std::string why;
    // Vertical: into the kernel of a producer.
    ir::forEachNodeArg(n, [&](int a) {
      if (chosen >= 0 || !group_.count(a)) return;
      std::string w = blockPointwise(n, group_[a]);
      if (w.empty()) chosen = group_[a];
      else if (why.empty()) why = w;
    });
    int h = chosen >= 0 ? -1 : sibling(n, [&](int gid) { return blockPointwise(n, gid).empty(); });
    if ((chosen >= 0 || h >= 0) && !mayFuse(n)) {
      chosen = -1;
    } else if (chosen >= 0) {
      fired_(groups_[chosen].site ? "fused: pointwise into reduction kernel" : "fused: pointwise into producer's kernel", n.id);
      mergeOtherProducers(n, chosen);
    } else if (h >= 0) {
      chosen = h;
      fired_("fused: horizontally with a kernel reading the same input", n.id);
    } else if (!why.empty()) {
      fired_(why, n.id);
    }
    join(n, chosen);
  }

  // n joins pointwise group `into` and reads another pointwise kernel of its shape: the two
  // become one kernel (an optimizer step's `exp_avg_sq * beta2 + grad * grad * (1 - beta2)`, whose
  // second term went into the `exp_avg` kernel as a sibling reading `grad`), unless a path
  // through a third kernel or an eager step joins them (that one would then wait on itself).
  void mergeOtherProducers(const ir::Node& n, int into) {
    if (groups_[into].site) return;
    std::vector<int> others;
    ir::forEachNodeArg(n, [&](int a) {
      if (group_.count(a) && group_[a] != into && std::find(others.begin(), others.end(), group_[a]) == others.end())
        others.push_back(group_[a]);
    });
    for (int from : others) {
      const Group& B = groups_[from];
      bool nThrough = false;  // n itself reads, outside both, a value that depends on `from`
      ir::forEachNodeArg(n, [&](int x) {
        if (!(group_.count(x) && (group_.at(x) == into || group_.at(x) == from)) && deps_.at(x).count(from)) nThrough = true;
      });
      if (nThrough) continue;
      if (B.site || B.members.empty() || groups_[into].members.size() + B.members.size() > kMaxKernelNodes ||
          shapeKey(*g_.find(B.members.front())) != shapeKey(n) || throughAnother(into, from) || throughAnother(from, into))
        continue;
      if (!mayFuse(n)) return;
      merge(from, into);
      fired_("fused: two producer kernels merged (a node reads both)", n.id);
    }
  }

  // Whether a member of group `a` (or the node being placed) reads, outside groups a and b, a
  // value that depends on group b.
  bool throughAnother(int a, int b) const {
    bool found = false;
    for (int m : groups_[a].members)
      ir::forEachNodeArg(*g_.find(m), [&](int x) {
        if (found || (group_.count(x) && (group_.at(x) == a || group_.at(x) == b))) return;
        if (deps_.count(x) && deps_.at(x).count(b)) found = true;
      });
    return found;
  }

  // Group `from`'s members move to `into`; what depended on `from` depends on `into`.
  void merge(int from, int into) {
    Group& B = groups_[from];
    Group& A = groups_[into];
    for (int m : B.members) group_[m] = into;
    A.members.insert(A.members.end(), B.members.begin(), B.members.end());
    B.members.clear();
    for (auto& [id, d] : deps_)
      if (d.count(from)) d.insert(into);
    for (int m : A.members) deps_[m].erase(into), deps_[m].erase(from);
    for (auto& [id, rs] : readers_) {
      auto it = std::find(rs.begin(), rs.end(), from);
      if (it == rs.end()) continue;
      rs.erase(it);
      if (std::find(rs.begin(), rs.end(), into) == rs.end()) rs.push_back(into);
    }
  }

  void placeReduction(const ir::Node& n, const ReductionSite& site) {
    int x = n.args[0].node;
    int chosen = -1;
    if (group_.count(x)) {
      int gid = group_[x];
      const Group& G = groups_[gid];
      std::string why;
      if (full(gid)) why = "not fused: " + n.name + " would grow the kernel past " + std::to_string(kMaxKernelNodes) + " nodes";
      else if (G.site && (G.site->shape != site.shape || G.site->reduced != site.reduced))
        why = "not fused: " + n.name + " reduces a different iteration space than its producer's kernel";
      else if (G.site && layoutIn(*G.site, *g_.find(x)) != Layout::Full)
        why = "not fused: " + n.name + " reduces a value its producer's kernel computes once per row";
      if (why.empty() && mayFuse(n)) {
        chosen = gid;
        fired_(G.site ? "fused: reduction into reduction kernel" : "fused: reduction with its pointwise prologue", n.id);
      } else if (!why.empty()) {
        fired_(why, n.id);
      }
    }
    if (chosen < 0 && fusionsLeft_ != 0) {
      chosen = sibling(n, [&](int gid) {
        const Group& G = groups_[gid];
        if (full(gid) || cycle(n, gid)) return false;
        if (G.site) return G.site->shape == site.shape && G.site->reduced == site.reduced;
        // A pointwise sibling would be walked in the reduction's loop order: only worth it when
        // the reduced dims are the innermost (contiguous) ones.
        return concrete(*g_.find(G.members.front())) == site.shape && trailing(site);
      });
      if (chosen >= 0 && mayFuse(n)) fired_("fused: horizontally with a kernel reading the same input", n.id);
      else if (chosen >= 0) chosen = -1;
      else fired_("reduction kernel", n.id);
    } else if (chosen < 0) {
      fired_("reduction kernel", n.id);
    }
    join(n, chosen);
    groups_[group_[n.id]].site = site;
  }

  // A group (other than through n's producers) whose members read one of n's inputs and that
  // `ok` accepts; -1 if none.
  template <class Ok>
  int sibling(const ir::Node& n, Ok ok) const {
    int found = -1;
    ir::forEachNodeArg(n, [&](int a) {
      if (found >= 0) return;
      auto it = readers_.find(a);
      if (it == readers_.end()) return;
      for (int gid : it->second)
        if (ok(gid)) {
          found = gid;
          return;
        }
    });
    return found;
  }

  void join(const ir::Node& n, int gid) {
    if (gid < 0) {
      gid = static_cast<int>(groups_.size());
      groups_.emplace_back();
    }
    group_[n.id] = gid;
    groups_[gid].members.push_back(n.id);
    deps_[n.id].erase(gid);
    ir::forEachNodeArg(n, [&](int a) {
      auto& rs = readers_[a];
      if (std::find(rs.begin(), rs.end(), gid) == rs.end()) rs.push_back(gid);
    });
  }

  // Kernels are named after their ops, as Inductor's are: cpp_fused_<ops>_<n>.
  void name() {
    int index = 0;
    std::map<int, std::string> names;
    for (const auto& n : g_.nodes) {
      if (!group_.count(n.id) || names.count(group_[n.id])) continue;
      int gid = group_[n.id];
      std::set<std::string> opNames;
      for (int m : groups_[gid].members) {
        std::string t = g_.find(m)->target;
        size_t a = t.find('.'), b = t.find('.', a + 1);
        opNames.insert(t.substr(a + 1, b - a - 1));
      }
      std::string nm = "cpp_fused";
      for (const auto& o : opNames) nm += "_" + o;
      names[gid] = nm + "_" + std::to_string(index++);
    }
    for (auto& n : out_.graph.nodes)
      if (group_.count(n.id)) n.kernel = names[group_[n.id]];
    // Constants all of whose users are kernel members become literals in those kernels.
    for (auto& n : out_.graph.nodes) {
      if (!inlineConstant(n)) continue;
      std::vector<int> users = g_.users(n.id);
      bool allInKernels = !users.empty();
      for (int u : users) allInKernels = allInKernels && group_.count(u);
      if (!allInKernels) continue;
      n.kernel = names[group_[users.front()]];
      fired_("fused: constant inlined as a literal into its users' kernels", n.id);
    }
    out_.changed = !names.empty();
  }

  const ir::Graph& g_;
  Fused& out_;
  const FusionRule& fired_;
  std::vector<Group> groups_;
  std::map<int, int> group_;                 // node id -> group
  std::map<int, GroupSet> deps_;             // node id -> groups it depends on, transitively
  std::map<int, std::vector<int>> readers_;  // node id -> groups with a member reading it
  int fusionsLeft_ = -1;                     // -1: no limit
};

}  // namespace

Fused fuse(const ir::Graph& g, int fusionLimit, const FusionRule& fired) {
  Fused r;
  r.graph = g;
  Fuser(g, r, fusionLimit, fired).run();
  return r;
}

}  // namespace kiln::schedule
