// The Python half of Kiln's torch library (engine/torch/prelude/*.py): nn layers, losses,
// optimizers and init written in Python exactly as PyTorch writes them, so that capture inlines
// their forward methods the way Dynamo inlines PyTorch's. Each file populates the module of
// the same name (torch.nn.py -> torch.nn); files run in file-name order (cmake/embed_prelude.cmake
// sorts them), so a file that imports another prelude module must sort after it.
#pragma once

#include <string>
#include <vector>

namespace kiln::py {
class Interpreter;
}

namespace kiln::torchapi {

struct PreludeFile {
  const char* module;    // "torch.nn" (the file name without .py)
  const char* fileName;  // "torch.nn.py"
  const char* source;
};

const std::vector<PreludeFile>& preludeFiles();  // generated at build time

// Runs the prelude files into their modules. Throws PyError on a broken prelude.
void runPrelude(py::Interpreter& in);

}  // namespace kiln::torchapi
