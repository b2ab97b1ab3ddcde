#include "engine/torch/collective_log.h"

#include "engine/runtime/process_group.h"

#include <mutex>
#include <vector>

namespace kiln::torchapi {

namespace collectives {

struct Pending {
  session::CollectiveEvent event;
  std::shared_ptr<runtime::dist::Work> work;
  bool waited = false;
  bool reported = false;
};

namespace {

// Process-wide, like the default process group it records.
struct State {
  std::mutex mu;
  session::SessionSink* sink = nullptr;
  std::chrono::steady_clock::time_point start;
  int64_t nextSeq = 0;
  std::vector<std::shared_ptr<Pending>> pending;  // issued, not reported yet, in issue order
  // Finished events go to the sink in batches (flush()): writing each one as it finishes put a
  // store commit, and with two ranks on one store a wait for the other's lock, into the script's
  // every collective (1.3 ms of host time per 256 MiB all-reduce on two H100s).
  std::vector<session::CollectiveEvent> ready;
  std::chrono::steady_clock::time_point lastFlush;
};

constexpr size_t kFlushEvents = 256;
constexpr auto kFlushInterval = std::chrono::seconds(1);

State& state() {
  static State s;
  return s;
}

double msSince(const State& s) { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s.start).count(); }

void flush(State& s) {
  for (const auto& e : s.ready) s.sink->collective(e);
  s.ready.clear();
  s.lastFlush = std::chrono::steady_clock::now();
}

void maybeFlush(State& s) {
  if (s.ready.size() >= kFlushEvents || (!s.ready.empty() && std::chrono::steady_clock::now() - s.lastFlush >= kFlushInterval)) flush(s);
}

void report(State& s, Pending& p) {
  p.reported = true;
  p.event.durationMs = p.work ? p.work->durationMs() : -1.0;
  s.ready.push_back(p.event);
}

// Reports what can be reported without blocking: waited for and completed. (The sink is
// called under the lock: events come from the interpreter's thread, and the sink never calls
// back here.)
void reportDone(State& s) {
  std::erase_if(s.pending, [&](const std::shared_ptr<Pending>& p) {
    if (!p->waited || !p->work || !p->work->isCompleted()) return false;
    report(s, *p);
    return true;
  });
  maybeFlush(s);
}

void reportAll(State& s) {
  auto pending = std::move(s.pending);
  s.pending.clear();
  for (auto& p : pending)
    if (!p->reported) report(s, *p);
  flush(s);
}

}  // namespace

bool recording() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.sink != nullptr;
}

double nowMs() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.sink ? msSince(s) : 0.0;
}

std::shared_ptr<Pending> issued(session::CollectiveEvent e, std::shared_ptr<runtime::dist::Work> work) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.sink) return nullptr;
  auto p = std::make_shared<Pending>();
  p->event = std::move(e);
  p->event.seq = s.nextSeq++;
  p->work = std::move(work);
  s.pending.push_back(p);
  reportDone(s);  // an nccl collective waited for earlier may have finished meanwhile
  return p;
}

void waited(const std::shared_ptr<Pending>& p) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.sink || !p || p->reported || p->waited) return;
  p->waited = true;
  p->event.waitedAtMs = msSince(s);
  reportDone(s);
}

void groupCreated() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.nextSeq = 0;
}

void groupDestroyed() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.sink) reportAll(s);
}

}  // namespace collectives

CollectiveRecording::CollectiveRecording(session::SessionSink& sink, std::chrono::steady_clock::time_point sessionStart) {
  auto& s = collectives::state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.sink = &sink;
  s.start = sessionStart;
  s.nextSeq = 0;
  s.pending.clear();
  s.ready.clear();
  s.lastFlush = std::chrono::steady_clock::now();
}

CollectiveRecording::~CollectiveRecording() {
  auto& s = collectives::state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.sink = nullptr;
  s.pending.clear();  // still held by the script's Work objects; never reported now
  s.ready.clear();
}

void CollectiveRecording::finish() {
  auto& s = collectives::state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.sink) collectives::reportAll(s);
}

}  // namespace kiln::torchapi
