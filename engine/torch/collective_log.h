// Records the torch.distributed collectives a script issues as session::CollectiveEvent, for the
// run's session (the studio's timeline, `kiln show SESSION --stage collectives`).
//
// The torch layer has no sink of its own: the driver opens a CollectiveRecording on the run's
// SessionSink for the length of a run, and distributed_api.cpp reports through the functions
// below, which do nothing while no recording is open. One recording per process, as there is
// one default process group per process.
//
// A collective's duration is known only once it completed (runtime::dist::Work::durationMs),
// and the host is never blocked to learn it: an event is reported when the script's wait()
// returned and the work had completed (gloo: always; nccl: wait() does not block, so possibly
// at a later collective), else when the group is destroyed (which drains it) or the run ends,
// with whatever duration is known by then (< 0: still running). Reported events reach the sink
// in batches (256 events or a second), and all of them when the group is destroyed or the run
// ends, so a training loop's collectives do not each wait for a store commit.
#pragma once

#include "engine/session/sink.h"

#include <chrono>
#include <memory>

namespace kiln::runtime::dist {
class Work;
}

namespace kiln::torchapi {

class CollectiveRecording {
 public:
  // Events go to `sink`; times are ms since `sessionStart` (the driver's run clock).
  CollectiveRecording(session::SessionSink& sink, std::chrono::steady_clock::time_point sessionStart);
  // Stops recording; call finish() first (before the session ends), or what is pending is lost.
  ~CollectiveRecording();
  CollectiveRecording(const CollectiveRecording&) = delete;
  CollectiveRecording& operator=(const CollectiveRecording&) = delete;
  // Reports every collective not reported yet, without waiting for any (the script ended).
  void finish();
};

namespace collectives {

struct Pending;

// Whether a recording is open (the natives skip building events otherwise).
bool recording();
// ms since the session started, on the recording's clock (0 without a recording).
double nowMs();
// Records an issued collective: `e` carries everything but seq (assigned here, in issue order)
// and its times' second half. Returns the token the Work's wait() reports through (null
// without a recording).
std::shared_ptr<Pending> issued(session::CollectiveEvent e, std::shared_ptr<runtime::dist::Work> work);
// The script's wait() on it returned.
void waited(const std::shared_ptr<Pending>& p);
// A new default group: sequence numbers start again at 0.
void groupCreated();
// The group was destroyed (its work drained): every pending collective is reported.
void groupDestroyed();

}  // namespace collectives

}  // namespace kiln::torchapi
