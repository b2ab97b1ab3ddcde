// SessionWriter: the SessionSink that records one session into the store.
//
// Crash safety comes from when it commits:
//   sessionStart  inserts the session row ("running", this pid) and commits at once;
//   events        go into one open transaction (BEGIN IMMEDIATE on the first event);
//   compileDone   commits it, so a compile is stored whole or not at all;
//   sessionEnd    writes status, error, total time and outputs and commits the rest.
// A process killed in between loses only the compile in flight; SQLite's WAL rolls it back
// on the next open and every earlier commit, and every earlier session, stays intact.
//
// The writer uses its own connection, so its open transaction never mixes with the Store's
// reads or with renames/deletes done through the Store meanwhile.
#pragma once

#include "engine/session/sink.h"
#include "storage/stage_digest.h"
#include "storage/store_impl.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::storage {

class SessionWriter : public session::SessionSink {
 public:
  explicit SessionWriter(Store::Impl& store);
  // A session dropped without sessionEnd (the engine threw) is marked "incomplete"; its
  // unfinished compile is rolled back, exactly as after a crash.
  ~SessionWriter() override;

  void sessionStart(const session::SessionStart&) override;
  void frame(const session::FrameEvent&) override;
  void compile(const session::CompileEvent&) override;
  void stage(const session::StageEvent&) override;
  void kernel(const session::KernelEvent&) override;
  // UPDATEs the compile's kernel rows of those names: source, ptx, sass, gpu_json and their
  // search entry (session_writer_views.cpp). Commits as any event of that compile does: with it
  // while it is open, at once after its compileDone.
  void kernelViews(const session::KernelViewsEvent&) override;
  bool wantsKernelViews() const override { return true; }
  void wrapper(const session::WrapperEvent&) override;
  void graphBreak(const session::GraphBreakEvent&) override;
  void recompile(const session::RecompileEvent&) override;
  void timing(const session::TimingEvent&) override;
  void profile(const session::ProfileEvent&) override;
  void autotune(const session::AutotuneEvent&) override;
  void verify(const session::VerifyEvent&) override;
  void artifact(const session::ArtifactEvent&) override;
  void collective(const session::CollectiveEvent&) override;
  void output(const std::string& text) override;
  void compileDone(const std::string& compileId) override;
  void sessionEnd(const session::SessionEnd&) override;

  // Ends the recording early: rolls back the compile in flight and marks the session
  // "incomplete" with `reason` as its error, where the store still allows it (best effort:
  // this is also what runs after a write failed). Later events are errors.
  void stop(const std::string& reason) noexcept;

 private:
  // Checks the session is open and starts the event transaction if none is open.
  void beginEvent(const char* event);
  void commit();
  void flushOutput();
  // Adds text to the full-text index; `replace` drops the earlier entry of the same kind/ref
  // (frames, compiles and wrappers may be reported again with updated contents).
  void index(const std::string& kind, const std::string& ref, const std::string& text, bool replace);
  // A kernel's search entry: its name, kernel IR and generated source (kernel(), kernelViews()).
  static std::string kernelSearchText(const std::string& name, const std::string& kernelIr, const std::string& source);

  Store::Impl& store_;
  std::unique_ptr<Db> own_;  // this writer's connection (null for in-memory stores)
  Db* db_ = nullptr;
  int64_t sessionId_ = 0;
  void endEvent(const std::string& compileId);
  std::set<std::string> openCompiles_;  // with events reported, not yet done
  std::set<std::string> doneCompiles_;
  bool ended_ = false;
  std::string pendingOutput_;
  std::set<std::string> indexed_;  // kind/ref pairs already in the search index

  // Per open compile, the last stage stored with its own rows: a pass that changed nothing
  // (constant_fold, cse, dce on most graphs) repeats it, and is stored as `same_as` it. Its text
  // and digests of its nodes (stage_digest.h), not its graph: a copy of a 17,000-node graph (some
  // 30 MB) was held through every pass, at the run's peak. Equal node fields make equal rows, so
  // a repeat is found without making the JSON of every node (0.1-0.2 s per stage of a
  // 17,000-node graph); fields that differ may still make equal rows (what JSON does not keep),
  // which the digest of the rows as stored decides. Held until the compile reports its first
  // kernel (kernel() says why).
  struct StoredStage {
    int64_t id = 0;
    std::string text;
    size_t nodes = 0;
    Digest fields, rows;
  };
  // Adds one stage_nodes row, as bound, to `d`: its JSON columns by their node_json ids (equal
  // ids, equal JSON).
  static void addRow(Digest& d, const ir::Node& n, int64_t stackId, int64_t typesId, const std::string& args, const std::string& kwargs,
                     const std::string& from);
  // The digest of the rows `g`'s nodes are stored as (their stacks' and types' node_json ids
  // made in the order storing them makes them).
  Digest rowsDigest(const ir::Graph& g);
  std::map<std::string, StoredStage> lastStage_;
  // The session's distinct user stacks and types (JSON) and their node_json ids: a 200-layer
  // model's nodes share a few hundred of each, which were over half of its stage_nodes bytes.
  std::unordered_map<std::string, int64_t> jsonIds_;
  int64_t jsonId(const std::string& json);
  // The node_json id of a user stack / of a node's types, found by their fields: making their
  // JSON per node, and hashing it, was a third of storing a 17,000-node stage.
  int64_t userStackId(const std::vector<ir::SourceLoc>& stack);
  int64_t typesJsonId(const std::vector<ir::TensorType>& types);
  // The node_json id of a node's site: its file, function, source line and module path (schema
  // 12), shared by every node a line makes in every stage; per node they were 5.9 MB of a
  // 200-layer model's 41 MB session.
  int64_t siteId(const ir::Node& n);
  std::unordered_map<std::string, int64_t> stackIds_, typeIds_, siteIds_;
  std::string idKey_;
};

}  // namespace kiln::storage
