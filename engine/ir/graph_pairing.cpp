#include "engine/ir/graph_pairing.h"

#include "engine/ir/text.h"

#include <algorithm>
#include <deque>

namespace kiln::ir {

namespace {

std::string baseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Where a node came from, as both compilers can state it: the file's base name (an imported
// run names files by the paths of the machine that recorded it) and the line.
std::string lineOf(const Node& n) { return n.prov.loc.line > 0 ? baseName(n.prov.loc.file) + ":" + std::to_string(n.prov.loc.line) : ""; }

std::string opKey(const Node& n) {
  return std::to_string(static_cast<int>(n.kind)) + " " + (n.kind == NodeKind::Placeholder ? "" : n.target);
}

std::string exactKey(const Node& n) {
  if (n.kind == NodeKind::Placeholder) return "placeholder " + n.target;
  return opKey(n) + " @" + lineOf(n);
}

// Pairs the not yet paired nodes of equal key, the k-th of A's with the k-th of B's.
template <class KeyFn>
void pairBy(const Graph& a, const Graph& b, GraphPairing& p, KeyFn key) {
  std::map<std::string, std::deque<int>> waiting;  // key -> ids of B's unpaired nodes, in order
  for (const auto& n : b.nodes)
    if (!p.bToA.count(n.id)) waiting[key(n)].push_back(n.id);
  for (const auto& n : a.nodes) {
    if (p.aToB.count(n.id)) continue;
    auto it = waiting.find(key(n));
    if (it == waiting.end() || it->second.empty()) continue;
    p.aToB[n.id] = it->second.front();
    p.bToA[it->second.front()] = n.id;
    it->second.pop_front();
  }
}

// Two arguments agree when node references point at partners and constants print alike.
bool sameArg(const Graph& ga, const Arg& x, const Graph& gb, const Arg& y, const GraphPairing& p) {
  if (x.isNode() || y.isNode()) {
    if (!x.isNode() || !y.isNode()) return false;
    auto it = p.aToB.find(x.node);
    return it != p.aToB.end() && it->second == y.node;
  }
  if (x.kind == Arg::Kind::List && y.kind == Arg::Kind::List) {
    if (x.list.size() != y.list.size()) return false;
    for (size_t i = 0; i < x.list.size(); ++i)
      if (!sameArg(ga, x.list[i], gb, y.list[i], p)) return false;
    return true;
  }
  return printArg(ga, x) == printArg(gb, y);
}

std::string typesOf(const Node& n) {
  std::string s;
  for (const auto& t : n.types) s += (s.empty() ? "" : ", ") + t.str();
  return s.empty() ? "-" : s;
}

// Symbolic sizes are named by each compiler its own way (PyTorch's s70 is Kiln's s0): two
// symbols agree when they are each other's first partner, a bijection built in graph order.
struct Symbols {
  std::map<std::string, std::string> aToB, bToA;
  bool agree(const std::string& x, const std::string& y) {
    auto ia = aToB.find(x);
    auto ib = bToA.find(y);
    if (ia == aToB.end() && ib == bToA.end()) {
      aToB[x] = y;
      bToA[y] = x;
      return true;
    }
    return ia != aToB.end() && ia->second == y;
  }
};

bool sameTypes(const Node& x, const Node& y, Symbols& syms) {
  if (x.types.size() != y.types.size()) return false;
  for (size_t i = 0; i < x.types.size(); ++i) {
    const TensorType &s = x.types[i], &t = y.types[i];
    if (s.dtype != t.dtype || s.sizes.size() != t.sizes.size()) return false;
    for (size_t d = 0; d < s.sizes.size(); ++d) {
      const Dim &u = s.sizes[d], &v = t.sizes[d];
      if (u.symbolic() != v.symbolic() || (u.symbolic() ? !syms.agree(u.symbol, v.symbol) : u.value != v.value)) return false;
    }
  }
  return true;
}

std::vector<std::string> differences(const Graph& ga, const Node& x, const Graph& gb, const Node& y, const GraphPairing& p, Symbols& syms) {
  std::vector<std::string> out;
  if (x.kind == NodeKind::Placeholder) {
    if (x.target != y.target) out.push_back("input name " + x.target + " vs " + y.target);
  } else if (lineOf(x) != lineOf(y)) {
    out.push_back("source line " + (lineOf(x).empty() ? "-" : lineOf(x)) + " vs " + (lineOf(y).empty() ? "-" : lineOf(y)));
  }
  if (x.args.size() != y.args.size()) {
    out.push_back(std::to_string(x.args.size()) + " vs " + std::to_string(y.args.size()) + " arguments");
  } else {
    for (size_t i = 0; i < x.args.size(); ++i)
      if (!sameArg(ga, x.args[i], gb, y.args[i], p))
        out.push_back("argument " + std::to_string(i) + " " + printArg(ga, x.args[i]) + " vs " + printArg(gb, y.args[i]));
  }
  std::map<std::string, const Arg*> kx, ky;
  for (const auto& [k, v] : x.kwargs) kx[k] = &v;
  for (const auto& [k, v] : y.kwargs) ky[k] = &v;
  for (const auto& [k, v] : kx) {
    auto it = ky.find(k);
    if (it == ky.end()) out.push_back("keyword " + k + "=" + printArg(ga, *v) + " vs none");
    else if (!sameArg(ga, *v, gb, *it->second, p))
      out.push_back("keyword " + k + "=" + printArg(ga, *v) + " vs " + printArg(gb, *it->second));
  }
  for (const auto& [k, v] : ky)
    if (!kx.count(k)) out.push_back("keyword " + k + "=none vs " + printArg(gb, *v));
  // Shapes and dtypes; strides and devices are left out (PyTorch's logs print them, Kiln's
  // graphs keep only what its types say), symbols compared through their pairing.
  // A side that states no type (PyTorch's logs print none for a tuple result such as chunk's)
  // is not compared: unknown is not a difference.
  if (!x.types.empty() && !y.types.empty() && !sameTypes(x, y, syms)) out.push_back("type " + typesOf(x) + " vs " + typesOf(y));
  return out;
}

}  // namespace

int GraphPairing::differing() const {
  return static_cast<int>(std::count_if(pairs.begin(), pairs.end(), [](const NodePair& q) { return !q.differences.empty(); }));
}

GraphPairing pairGraphs(const Graph& a, const Graph& b) {
  GraphPairing p;
  pairBy(a, b, p, exactKey);
  pairBy(a, b, p, opKey);
  Symbols syms;
  for (const auto& n : a.nodes) {
    auto it = p.aToB.find(n.id);
    if (it == p.aToB.end()) {
      p.onlyA.push_back(n.id);
      continue;
    }
    const Node* m = b.find(it->second);
    p.pairs.push_back({n.id, m->id, differences(a, n, b, *m, p, syms)});
  }
  for (const auto& n : b.nodes)
    if (!p.bToA.count(n.id)) p.onlyB.push_back(n.id);
  return p;
}

std::string describeNode(const Node& n) {
  std::string s = n.name;
  if (n.kind == NodeKind::Placeholder) s += " (input " + n.target + ")";
  else if (n.kind == NodeKind::Output) s += " (output)";
  else s += " (" + n.target + ")";
  if (const std::string at = lineOf(n); !at.empty()) s += " at " + at;
  return s;
}

}  // namespace kiln::ir
