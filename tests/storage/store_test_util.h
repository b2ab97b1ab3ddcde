// Shared by the storage tests and the kill-test writer process (so no gtest here): a temp
// directory, a sample session with every kind of event (hand-built, graph with full
// provenance), and raw SQL helpers. Comparisons are in store_compare.h.
#pragma once

#include "engine/session/sink.h"
#include "storage/store.h"

#include <functional>
#include <string>
#include <vector>

namespace kiln::storage::testing {

// The bytes of a file (empty if it cannot be read).
std::string readAll(const std::string& path);

// A fresh directory under $TMPDIR, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Everything one session reports, in the order the engine would report it.
struct SampleSession {
  session::SessionStart start;
  std::vector<session::FrameEvent> frames;
  std::vector<session::CompileEvent> compiles;
  std::vector<session::StageEvent> stages;
  std::vector<session::KernelEvent> kernels;
  std::vector<session::WrapperEvent> wrappers;
  std::vector<session::GraphBreakEvent> breaks;
  std::vector<session::RecompileEvent> recompiles;
  std::vector<session::TimingEvent> timings;
  std::vector<session::ProfileEvent> profiles;        // after the script, as kiln run --profile
  std::vector<session::AutotuneEvent> autotunes;      // mode="max-autotune", with their compile
  std::vector<session::VerifyEvent> verifications;    // kiln run --verify
  std::vector<session::ArtifactEvent> artifacts;      // imported sessions' records kept as they came
  std::vector<session::CollectiveEvent> collectives;  // torch.distributed, in the order reported (not seq order)
  std::vector<std::string> output;
  session::SessionEnd end;
};

// A graph that uses every Arg kind (nested lists, -inf, dtype), symbolic and strided types,
// provenance with a user stack, a kernel name, and an id counter past its last node.
ir::Graph sampleGraph(int salt = 0);
SampleSession sampleSession(const std::string& scriptName = "model.py");

// Reports the sample through `sink` as the engine would: per compile its events then
// compileDone, output in between, sessionEnd last (unless `end` is false).
void writeSample(session::SessionSink& sink, const SampleSession& s, bool end = true);

// A compile's worth of events for the kill test ("<frame>/0" with three stages and a kernel).
void writeCompile(session::SessionSink& sink, int frame, bool done);

// Runs `f` in a forked child and returns its result as the child's exit status (-1 for a
// signal). With `unprivileged`, a root parent's child first becomes nobody (uid/gid 65534),
// so file permissions apply to it as they do to a user. For limits (setrlimit) and
// permissions that must not touch the test process itself.
int runInChild(const std::function<int()>& f, bool unprivileged = false);

// SQL helpers for inspecting a store file without the Store class.
std::string queryText(const std::string& dbPath, const std::string& sql);
long long queryInt(const std::string& dbPath, const std::string& sql);
void execSql(const std::string& dbPath, const std::string& sql);

}  // namespace kiln::storage::testing
