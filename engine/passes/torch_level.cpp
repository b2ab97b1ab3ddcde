#include "engine/passes/torch_level.h"

#include <atomic>
#include <stdexcept>

namespace kiln::passes {

namespace {
std::atomic<const TorchLevel*>& installed() {
  static std::atomic<const TorchLevel*> p{nullptr};
  return p;
}
}  // namespace

void setTorchLevel(const TorchLevel* impl) { installed().store(impl); }

const TorchLevel& torchLevel() {
  const TorchLevel* p = installed().load();
  if (!p) throw std::logic_error("no torch-level function definitions installed: engine/torch (kiln_frontend) is not linked in");
  return *p;
}

}  // namespace kiln::passes
