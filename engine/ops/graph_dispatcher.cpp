#include "engine/ops/graph_dispatcher.h"

#include "engine/ops/device_dispatch.h"

namespace kiln::ops {

std::string atenNodeName(const std::string& opName) {
  size_t a = opName.find('.');
  size_t b = opName.find('.', a + 1);
  if (a == std::string::npos) return opName;
  return opName.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

ir::Arg GraphDispatcher::toArg(const Val& v) {
  switch (v.kind) {
    case Val::Kind::Sym: return ir::Arg::ref(v.node);
    case Val::Kind::Tensor: throw std::logic_error("a real tensor cannot be an argument of a graph node");
    case Val::Kind::None: return ir::Arg::none();
    case Val::Kind::Int: return ir::Arg::integer(v.i);
    case Val::Kind::Float: return ir::Arg::real(v.f);
    case Val::Kind::Bool: return ir::Arg::boolean(v.b);
    case Val::Kind::DType: return ir::Arg::dtypeArg(v.dtype);
    case Val::Kind::String: return ir::Arg::string(v.s);
    case Val::Kind::List: {
      std::vector<ir::Arg> items;
      for (const auto& x : v.list) items.push_back(toArg(x));
      return ir::Arg::listOf(std::move(items));
    }
  }
  return ir::Arg::none();
}

Val GraphDispatcher::fromArg(const ir::Graph& g, const ir::Arg& a) {
  switch (a.kind) {
    case ir::Arg::Kind::Node: {
      const ir::Node* n = g.find(a.node);
      if (!n || n->types.empty()) throw std::logic_error("argument refers to a node without a tensor type");
      return Val::sym(n->types[0], a.node);
    }
    case ir::Arg::Kind::None: return Val::none();
    case ir::Arg::Kind::Bool: return Val::boolean(a.b);
    case ir::Arg::Kind::Int: return Val::integer(a.i);
    case ir::Arg::Kind::Float: return Val::real(a.f);
    case ir::Arg::Kind::String: return Val::string(a.s);
    case ir::Arg::Kind::DType: return Val::dtypeVal(a.dtype);
    case ir::Arg::Kind::Expr: throw std::logic_error("the expression '" + a.s + "' of an imported graph cannot be evaluated by Kiln");
    case ir::Arg::Kind::List: {
      std::vector<Val> items;
      for (const auto& x : a.list) items.push_back(fromArg(g, x));
      return Val::listOf(std::move(items));
    }
  }
  return Val::none();
}

Val GraphDispatcher::call(const OpDef& op, const std::vector<Val>& args) {
  ir::TensorType t = op.meta(args);
  if (op.name != kToDeviceOp) t.device = metaDevice(args);
  ir::Node n;
  n.kind = ir::NodeKind::CallFunction;
  n.target = op.name;
  n.name = atenNodeName(op.name);
  for (const auto& a : args) n.args.push_back(toArg(a));
  n.types.push_back(t);
  n.prov = provenance;
  n.noGrad = noGrad;
  return Val::sym(t, g_.add(std::move(n)).id);
}

}  // namespace kiln::ops
