#include "engine/ir/graph.h"

#include <algorithm>
#include <set>

namespace kiln::ir {

const Arg* Node::kwarg(const std::string& key) const {
  for (const auto& [k, v] : kwargs)
    if (k == key) return &v;
  return nullptr;
}

static bool allDigits(std::string::const_iterator b, std::string::const_iterator e) {
  return std::all_of(b, e, [](char c) { return c >= '0' && c <= '9'; });
}

// `name` as base_N when it ends in '_' and 1 to 18 digits (what uniqueName counts up from).
static bool splitSuffix(const std::string& name, std::string& base, long long& n) {
  auto us = name.rfind('_');
  if (us == std::string::npos || us + 1 >= name.size() || name.size() - us - 1 > 18) return false;
  if (!allDigits(name.begin() + static_cast<long>(us) + 1, name.end())) return false;
  base = name.substr(0, us);
  n = std::stoll(name.substr(us + 1));
  return true;
}

void NameIndex::insert(const std::string& name) {
  ++count[name];
  std::string base;
  long long n = 0;
  if (splitSuffix(name, base, n)) ++bases[base].count[n];
}

void NameIndex::erase(const std::string& name) {
  auto it = count.find(name);
  if (it == count.end()) return;
  if (--it->second == 0) count.erase(it);
  std::string base;
  long long n = 0;
  if (!splitSuffix(name, base, n)) return;
  auto b = bases.find(base);
  if (b == bases.end()) return;
  auto c = b->second.count.find(n);
  if (c == b->second.count.end() || --c->second > 0) return;
  b->second.count.erase(c);
  if (b->second.count.empty()) bases.erase(b);
  else if (n >= 1 && n < b->second.lowestFree) b->second.lowestFree = n;
}

long long NameIndex::lowestFree(const std::string& base) {
  auto b = bases.find(base);
  if (b == bases.end()) return 1;
  Suffixes& s = b->second;
  while (s.count.count(s.lowestFree)) ++s.lowestFree;
  return s.lowestFree;
}

NameIndex& Graph::names() const {
  NameIndex& x = names_;
  // Nodes appended to `nodes` since are indexed; anything else (an insertion or an erasure
  // before the last node seen) rebuilds the index.
  const bool intact =
      x.size <= nodes.size() && (x.size == 0 ? x.count.empty() : nodes[x.size - 1].id == x.lastId && nodes[x.size - 1].name == x.lastName);
  if (!intact) x = NameIndex{};
  for (size_t i = x.size; i < nodes.size(); ++i) x.insert(nodes[i].name);
  namesSeen();
  return x;
}

void Graph::namesSeen() const {
  names_.size = nodes.size();
  names_.lastId = nodes.empty() ? -1 : nodes.back().id;
  names_.lastName = nodes.empty() ? std::string() : nodes.back().name;
}

Node& Graph::add(Node n) { return insert(nodes.size(), std::move(n)); }

Node& Graph::insert(size_t at, Node n) {
  if (n.id < 0) n.id = nextId_;
  nextId_ = std::max(nextId_, n.id + 1);
  if (n.name.empty()) n.name = "node";
  NameIndex& x = names();
  if (x.taken(n.name)) n.name = uniqueName(n.name);
  x.insert(n.name);
  at = std::min(at, nodes.size());
  nodes.insert(nodes.begin() + static_cast<long>(at), std::move(n));
  namesSeen();
  return nodes[at];
}

void Graph::rename(int id, std::string name) {
  NameIndex& x = names();
  Node* n = find(id);
  if (!n) return;
  x.erase(n->name);
  n->name = std::move(name);
  x.insert(n->name);
  namesSeen();
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
  if (us != std::string::npos && us + 1 < base.size() && allDigits(base.begin() + static_cast<long>(us) + 1, base.end()))
    base = base.substr(0, us);
  NameIndex& x = names();
  if (!x.taken(hint) && !reservedName(hint)) return hint;
  return base + "_" + std::to_string(x.lowestFree(base));
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
  NameIndex& x = names();
  for (const auto& n : nodes)
    if (n.id == id) x.erase(n.name);
  nodes.erase(std::remove_if(nodes.begin(), nodes.end(), [&](const Node& n) { return n.id == id; }), nodes.end());
  namesSeen();
}

int Graph::opCount() const {
  int c = 0;
  for (const auto& n : nodes) c += n.isCall() ? 1 : 0;
  return c;
}

}  // namespace kiln::ir
