// The fuzz build compiles the engine without its code generators (engine/codegen/, LLVM): the
// targets run scripts eagerly and ops through the op table, and never compile a kernel. This
// satisfies the one reference to the LLVM backend (driver/script_runner.cpp) should the linker
// pull that file in.
#include "engine/codegen/kernel_compiler.h"

#include <stdexcept>

namespace kiln::codegen {

std::unique_ptr<KernelCompiler> makeLlvmCpuCompiler() {
  throw std::runtime_error("the fuzz build has no code generator (tests/fuzz/no_codegen.cpp)");
}

}  // namespace kiln::codegen
