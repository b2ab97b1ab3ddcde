// A sink that keeps what `kiln run --profile N` reports (its ProfileEvents) and the names of the
// kernels the compiles reported, for the tests that compare the two.
#pragma once

#include "engine/session/events.h"
#include "engine/session/sink.h"

#include <string>
#include <vector>

namespace kiln::test {

struct ProfileSink : session::NullSink {
  std::vector<session::ProfileEvent> profiles;
  std::vector<std::string> kernels;
  void profile(const session::ProfileEvent& e) override { profiles.push_back(e); }
  void kernel(const session::KernelEvent& e) override { kernels.push_back(e.name); }
};

}  // namespace kiln::test
