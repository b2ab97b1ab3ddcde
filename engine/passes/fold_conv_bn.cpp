#include "engine/passes/fold_conv_bn.h"

#include "engine/passes/rebuilder.h"

#include <optional>
#include <set>

namespace kiln::passes {

namespace {

using ops::Val;

// One step of the affine chain: y = y (op) operand.
struct Step {
  const ir::Node* node;
  char op;          // '+', '-', '*', '/'
  ir::Arg operand;  // per-channel tensor or number
};

struct Chain {
  const ir::Node* conv;
  std::vector<Step> steps;
};

char opOf(const std::string& t) {
  if (t == "aten.add.Tensor") return '+';
  if (t == "aten.sub.Tensor") return '-';
  if (t == "aten.mul.Tensor") return '*';
  if (t == "aten.div.Tensor") return '/';
  return 0;
}

bool staticShape(const ir::TensorType& t) {
  for (const auto& d : t.sizes)
    if (d.symbolic()) return false;
  return true;
}

// Does `id` depend on node `conv`? Walks producers, never further back than the conv itself
// (nodes are in topological order, so nothing before it can depend on it).
bool dependsOn(const ir::Graph& g, int id, int conv, int convIndex) {
  std::vector<int> stack{id};
  std::set<int> seen;
  while (!stack.empty()) {
    int cur = stack.back();
    stack.pop_back();
    if (cur == conv) return true;
    if (!seen.insert(cur).second || g.indexOf(cur) < convIndex) continue;
    ir::forEachNodeArg(*g.find(cur), [&](int a) { stack.push_back(a); });
  }
  return false;
}

// A per-channel operand for an [N, C, ...] result: a number, or a tensor of the result's dtype
// whose shape, padded on the left to the result's rank, is 1 everywhere but dim 1.
bool perChannel(const ir::Graph& g, const ir::Arg& a, const ir::TensorType& out) {
  if (a.isNumber()) return a.kind != ir::Arg::Kind::Bool;
  if (!a.isNode()) return false;
  const ir::Node* p = g.find(a.node);
  if (!p || p->types.size() != 1 || p->types[0].dtype != out.dtype || !staticShape(p->types[0])) return false;
  const auto& s = p->types[0].sizes;
  if (s.size() > out.sizes.size()) return false;
  size_t pad = out.sizes.size() - s.size();
  for (size_t i = 0; i < s.size(); ++i) {
    size_t dim = i + pad;
    if (s[i].value != 1 && !(dim == 1 && s[i].value == out.sizes[1].value)) return false;
  }
  return true;
}

std::optional<Chain> matchChain(const ir::Graph& g, const ir::Node& conv) {
  if (conv.target != "aten.convolution.default" || conv.args.size() != 9 || conv.types.size() != 1) return std::nullopt;
  const ir::TensorType& out = conv.types[0];
  if (out.sizes.size() < 3 || out.sizes[1].symbolic() || !ir::isFloating(out.dtype)) return std::nullopt;
  if (conv.args[6].kind != ir::Arg::Kind::Bool || conv.args[6].b) return std::nullopt;  // transposed weights are [Cin, Cout, ...]
  Chain c{&conv, {}};
  const ir::Node* cur = &conv;
  int convIndex = g.indexOf(conv.id);
  while (true) {
    std::vector<int> users = g.users(cur->id);
    if (users.size() != 1) break;
    const ir::Node* u = g.find(users[0]);
    char op = u->kind == ir::NodeKind::CallFunction && u->args.size() == 2 && u->kwargs.empty() ? opOf(u->target) : 0;
    if (!op || u->types.size() != 1 || u->types[0] != out) break;
    // y op c; for + and * also c op y. c - y and c / y are not affine in the same form.
    int side = u->args[0].isNode() && u->args[0].node == cur->id ? 0 : 1;
    if (side == 1 && (op == '-' || op == '/')) break;
    if (u->args[side].node != cur->id) break;
    const ir::Arg& operand = u->args[1 - side];
    if (operand.isNode() && operand.node == cur->id) break;  // y * y
    if (!perChannel(g, operand, out) || (operand.isNode() && dependsOn(g, operand.node, conv.id, convIndex))) break;
    c.steps.push_back({u, op, operand});
    cur = u;
  }
  if (c.steps.empty()) return std::nullopt;
  // A chain of only numbers still folds (conv * 2), but needs at least one step.
  return c;
}

}  // namespace

PassResult foldConvBn(const ir::Graph& g, PassContext&) {
  PassResult r;
  // Match first: the rebuild skips the convolution and the chain's interior and emits the
  // folded convolution where the chain ends (every operand is defined by then).
  std::map<int, Chain> byEnd;
  std::set<int> consumed;
  for (const auto& n : g.nodes) {
    if (n.kind != ir::NodeKind::CallFunction) continue;
    if (auto c = matchChain(g, n)) {
      consumed.insert(n.id);
      for (const auto& s : c->steps) consumed.insert(s.node->id);
      byEnd.emplace(c->steps.back().node->id, std::move(*c));
    }
  }
  Rebuilder rb(g);
  for (const auto& n : g.nodes) {
    auto it = byEnd.find(n.id);
    if (it == byEnd.end()) {
      if (!consumed.count(n.id)) rb.copy(n);
      continue;
    }
    const Chain& c = it->second;
    const ir::Node& conv = *c.conv;
    ops::Dispatcher& d = rb.dispatcher(conv);
    const ir::TensorType& out = conv.types[0];
    const int64_t C = out.sizes[1].value;
    // Each operand as a [C] vector (numbers stay numbers).
    auto channelVector = [&](const ir::Arg& a) -> Val {
      if (a.isNumber()) return Val::real(a.number());
      // Look through the unsqueezes batch_norm put on its [C] parameters.
      ir::Arg src = a;
      for (const ir::Node* p = g.find(src.node);
           p && (p->target == "aten.unsqueeze.default" || p->target == "aten.view.default") && !p->args.empty() && p->args[0].isNode();
           p = g.find(src.node)) {
        const ir::Node* in = g.find(p->args[0].node);
        if (!in || in->types.size() != 1 || in->types[0].sizes.empty() || in->types[0].sizes.size() >= p->types[0].sizes.size()) break;
        src = p->args[0];
      }
      Val v = rb.argValue(src);
      if (v.tensorType().sizes.size() == 1 && v.tensorType().sizes[0].value == C) return v;
      int64_t n = 1;
      for (const auto& s : v.tensorType().sizes) n *= s.value;
      Val flat = d.call("aten.view.default", {v, Val::listOf({Val::integer(n)})});
      return n == C ? flat : d.call("aten.expand.default", {flat, Val::listOf({Val::integer(C)})});
    };
    // a (op) b where either side may be a Python number; two numbers fold right here.
    auto arith = [&](char op, const Val& a, const Val& b) -> Val {
      bool an = a.kind == Val::Kind::Float, bn = b.kind == Val::Kind::Float;
      if (an && bn) return Val::real(op == '+' ? a.f + b.f : op == '-' ? a.f - b.f : op == '*' ? a.f * b.f : a.f / b.f);
      // The chain starts from scale 1 and shift 0: no 0 + k or 1 * k nodes.
      if (an && a.f == 0.0 && op == '+') return b;
      if (an && a.f == 1.0 && op == '*') return b;
      if (an && a.f == 0.0 && op == '-') return d.call("aten.neg.default", {b});
      if (an && a.f == 1.0 && op == '/') return d.call("aten.reciprocal.default", {b});
      if (an && op == '-') return d.call("aten.add.Tensor", {d.call("aten.neg.default", {b}), a});
      if (an && op == '/') return d.call("aten.mul.Tensor", {d.call("aten.reciprocal.default", {b}), a});
      const Val& x = an ? b : a;  // + and * commute: keep the tensor first
      const Val& y = an ? a : b;
      const char* target = op == '+'   ? "aten.add.Tensor"
                           : op == '-' ? "aten.sub.Tensor"
                           : op == '*' ? "aten.mul.Tensor"
                                       : "aten.div.Tensor";
      return d.call(target, {x, y});
    };
    // y = conv * scale + shift, built step by step; nullopt stands for 1 and 0.
    std::optional<Val> scale, shift;
    for (const auto& s : c.steps) {
      Val k = channelVector(s.operand);
      if (s.op == '+' || s.op == '-') {
        shift = arith(s.op, shift ? *shift : Val::real(0.0), k);
      } else {
        scale = arith(s.op, scale ? *scale : Val::real(1.0), k);
        if (shift) shift = arith(s.op, *shift, k);
      }
    }
    Val weight = rb.argValue(conv.args[1]);
    if (scale) {
      if (scale->kind == Val::Kind::Float) {
        weight = d.call("aten.mul.Tensor", {weight, *scale});
      } else {
        std::vector<Val> shape{Val::integer(C)};
        for (size_t i = 1; i < weight.tensorType().sizes.size(); ++i) shape.push_back(Val::integer(1));
        weight = d.call("aten.mul.Tensor", {weight, d.call("aten.view.default", {*scale, Val::listOf(shape)})});
      }
    }
    Val bias = rb.argValue(conv.args[2]);
    if (!bias.isNone() && scale) bias = arith('*', bias, *scale);
    if (shift) {
      if (bias.isNone() && shift->kind == Val::Kind::Float)
        bias = d.call("aten.full.default", {Val::listOf({Val::integer(C)}), *shift, Val::dtypeVal(out.dtype)});
      else bias = bias.isNone() ? *shift : arith('+', bias, *shift);
    }
    std::vector<Val> args{rb.argValue(conv.args[0]), weight, bias};
    for (size_t i = 3; i < conv.args.size(); ++i) args.push_back(rb.argValue(conv.args[i]));
    rb.replace(n.id, d.call("aten.convolution.default", args));
    r.fired("conv + per-channel affine (eval batch_norm) -> convolution with folded weight and bias", conv.id);
  }
  r.graph = rb.take();
  return r;
}

}  // namespace kiln::passes
