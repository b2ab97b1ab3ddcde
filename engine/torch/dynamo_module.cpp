// torch._dynamo and torch.compiler: what scripts call to steer capture.
#include "engine/torch/tensor_protocol.h"

#include "engine/capture/tracer.h"

namespace kiln::torchapi {

using py::CallArgs;

void installDynamo(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& dynamo, const std::shared_ptr<py::ModuleObj>& compiler) {
  auto def = [](const std::shared_ptr<py::ModuleObj>& m, const std::string& name, py::NativeFn fn) {
    m->scope->vars[name] = py::makeBuiltin(m->name + "." + name, std::move(fn));
  };
  def(dynamo, "graph_break", [](py::Interpreter& in, CallArgs& a) -> py::Value {
    if (!in.tracer) return py::None();  // outside capture it does nothing, as in PyTorch
    std::string msg = a.args.empty() ? "None" : in.str(a.args[0]);
    if (py::Value m = a.kwarg("msg")) msg = in.str(m);
    capture::Unsupported u("KB004", "Call to `torch._dynamo.graph_break()`", "User-inserted graph break. Message: " + msg,
                           {"Remove the `torch._dynamo.graph_break()` call."});
    u.where = in.currentLocation();
    u.stack = in.userStack();
    throw u;
  });
  for (const auto& m : {dynamo, compiler})
    def(m, "reset", [](py::Interpreter&, CallArgs&) { return py::None(); });
  (void)in;
}

}  // namespace kiln::torchapi
