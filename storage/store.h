// The session store: one SQLite file (WAL) holding every run of every script.
//
// Writing: Store::beginSession() returns a SessionSink that records one session. The session
// row is committed at once with status "running"; the events of each compile are committed in
// one transaction (compileDone), the rest at sessionEnd. A process killed mid-run leaves its
// session "running" with a dead pid: readers report it as "incomplete", and earlier sessions
// are untouched.
//
// Reading: the studio and the CLI read only through this class.
#pragma once

#include "engine/ir/graph.h"
#include "engine/session/sink.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::storage {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SessionSummary {
  int64_t id = 0;
  std::string name;  // user-visible name (defaults to the script's file name)
  std::string scriptPath;
  // running | ok | error | incomplete, or for an error why the run was stopped: interrupted |
  // timed out | out of memory
  std::string status;
  int64_t startedAtMs = 0;
  double totalMs = 0.0;
  int frameCount = 0;
  int graphCount = 0;
  int breakCount = 0;
  int recompileCount = 0;
  int failedCount = 0;  // compiles that failed (fullgraph=True breaks, backend errors)
};

struct SessionDetail {
  SessionSummary summary;
  std::string scriptText;
  std::string optionsJson;
  std::string engineVersion;
  std::string stdoutText;
  std::string error;
  std::string outputsJson;
};

struct FrameRow {
  int frameId = 0;
  std::string name, file, kind, source;
  int firstLine = 0;
};

struct CompileRow {
  std::string compileId;
  int frameId = 0;
  int compileIndex = 0;
  std::string backend, status, message, transformedCode;
  std::vector<session::Guard> guards;  // empty when read with GuardRead::Counted
  int guardCount = 0;                  // how many guards it has, read either way
  std::string file, detail;            // a failed compile: where (file, line, col) and why (v7)
  int line = 0, col = 0;
};

// How Store::compiles reads guards: parsed (every guard), or only counted. A 200-layer model's
// guards are 5 MB of JSON (140-250 ms to parse); the studio counts them when it opens a session
// and reads one compile's with compileGuards() where they are shown (the Capture tab).
enum class GuardRead { Parsed, Counted };

struct StageRow {
  int64_t id = 0;
  std::string compileId;
  std::string stage;
  int order = 0;
  bool changed = true;
  double ms = 0.0;
  std::vector<session::RuleHit> rules;
  // The stage whose graph and text this one repeats (schema 9: stored once), else 0. Readers
  // that read several stages read such a stage's graph once.
  int64_t sameAs = 0;
};

struct KernelRow {
  int64_t id = 0;
  std::string compileId, name, kind, kernelIr, source, llvmIr, assembly;
  std::vector<int> nodeIds;
  std::vector<int> sourceLines;
  double compileMs = 0.0;
  session::KernelGpuInfo gpu;  // schema 10: kernels that ran on a GPU; empty for the others
};

// One kept record of an imported session, without its body (Store::artifactIndex): a session
// of a real model holds thousands, some of megabytes, so a list reads these and the body of
// the one shown (Store::artifactText).
struct ArtifactRow {
  int64_t id = 0;
  std::string compileId, name;
  int line = 0;
  int64_t bytes = 0;
};

// A full-text search match (Store::search).
struct SearchHit {
  int64_t sessionId = 0;
  std::string kind;     // script | frame | transformed | stage | kernel | wrapper
  std::string ref;      // frame id, compile id, stage id or kernel id ("" for the script)
  std::string snippet;  // the matching text around the match, matches in [brackets]
};

// A node of some stage that came from a given user source line (Store::nodesAtLine).
struct LineNode {
  int64_t stageId = 0;
  int nodeId = 0;
};

class Store {
 public:
  // Auto: read-write when the file and its folder are writable, else read-only (listing and
  // reading work; writes throw). ReadOnly: never writes, whatever the permissions.
  enum class Access { Auto, ReadOnly };

