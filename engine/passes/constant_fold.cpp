#include "engine/passes/constant_fold.h"

#include "engine/passes/rebuilder.h"
#include "engine/tensor/tensor.h"

#include <cmath>
#include <map>
#include <optional>

namespace kiln::passes {

namespace {

using ops::Val;

// Ops whose result is not a function of their arguments.
bool deterministic(const std::string& target) {
  for (const char* word : {"rand", "bernoulli", "dropout", "normal", "uniform", "multinomial", "empty", "exponential"})
    if (target.find(word) != std::string::npos) return false;
  return true;
}

std::optional<int64_t> staticElements(const ir::Node& n) {
  if (n.types.size() != 1) return std::nullopt;
  int64_t e = 1;
  for (const auto& d : n.types[0].sizes) {
    if (d.symbolic()) return std::nullopt;
    e *= d.value;
  }
  return e;
}

bool isFull(const ir::Node& n) { return n.target == "aten.full.default"; }

// The one value every element of t has, if there is one (NaNs count as one value).
std::optional<double> uniformValue(const tensor::Tensor& t) {
  std::vector<double> v = t.toDoubles();
  if (v.empty()) return std::nullopt;
  for (double x : v)
    if (!(x == v[0] || (std::isnan(x) && std::isnan(v[0])))) return std::nullopt;
  return v[0];
}

}  // namespace

PassResult constantFold(const ir::Graph& g, PassContext&) {
  PassResult r;
  // Evaluate constant nodes in order; a failure (an op that throws) just leaves it unfolded.
  std::map<int, tensor::Tensor> value;
  ops::EagerDispatcher eager;
  for (const auto& n : g.nodes) {
    if (n.kind != ir::NodeKind::CallFunction || !deterministic(n.target)) continue;
    const ops::OpDef* op = ops::findOp(n.target);
    auto elements = staticElements(n);
    if (!op || !op->eager || !elements || *elements > kMaxFoldElements) continue;
    bool constant = true;
    std::vector<Val> args;
    std::function<Val(const ir::Arg&)> toVal = [&](const ir::Arg& a) -> Val {
      if (a.isNode()) {
        auto it = value.find(a.node);
        if (it == value.end()) {
          constant = false;
          return Val::none();
        }
        return Val::of(it->second);
      }
      if (a.kind == ir::Arg::Kind::List) {
        std::vector<Val> xs;
        for (const auto& x : a.list) xs.push_back(toVal(x));
        return Val::listOf(std::move(xs));
      }
      return ops::GraphDispatcher::fromArg(g, a);
    };
    for (const auto& a : n.args) args.push_back(toVal(a));
    if (!constant || !n.kwargs.empty()) continue;
    try {
      Val v = eager.call(*op, args);
      if (v.kind == Val::Kind::Tensor) value[n.id] = v.t;
    } catch (const std::exception&) {
      // Leave it to run (and report) at run time.
    }
  }
  // Replace the constants the rest of the graph reads.
  std::map<int, bool> readOutside;
  for (const auto& n : g.nodes)
    ir::forEachNodeArg(n, [&](int a) {
      if (value.count(a) && !value.count(n.id)) readOutside[a] = true;
    });
  Rebuilder rb(g);
  for (const auto& n : g.nodes) {
    auto it = value.find(n.id);
    if (it == value.end() || !readOutside.count(n.id) || isFull(n)) {
      rb.copy(n);
      continue;
    }
    std::optional<double> v = uniformValue(it->second);
    if (!v) {
      rb.copy(n);
      continue;
    }
    std::vector<Val> sizes;
    for (const auto& d : n.types[0].sizes) sizes.push_back(Val::integer(d.value));
    ir::DType dt = n.types[0].dtype;
    Val fill = ir::isFloating(dt) ? Val::real(*v) : dt == ir::DType::Bool ? Val::boolean(*v != 0) : Val::integer(static_cast<int64_t>(*v));
    rb.replace(n.id, rb.dispatcher(n).call("aten.full.default", {Val::listOf(sizes), fill, Val::dtypeVal(dt)}));
    r.fired("constant with one value -> full", n.id);
  }
  r.graph = rb.take();
  return r;
}

}  // namespace kiln::passes
