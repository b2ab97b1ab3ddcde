#include "engine/autograd/grad_mode.h"

namespace kiln::autograd {

namespace {
thread_local bool gradEnabled = true;
}

bool isGradEnabled() { return gradEnabled; }
void setGradEnabled(bool enabled) { gradEnabled = enabled; }

}  // namespace kiln::autograd
