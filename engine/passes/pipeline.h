// The pass pipeline: one short ordered list, run by the pass manager (pass_manager.h). Passes
// outside the engine (plugins/, tests) join it through registerPass.
#pragma once

#include "engine/passes/pass.h"

#include <string>
#include <vector>

namespace kiln::passes {

// The passes in the order they run (a copy: registration may change the list meanwhile).
std::vector<PassInfo> pipeline();

// Adds `pass` to the pipeline right before the pass named `before` ("fuse" stays last by
// default). Throws std::invalid_argument for an empty or taken name, a missing function or an
// unknown `before`. Register before compiling: a compile in progress keeps the list it started with.
void registerPass(PassInfo pass, const std::string& before = "fuse");
// Removes a registered pass; false when there is none of that name.
bool unregisterPass(const std::string& name);

}  // namespace kiln::passes
