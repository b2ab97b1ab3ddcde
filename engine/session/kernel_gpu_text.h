// One line about a GPU kernel for headers (kiln show --stage ptx|sass, the studio's CUDA, PTX and
// SASS tabs): its launch and ptxas's figures, saying which are not known.
#pragma once

#include "engine/session/events.h"

#include <string>

namespace kiln::session {

inline std::string gpuSummary(const KernelGpuInfo& g) {
  std::string s = g.launch.empty() ? "launch not recorded" : g.launch;
  if (g.registers < 0) return s + " · registers, shared memory and spills not known";
  s += " · " + std::to_string(g.registers) + " registers · " + std::to_string(g.sharedBytes) + " B shared";
  if (g.stackBytes > 0) s += " · " + std::to_string(g.stackBytes) + " B stack";
  s += " · spills " + std::to_string(g.spillStores) + " B stored, " + std::to_string(g.spillLoads) + " B loaded";
  if (!g.arch.empty()) s += " · " + g.arch;
  return s;
}

}  // namespace kiln::session