  // Opens (creating and migrating as needed) the store at `path`. The file is validated
  // before anything is written to it: a file that is not a Kiln store, or is from a newer
  // Kiln, gives a StoreError and is left unchanged. A damaged store (quick_check fails) opens
  // for reading; writes to it throw a StoreError that names `kiln store repair`.
  static std::unique_ptr<Store> open(const std::string& path, Access access = Access::Auto);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  static constexpr int kSchemaVersion = 13;
  int schemaVersion() const;
  const std::string& path() const;
  // Why the store is open read-only ("the file is not writable", ...); "" when writable.
  const std::string& readOnlyReason() const;

  // Starts recording a new session; the sink is valid while the Store lives. Throws a
  // StoreError at once when the store is read-only or damaged.
  std::unique_ptr<session::SessionSink> beginSession();
  // The same, except that a failure while recording (disk full, an I/O error) never reaches
  // the engine: the recording stops, `onStop` is called once with the reason, later events
  // are dropped, and the session is marked incomplete where the store still allows it.
  // `kiln run` records this way, so a full disk costs the recording, not the user's script.
  using StopHandler = std::function<void(const std::string& reason)>;
  std::unique_ptr<session::SessionSink> beginSession(StopHandler onStop);
  // The id of the session the most recent beginSession() sink created (0 before sessionStart).
  int64_t lastSessionId() const;

  std::vector<SessionSummary> sessions();  // newest first
  std::optional<SessionDetail> session(int64_t id);
  std::vector<FrameRow> frames(int64_t sessionId);
  std::vector<CompileRow> compiles(int64_t sessionId, GuardRead guards = GuardRead::Parsed);
  std::vector<session::Guard> compileGuards(int64_t sessionId, const std::string& compileId);  // none if no such compile
  std::vector<StageRow> stages(int64_t sessionId, const std::string& compileId);               // by order
  std::string stageText(int64_t stageId);
  // Each rule application of a rule-table pass stage, in order (schema 11; none for other
  // stages and for stores written before it). Read on demand: a large pass has thousands.
  std::vector<session::RuleApplication> ruleApplications(int64_t stageId);
  ir::Graph stageGraph(int64_t stageId);  // structured nodes with provenance
  std::vector<KernelRow> kernels(int64_t sessionId, const std::string& compileId);
  std::string wrapperText(int64_t sessionId, const std::string& compileId);
  std::vector<session::GraphBreakEvent> graphBreaks(int64_t sessionId);
  std::vector<session::RecompileEvent> recompiles(int64_t sessionId);
  std::vector<session::TimingEvent> timings(int64_t sessionId);
  // Run profiles (kiln run --profile), in the order recorded; empty when not profiled.
  std::vector<session::ProfileEvent> profiles(int64_t sessionId);
  // mode="max-autotune": each matrix product's candidates, in the order they were recorded.
  std::vector<session::AutotuneEvent> autotuneChoices(int64_t sessionId);
  // kiln run --verify results, in the order recorded; empty when not verified.
  std::vector<session::VerifyEvent> verifications(int64_t sessionId);
  // Records kept as they came (imported sessions), in the order they were recorded.
  std::vector<session::ArtifactEvent> artifacts(int64_t sessionId);
  std::vector<ArtifactRow> artifactIndex(int64_t sessionId);
  std::string artifactText(int64_t artifactId);  // "" when there is no such artifact
  // torch.distributed collectives the run issued, in issue order (seq); empty for other runs.
  std::vector<session::CollectiveEvent> collectives(int64_t sessionId);

  // Full-text search (FTS5) over scripts, frame sources, transformed code, stage IR, kernels
  // and wrappers of every session; every word of `text` must match. Newest sessions first.
  std::vector<SearchHit> search(const std::string& text, int limit = 100);
  // Every stage node of the session whose provenance points at `line` of the user's script.
  std::vector<LineNode> nodesAtLine(int64_t sessionId, int line);

  void renameSession(int64_t id, const std::string& name);
  void deleteSession(int64_t id);

  struct Impl;

 private:
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The default store: $XDG_DATA_HOME/kiln/sessions.db (~/.local/share/kiln/sessions.db).
std::string defaultStorePath();

}  // namespace kiln::storage
