#include "engine/torch/prelude.h"

#include "engine/python/interpreter.h"
#include "engine/python/parser.h"

#include <stdexcept>

namespace kiln::torchapi {

namespace {
// The prelude is parsed once per process: its AST is immutable and shared by every
// interpreter (a script run pays only for executing the class definitions).
const std::vector<py::Module>& parsedPrelude() {
  static const std::vector<py::Module> modules = [] {
    std::vector<py::Module> out;
    for (const auto& f : preludeFiles())
      // The file name tracebacks show for library code, like torch/nn/modules/....
      out.push_back(py::parseModule(f.source, std::string("<kiln>/") + f.fileName));
    return out;
  }();
  return modules;
}
}  // namespace

void runPrelude(py::Interpreter& in) {
  const auto& files = preludeFiles();
  const auto& modules = parsedPrelude();
  for (size_t i = 0; i < files.size(); ++i) in.runInModule(in.importModule(files[i].module), modules[i]);
}

}  // namespace kiln::torchapi
