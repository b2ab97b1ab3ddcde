// Tracer: builds the captured graph while the interpreter evaluates a compiled function with
// fake tensors. Every torch-level call that touches a fake tensor becomes a node, named and
// annotated the way Dynamo does it (node named after the op, renamed to the local variable it
// is first stored into; source line, function and module path kept as provenance).
#pragma once

#include "engine/ir/graph.h"
#include "engine/python/interpreter.h"

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::capture {

// Thrown during capture when the function does something that must not be traced (a graph
// break in Dynamo's terms). Carries Dynamo's gb_type title and explanation.
class Unsupported : public std::runtime_error {
 public:
  Unsupported(std::string code, std::string title, std::string explanation, std::vector<std::string> hints = {})
      : std::runtime_error(title), code(std::move(code)), title(std::move(title)), explanation(std::move(explanation)),
        hints(std::move(hints)) {}
  std::string code, title, explanation;
  std::vector<std::string> hints;
  py::TraceFrame where;
  std::vector<py::TraceFrame> stack;
};

// How a graph input is fetched when the compiled code runs.
struct InputSource {
  std::string source;  // Dynamo's spelling: L['x']
  int argIndex = -1;   // positional argument of the frame
};

class Tracer {
 public:
  explicit Tracer(std::string fileBaseName) : file_(std::move(fileBaseName)) {}

  // A graph input for a real tensor argument: a placeholder and the fake tensor standing for it.
  py::Value addInput(const std::string& localName, const tensor::Tensor& example, InputSource src);
  // Records a call on fake tensors; returns the fake result.
  py::Value record(py::Interpreter& in, const std::string& target, ir::NodeKind kind,
                   const std::vector<py::Value>& args, const std::vector<std::pair<std::string, py::Value>>& kwargs,
                   const ir::TensorType& result);
  // A store of a fake tensor into a local: the node takes the variable's name (once).
  void nameHint(const py::Value& v, const std::string& name);
  // Finishes the graph with an output node over `outputs` (node ids).
  void finish(const std::vector<int>& outputs);

  ir::Graph graph;
  std::vector<InputSource> inputs;

 private:
  ir::Arg toArg(py::Interpreter& in, const py::Value& v);
  std::string file_;
  std::set<int> named_;
};

// The FX name of a captured target: torch.cos -> cos, _operator.mul -> mul.
std::string fxBaseName(const std::string& target);

}  // namespace kiln::capture
