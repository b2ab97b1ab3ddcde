#include "engine/passes/decompose.h"

#include "engine/passes/rebuilder.h"

namespace kiln::passes {

namespace {

// A dispatcher that expands decomposable ops recursively before recording.
class Expanding : public ops::Dispatcher {
 public:
  explicit Expanding(ops::GraphDispatcher& inner) : inner_(inner) {}
  using Dispatcher::call;
  ops::Val call(const ops::OpDef& op, const std::vector<ops::Val>& args) override {
    if (op.decompose) return op.decompose(*this, args);
    return inner_.call(op, args);
  }

 private:
  ops::GraphDispatcher& inner_;
};

}  // namespace

PassResult decompose(const ir::Graph& g, PassContext&) {
  PassResult r;
  Rebuilder rb(g);
  for (const auto& n : g.nodes) {
    const ops::OpDef* op = n.kind == ir::NodeKind::CallFunction ? ops::findOp(n.target) : nullptr;
    if (!op || !op->decompose) {
      rb.copy(n);
      continue;
    }
    std::vector<ops::Val> args;
    for (const auto& a : n.args) args.push_back(rb.argValue(a));
    Expanding ex(rb.dispatcher(n));
    rb.replace(n.id, op->decompose(ex, args));
    r.fired("decompose " + n.target, n.id);
  }
  r.graph = rb.take();
  return r;
}

}  // namespace kiln::passes
