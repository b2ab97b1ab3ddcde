#include "storage/guarded_session_writer.h"

namespace kiln::storage {

void GuardedSessionWriter::guard(const std::function<void()>& write) {
  if (stopped_) return;
  try {
    write();
  } catch (const std::exception& e) {
    stopped_ = true;
    std::string reason = std::string("recording stopped: ") + e.what();
    writer_->stop(reason + "\n");  // stored as the session's error, which ends its lines
    // The handler is the caller's (it prints a warning); its failure must not reach the engine.
    try {
      if (onStop_) onStop_(reason);
    } catch (...) {}
  }
}

}  // namespace kiln::storage
