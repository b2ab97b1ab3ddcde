// How a recorded torch.distributed collective (session::CollectiveEvent) is worded, the same in
// `kiln show SESSION --stage collectives` and the studio's timeline.
#pragma once

#include "engine/session/events.h"

#include <cstdint>
#include <string>

namespace kiln::storage {

// "4.1 MiB", "512 B" (binary units, as DDP's bucket_cap_mb).
std::string byteText(int64_t bytes);
// "0.350 ms", or "running" for a duration that was never known (< 0).
std::string durationText(double ms);
// The op and its label: "all_reduce bucket 0", "broadcast DDP parameters", "barrier".
std::string collectiveTitle(const session::CollectiveEvent& c);
// One line: "all_reduce bucket 0 · 4.1 MiB · 0.350 ms" (a barrier has no bytes).
std::string collectiveSummary(const session::CollectiveEvent& c);
// Everything else: "sum · float32 [1075000] · gloo · rank 0 of 2 · issued at 812.250 ms · waited until 815.500 ms".
std::string collectiveDetails(const session::CollectiveEvent& c);

}  // namespace kiln::storage
