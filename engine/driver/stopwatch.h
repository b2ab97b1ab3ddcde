// Timing helpers the driver's measurements share (compile phases, kiln bench's profiles,
// max-autotune's candidates).
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace kiln::driver {

inline double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The middle of `v` (the upper one of an even count), 0 when empty.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace kiln::driver
