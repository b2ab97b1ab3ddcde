// The one graph IR used by the captured, ATen, optimized and fused stages. Only the op
// namespace differs between stages (torch.* / Tensor methods / _operator.* when captured,
// aten.* after lowering). Nodes are kept in topological order; ids are stable within a graph
// and are what provenance refers to.
#pragma once

#include "engine/ir/types.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::ir {

// A node argument: a reference to another node, or a Python constant (or list thereof).
struct Arg {
  // Expr: a Python expression kept verbatim in `s` (`torch.strided`, `device(type='cpu')`):
  // what graphs recorded by real PyTorch hold and Kiln's own graphs never need. Only the
  // importers make it; the runtime refuses to evaluate it.
  enum class Kind { Node, None, Bool, Int, Float, String, DType, List, Expr };
  Kind kind = Kind::None;
  int node = -1;
  int64_t i = 0;
  double f = 0.0;
  bool b = false;
  std::string s;
  DType dtype = DType::Float32;
  std::vector<Arg> list;

  static Arg ref(int id) {
    Arg a;
    a.kind = Kind::Node;
    a.node = id;
    return a;
  }
  static Arg none() { return Arg{}; }
  static Arg boolean(bool v) {
    Arg a;
    a.kind = Kind::Bool;
    a.b = v;
    return a;
  }
  static Arg integer(int64_t v) {
    Arg a;
    a.kind = Kind::Int;
    a.i = v;
    return a;
  }
  static Arg real(double v) {
    Arg a;
    a.kind = Kind::Float;
    a.f = v;
    return a;
  }
  static Arg string(std::string v) {
    Arg a;
    a.kind = Kind::String;
    a.s = std::move(v);
    return a;
  }
  static Arg dtypeArg(DType d) {
    Arg a;
    a.kind = Kind::DType;
    a.dtype = d;
    return a;
  }
  static Arg listOf(std::vector<Arg> v) {
    Arg a;
    a.kind = Kind::List;
    a.list = std::move(v);
    return a;
  }
  static Arg expr(std::string v) {
    Arg a;
    a.kind = Kind::Expr;
    a.s = std::move(v);
    return a;
  }
  bool isNode() const { return kind == Kind::Node; }
  bool isNumber() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  double number() const { return kind == Kind::Float ? f : kind == Kind::Int ? double(i) : b ? 1.0 : 0.0; }
  bool operator==(const Arg&) const = default;
};

enum class NodeKind { Placeholder, CallFunction, CallMethod, GetAttr, Output };

struct Node {
  int id = -1;
  std::string name;  // the SSA name printed in text (l_x_, mul, x_1)
  NodeKind kind = NodeKind::CallFunction;
  std::string target;  // "torch.cos", "_operator.mul", "relu" (method), "aten.exp.default", placeholder's outer name
  std::vector<Arg> args;
  std::vector<std::pair<std::string, Arg>> kwargs;
  std::vector<TensorType> types;  // result type(s); empty for the output node and non-tensor results
  Provenance prov;
  std::string kernel;  // fused stage: the kernel this node was scheduled into ("" = none)
  // Computed with grad mode off (inside torch.no_grad() in the traced function): no gradient
  // flows through it, in the compiled backward or in requires_grad of the outputs.
  bool noGrad = false;

  bool isCall() const { return kind == NodeKind::CallFunction || kind == NodeKind::CallMethod; }
  const Arg* kwarg(const std::string& key) const;
};

// The names in a graph's nodes, indexed so that add() and uniqueName() need not scan every node
// (they did: quadratic, ~0.35 s per pass over a 17,000-node graph). A name counts toward the
// base before its last '_' when what follows is 1 to 18 digits (`x_12`: base `x`, 12), which is
// what uniqueName counts up from.
struct NameIndex {
  std::unordered_map<std::string, int> count;  // name -> nodes carrying it
  struct Suffixes {
    std::unordered_map<long long, int> count;  // N -> nodes named base_N
    long long lowestFree = 1;                  // every N in [1, lowestFree) is taken
  };
  std::unordered_map<std::string, Suffixes> bases;
  // What the index has seen: nodes[0, size), the last of them `lastId` named `lastName`.
  size_t size = 0;
  int lastId = -1;
  std::string lastName;

  bool taken(const std::string& name) const { return count.count(name) > 0; }
  void insert(const std::string& name);
  void erase(const std::string& name);
  long long lowestFree(const std::string& base);  // the smallest N >= 1 with no base_N
};

class Graph {
 public:
  std::string name = "forward";
  // Callers may edit `nodes` directly. The name index checks the node count and the last node
  // it saw on every use: it indexes nodes appended since and rebuilds after an insertion or an
  // erasure (add(), insert(), rename() and remove() keep it up to date). It cannot see a node
  // renamed in place before the last one, nor an erasure and an insertion that cancel out
  // between two uses: rename through rename() (ir::verify reports the duplicate that could follow).
  std::vector<Node> nodes;

  Node& add(Node n);                // assigns a fresh id when n.id < 0 and a unique name
  Node& insert(size_t at, Node n);  // add(), at position `at` of `nodes`
  // Sets node `id`'s name as given (uniqueName() makes one that is free).
  void rename(int id, std::string name);
  const Node* find(int id) const;
  Node* find(int id);
  int indexOf(int id) const;
  std::vector<const Node*> placeholders() const;
  const Node* output() const;
  // Ids of the nodes that use node `id` as an argument.
  std::vector<int> users(int id) const;
  // A fresh unique name based on `hint` (FX style: hint, hint_1, hint_2 ...).
  std::string uniqueName(const std::string& hint) const;
  int nextId() const { return nextId_; }
  void reserveIds(int next) { nextId_ = std::max(nextId_, next); }
  // Replace every use of `from` by `to` (in args, kwargs and the output).
  void replaceAllUses(int from, int to);
  void remove(int id);
  int opCount() const;  // call nodes (CompileCounter semantics)

 private:
  int nextId_ = 0;
  // id -> position in `nodes`, rebuilt when a lookup finds it stale (callers edit `nodes`
  // directly): find() was a linear scan, which made passes over large graphs quadratic.
  mutable std::unordered_map<int, size_t> index_;
  size_t slot(int id) const;  // position of `id`, or nodes.size()
  mutable NameIndex names_;
  NameIndex& names() const;  // names_, brought up to date with `nodes`
  void namesSeen() const;    // records `nodes` as what names_ has seen
};

// Reads names out of args, recursively.
void forEachNodeArg(const Node& n, const std::function<void(int)>& f);

}  // namespace kiln::ir
