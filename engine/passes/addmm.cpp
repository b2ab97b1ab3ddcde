#include "engine/passes/addmm.h"

#include "engine/passes/rebuilder.h"

namespace kiln::passes {

namespace {

const ir::Node* mmProducer(const ir::Graph& g, const ir::Arg& a) {
  if (a.kind != ir::Arg::Kind::Node) return nullptr;
  const ir::Node* p = g.find(a.node);
  return p && p->target == "aten.mm.default" && p->args.size() == 2 && p->types.size() == 1 ? p : nullptr;
}

// bias broadcasts to the product's [M, N] along its rows only, in the product's dtype.
bool fitsAsBias(const ir::Node& bias, const ir::Node& mm) {
  if (bias.types.size() != 1 || bias.types[0].dtype != mm.types[0].dtype) return false;
  const auto& out = mm.types[0].sizes;
  const auto& b = bias.types[0].sizes;
  if (out.size() != 2 || out[0].symbolic() || out[1].symbolic()) return false;
  for (const auto& d : b)
    if (d.symbolic()) return false;
  if (b.size() == 1) return b[0].value == out[1].value;
  if (b.size() == 2) return (b[0].value == 1 || b[0].value == out[0].value) && b[1].value == out[1].value;
  return false;
}

}  // namespace

PassResult foldAddmm(const ir::Graph& g, PassContext&) {
  PassResult r;
  Rebuilder rb(g);
  for (const auto& n : g.nodes) {
    bool done = false;
    if (n.kind == ir::NodeKind::CallFunction && n.target == "aten.add.Tensor" && n.args.size() == 2 && n.kwargs.empty() &&
        n.types.size() == 1) {
      for (int side : {0, 1}) {
        const ir::Node* mm = mmProducer(g, n.args[side]);
        const ir::Arg& bias = n.args[1 - side];
        if (!mm || bias.kind != ir::Arg::Kind::Node || g.users(mm->id).size() != 1) continue;
        const ir::Node* b = g.find(bias.node);
        if (!b || !fitsAsBias(*b, *mm) || n.types[0].sizes != mm->types[0].sizes || n.types[0].dtype != mm->types[0].dtype) continue;
        ops::Val v = rb.dispatcher(n).call("aten.addmm.default", {rb.argValue(bias), rb.argValue(mm->args[0]), rb.argValue(mm->args[1])});
        rb.replace(n.id, v);
        r.fired("mm + bias -> addmm", n.id);
        done = true;
        break;
      }
    }
    if (!done) rb.copy(n);
  }
  r.graph = rb.take();
  return r;
}

}  // namespace kiln::passes
