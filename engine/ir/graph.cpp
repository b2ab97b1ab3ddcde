#include "engine/ir/graph.h"

#include <algorithm>
#include <set>
#include <unordered_set>

namespace kiln::ir {

const Arg* Node::kwarg(const std::string& key) const {
  for (const auto& [k, v] : kwargs)
    if (k == key) return &v;
  return nullptr;
}

Node& Graph::add(Node n) {
  if (n.id < 0) n.id = nextId_;
  nextId_ = std::max(nextId_, n.id + 1);
  if (n.name.empty()) n.name = "node";
  bool taken = false;
  for (const auto& m : nodes)
    if (m.name == n.name) {
      taken = true;
      break;
    }
  if (taken) n.name = uniqueName(n.name);
  nodes.push_back(std::move(n));
  return nodes.back();
}

size_t Graph::slot(int id) const {
  auto valid = [&](size_t i) { return i < nodes.size() && nodes[i].id == id; };
  auto it = index_.find(id);
  if (it != index_.end() && valid(it->second)) return it->second;
  // Most misses are nodes appended since the index was made (capture names the node it just
  // added): index those from the back, down to the first one already indexed at its place,
  // instead of rebuilding the whole index per new node (quadratic: a 200-layer model's
  // capture spent seconds here).
  for (size_t k = nodes.size(); k-- > 0;) {
    auto f = index_.find(nodes[k].id);
    if (f != index_.end() && f->second == k) break;
    if (f != index_.end() && f->second < k && nodes[f->second].id == nodes[k].id) continue;  // first wins
    index_.insert_or_assign(nodes[k].id, k);
  }
  it = index_.find(id);
  if (it != index_.end() && valid(it->second)) return it->second;
  index_.clear();
  index_.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) index_.emplace(nodes[i].id, i);  // first wins, as the scan did
  it = index_.find(id);
  return it != index_.end() && valid(it->second) ? it->second : nodes.size();
}

const Node* Graph::find(int id) const {
  size_t i = slot(id);
  return i < nodes.size() ? &nodes[i] : nullptr;
}

Node* Graph::find(int id) {
  size_t i = slot(id);
  return i < nodes.size() ? &nodes[i] : nullptr;
}

int Graph::indexOf(int id) const {
  size_t i = slot(id);
  return i < nodes.size() ? static_cast<int>(i) : -1;
}

std::vector<const Node*> Graph::placeholders() const {
  std::vector<const Node*> out;
  for (const auto& n : nodes)
    if (n.kind == NodeKind::Placeholder) out.push_back(&n);
  return out;
}

const Node* Graph::output() const {
  for (const auto& n : nodes)
    if (n.kind == NodeKind::Output) return &n;
  return nullptr;
}

static void visitArg(const Arg& a, const std::function<void(int)>& f) {
  if (a.kind == Arg::Kind::Node) f(a.node);
  for (const auto& x : a.list) visitArg(x, f);
}

void forEachNodeArg(const Node& n, const std::function<void(int)>& f) {
  for (const auto& a : n.args) visitArg(a, f);
  for (const auto& [k, a] : n.kwargs) visitArg(a, f);
}

std::vector<int> Graph::users(int id) const {
  std::vector<int> out;
  for (const auto& n : nodes) {
    bool uses = false;
    forEachNodeArg(n, [&](int a) { uses = uses || a == id; });
    if (uses) out.push_back(n.id);
  }
  return out;
}

// FX avoids Python builtins and keywords as names (`input` becomes `input_1`).
static bool reservedName(const std::string& s) {
  static const std::set<std::string> kReserved = {
      "input",  "list",  "dict", "tuple", "set",  "int",    "float", "bool",  "str",    "type",  "len",    "min",
      "max",    "sum",   "abs",  "range", "map",  "filter", "id",    "print", "object", "slice", "None",   "True",
      "False",  "and",   "or",   "not",   "if",   "else",   "for",   "in",    "is",     "def",   "return", "class",
      "lambda", "while", "with", "as",    "from", "import", "pass",  "self",  "torch",  "inf",   "nan"};
  return kReserved.count(s) > 0;
}

std::string Graph::uniqueName(const std::string& hint) const {
  std::string base = hint.empty() ? "node" : hint;
  // FX strips an existing numeric suffix before counting up: x_1 -> x_2, not x_1_1.
  auto us = base.rfind('_');
  if (us != std::string::npos && us + 1 < base.size() && std::all_of(base.begin() + us + 1, base.end(), ::isdigit))
    base = base.substr(0, us);
  // One pass, keeping only what matters: whether `hint` is taken and which base_N suffixes are
  // (building a set of every name per call made capture quadratic: 1.9 s for 4,000 nodes).
  bool hintTaken = false;
  std::unordered_set<long long> suffixes;
  for (const auto& n : nodes) {
    const std::string& nm = n.name;
    if (nm == hint) hintTaken = true;
    if (nm.size() > base.size() + 1 && nm[base.size()] == '_' && nm.compare(0, base.size(), base) == 0 &&
        nm.size() - base.size() - 1 <= 18 && std::all_of(nm.begin() + static_cast<long>(base.size()) + 1, nm.end(), ::isdigit))
      suffixes.insert(std::stoll(nm.substr(base.size() + 1)));
  }
  if (!hintTaken && !reservedName(hint)) return hint;
  for (long long i = 1;; ++i)
    if (!suffixes.count(i)) return base + "_" + std::to_string(i);
}

static void replaceIn(Arg& a, int from, int to) {
  if (a.kind == Arg::Kind::Node && a.node == from) a.node = to;
  for (auto& x : a.list) replaceIn(x, from, to);
}

void Graph::replaceAllUses(int from, int to) {
  for (auto& n : nodes) {
    for (auto& a : n.args) replaceIn(a, from, to);
    for (auto& [k, a] : n.kwargs) replaceIn(a, from, to);
  }
}

void Graph::remove(int id) {
  nodes.erase(std::remove_if(nodes.begin(), nodes.end(), [&](const Node& n) { return n.id == id; }), nodes.end());
}

int Graph::opCount() const {
  int c = 0;
  for (const auto& n : nodes) c += n.isCall() ? 1 : 0;
  return c;
}

}  // namespace kiln::ir
