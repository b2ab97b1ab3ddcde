#include "engine/passes/rebuilder.h"

#include <stdexcept>

namespace kiln::passes {

Rebuilder::Rebuilder(const ir::Graph& in) : d_(out_) {
  out_.name = in.name;
  out_.reserveIds(in.nextId());
}

ir::Arg Rebuilder::remap(const ir::Arg& a) const {
  if (a.kind == ir::Arg::Kind::Node) {
    auto it = map_.find(a.node);
    if (it == map_.end()) throw std::logic_error("rebuild: use of an unmapped node");
    return ir::Arg::ref(it->second);
  }
  if (a.kind == ir::Arg::Kind::List) {
    ir::Arg l = a;
    for (auto& x : l.list) x = remap(x);
    return l;
  }
  return a;
}

int Rebuilder::copy(const ir::Node& n) {
  ir::Node c = n;
  for (auto& a : c.args) a = remap(a);
  for (auto& [k, a] : c.kwargs) a = remap(a);
  int id = out_.add(std::move(c)).id;
  map_[n.id] = id;
  return id;
}

void Rebuilder::replace(int oldId, const ops::Val& v) {
  if (v.kind != ops::Val::Kind::Sym) throw std::logic_error("rebuild: replacement is not a graph value");
  map_[oldId] = v.node;
}

ops::Val Rebuilder::argValue(const ir::Arg& a) const { return ops::GraphDispatcher::fromArg(out_, remap(a)); }

ops::GraphDispatcher& Rebuilder::dispatcher(const ir::Node& replacing) {
  d_.provenance = replacing.prov;
  d_.provenance.from = {replacing.id};
  return d_;
}

}  // namespace kiln::passes
