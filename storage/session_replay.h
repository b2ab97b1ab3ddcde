// Replaying a stored session: its events, read back from the store, reported to a sink in the
// order a run reports them. `kiln explain SESSION` builds its report this way, so a stored run
// — an imported PyTorch run too — explains like a live one.
#pragma once

#include "engine/session/sink.h"
#include "storage/store.h"

namespace kiln::storage {

// Frames, then per compile (in the order it was recorded) the recompile that made it, the
// compile, its stages with their graphs, kernels and wrapper, then graph breaks, timings and
// the session's end. Throws StoreError when the session does not exist.
void replaySession(Store& store, int64_t sessionId, session::SessionSink& sink);

}  // namespace kiln::storage
