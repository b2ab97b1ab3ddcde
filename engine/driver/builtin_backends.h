// Kiln's own backends in capture::BackendRegistry, registered the way a plugin registers its
// own (BackendRegistry::add with a factory):
//   inductor  - lower to ATen, run the pass pipeline, fuse, generate kernels (LLVM), run the wrapper
//   eager     - run the captured graph op by op
//   aot_eager - lower to ATen, run the ATen graph op by op
// Each compiles through compileGraph (backends.h) with the pass options of the run.
#pragma once

#include "engine/capture/backend.h"
#include "engine/driver/backends.h"

#include <memory>

namespace kiln::driver {

// Registers the built-in backends in `registry` (those already there are left as they are, so
// calling it again does nothing).
void registerBuiltinBackends(capture::BackendRegistry& registry = capture::BackendRegistry::global());

// The built-in backend `opts.backend` with these options (kiln bench: an inductor whose
// `opts.log` records every graph it compiles).
std::shared_ptr<capture::Backend> makeBuiltinBackend(const BackendOptions& opts, codegen::KernelCompiler* cpu);

}  // namespace kiln::driver
