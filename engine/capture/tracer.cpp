#include "engine/capture/tracer.h"

namespace kiln::capture {

std::string fxBaseName(const std::string& target) {
  std::string base = target.substr(target.rfind('.') + 1);
  if (base == "truediv") return "truediv";
  return base;
}

py::Value Tracer::addInput(const std::string& localName, const tensor::Tensor& example, InputSource src) {
  ir::Node n;
  n.kind = ir::NodeKind::Placeholder;
  n.target = "L_" + localName + "_";
  n.name = "l_" + localName + "_";
  n.types.push_back(example.type());
  ir::Node& added = graph.add(std::move(n));
  named_.insert(added.id);
  inputs.push_back(std::move(src));
  ir::TensorType fakeType = example.type();
  return std::make_shared<py::TensorObj>(fakeType, added.id);
}

ir::Arg Tracer::toArg(py::Interpreter& in, const py::Value& v) {
  switch (v->kind) {
    case py::VK::Tensor: {
      auto* t = static_cast<py::TensorObj*>(v.get());
      if (!t->fake) {
        // A real tensor captured from outside (a global or closure): Dynamo lifts it to an
        // input; the skeleton reports it as unsupported rather than baking in a constant.
        throw Unsupported("KB010", "Tensor from outside the compiled region",
                          "A tensor that is neither an argument nor computed in the function was used; lifting such "
                          "tensors to graph inputs is not implemented yet.");
      }
      return ir::Arg::ref(t->node);
    }
    case py::VK::None: return ir::Arg::none();
    case py::VK::Bool: return ir::Arg::boolean(static_cast<py::BoolObj*>(v.get())->v);
    case py::VK::Int: return ir::Arg::integer(static_cast<py::IntObj*>(v.get())->v);
    case py::VK::Float: return ir::Arg::real(static_cast<py::FloatObj*>(v.get())->v);
    case py::VK::Str: return ir::Arg::string(static_cast<py::StrObj*>(v.get())->v);
    case py::VK::DType: return ir::Arg::dtypeArg(static_cast<py::DTypeObj*>(v.get())->d);
    case py::VK::Tuple:
    case py::VK::List: {
      std::vector<ir::Arg> items;
      for (auto& x : in.iterate(v)) items.push_back(toArg(in, x));
      return ir::Arg::listOf(std::move(items));
    }
    default:
      throw Unsupported("KB011", "Unsupported argument type",
                        "An argument of type '" + py::typeName(v) + "' was passed to a traced torch call.");
  }
}

py::Value Tracer::record(py::Interpreter& in, const std::string& target, ir::NodeKind kind, const std::vector<py::Value>& args,
                         const std::vector<std::pair<std::string, py::Value>>& kwargs, const ir::TensorType& result) {
  ir::Node n;
  n.kind = kind;
  n.target = target;
  n.name = fxBaseName(target);
  for (const auto& a : args) n.args.push_back(toArg(in, a));
  for (const auto& [k, v] : kwargs) n.kwargs.emplace_back(k, toArg(in, v));
  n.types.push_back(result);
  // Provenance is the innermost frame of the user's script: calls made inside library code
  // (an nn.Linear's forward in the prelude) are attributed to the user line that led there,
  // as Dynamo attributes them.
  py::TraceFrame here = in.currentLocation();
  for (const auto& f : in.userStack())
    if (f.file == in.file()) here = f;
  n.prov.loc.file = file_;
  n.prov.loc.line = here.span.line;
  n.prov.loc.col = here.span.col;
  n.prov.loc.endLine = here.span.endLine;
  n.prov.loc.endCol = here.span.endCol;
  n.prov.loc.function = here.function;
  // The source line, stripped, as FX's "code:" comment shows it.
  const std::string& src = in.source();
  int line = 1;
  size_t p = 0;
  while (line < here.span.line && p < src.size()) { if (src[p] == '\n') ++line; ++p; }
  size_t e = src.find('\n', p);
  std::string text = src.substr(p, e == std::string::npos ? std::string::npos : e - p);
  size_t b = text.find_first_not_of(" \t");
  n.prov.loc.code = b == std::string::npos ? "" : text.substr(b);
  for (const auto& f : in.userStack()) {
    if (f.file != in.file()) continue;
    ir::SourceLoc l;
    l.file = file_;
    l.line = f.span.line;
    l.col = f.span.col;
    l.function = f.function;
    n.prov.userStack.push_back(l);
  }
  ir::Node& added = graph.add(std::move(n));
  return std::make_shared<py::TensorObj>(result, added.id);
}

void Tracer::nameHint(const py::Value& v, const std::string& name) {
  if (v->kind != py::VK::Tensor) return;
  auto* t = static_cast<py::TensorObj*>(v.get());
  if (!t->fake || named_.count(t->node)) return;
  named_.insert(t->node);
  ir::Node* n = graph.find(t->node);
  if (!n || n->name == name) return;
  std::string old = n->name;
  n->name = "";  // free the old name before choosing
  n->name = graph.uniqueName(name);
}

void Tracer::finish(const std::vector<int>& outputs) {
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = "output";
  out.target = "output";
  std::vector<ir::Arg> refs;
  for (int id : outputs) refs.push_back(ir::Arg::ref(id));
  out.args.push_back(ir::Arg::listOf(std::move(refs)));
  graph.add(std::move(out));
}

}  // namespace kiln::capture
