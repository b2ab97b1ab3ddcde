// Grad mode (torch.no_grad / enable_grad / set_grad_enabled): whether eager ops record
// backward nodes. Thread-local like PyTorch's, so a worker thread never sees another's mode.
#pragma once

namespace kiln::autograd {

bool isGradEnabled();
void setGradEnabled(bool enabled);

// Sets grad mode for a scope and restores the previous mode on every exit path.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : prev_(isGradEnabled()) { setGradEnabled(enabled); }
  ~GradModeGuard() { setGradEnabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace kiln::autograd
