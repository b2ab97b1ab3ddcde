#include "storage/process_liveness.h"

#include <unistd.h>
#include <cerrno>
#include <csignal>

namespace kiln::storage {

bool processAlive(int64_t pid) {
  if (pid <= 0) return false;
  // Signal 0 checks existence only. EPERM means it exists but belongs to another user.
  if (::kill(static_cast<pid_t>(pid), 0) == 0) return true;
  return errno == EPERM;
}

std::string effectiveStatus(const std::string& stored, int64_t pid) {
  if (stored == "running" && !processAlive(pid)) return "incomplete";
  return stored;
}

int64_t currentPid() { return static_cast<int64_t>(::getpid()); }

}  // namespace kiln::storage
