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

class Graph {
 public:
  std::string name = "forward";
  std::vector<Node> nodes;

  Node& add(Node n);  // assigns a fresh id when n.id < 0 and a unique name
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
};

// Reads names out of args, recursively.
void forEachNodeArg(const Node& n, const std::function<void(int)>& f);

}  // namespace kiln::ir
