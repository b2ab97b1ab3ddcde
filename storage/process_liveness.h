// Telling a crashed run from a live one. A session row says "running" from sessionStart until
// sessionEnd; if the pid that wrote it no longer exists, the run died and the session is
// reported "incomplete".
#pragma once

#include <cstdint>
#include <string>

namespace kiln::storage {

// True when a process with this pid exists (a zombie counts: it has not been reaped yet).
bool processAlive(int64_t pid);

// The status readers report: the stored one, except "running" with a dead writer -> "incomplete".
std::string effectiveStatus(const std::string& stored, int64_t pid);

int64_t currentPid();

}  // namespace kiln::storage
