#include "engine/torch/prelude.h"

#include "engine/python/interpreter.h"
#include "engine/python/parser.h"

#include <stdexcept>

namespace kiln::torchapi {

void runPrelude(py::Interpreter& in) {
  for (const auto& f : preludeFiles()) {
    auto m = in.importModule(f.module);
    // The file name tracebacks show for library code, like torch/nn/modules/....
    std::string file = std::string("<kiln>/") + f.fileName;
    in.runInModule(m, py::parseModule(f.source, file));
  }
}

}  // namespace kiln::torchapi
