// libFuzzer target: the session store's read side on damaged files. The input is written out as
// a SQLite file (seeds: small real stores made by `kiln run`), opened with
// storage::Store::open(path, Access::ReadOnly), and read the way the CLI and the studio read it:
// every reader (sessions, session, frames, compiles, stages, stage text and graph, kernels,
// wrappers, graph breaks, recompiles, timings, profiles, verifications, search, nodesAtLine),
// the stage graphs printed and diffed stage to stage, kernel IR parsed back (`kiln show --stage
// cuda`), two sessions diffed (`kiln diff`, text and JSON) and the file checked (`kiln store
// check`). Every failure must be a storage::StoreError (kernel IR text: kiln::ParseError) —
// never a crash, a sanitizer report or another exception. SQLite itself is fuzzed elsewhere; the
// point is Kiln's reading code: JSON columns (graph_json.cpp), graph rebuilding, text handling.
#include "engine/ir/graph_diff.h"
#include "engine/ir/text.h"
#include "engine/kir/kernel_ir.h"
#include "engine/support/error.h"
#include "storage/session_diff.h"
#include "storage/store.h"
#include "storage/store_check.h"

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace {

using namespace kiln;

// Bounds, so one input cannot take seconds: a damaged store can list many rows.
constexpr size_t kMaxSessions = 4, kMaxCompiles = 8, kMaxStages = 16, kMaxKernels = 16;

std::string storePath() {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/kiln-store-fuzz-" + std::to_string(getpid()) + ".db";
}

void removeStore(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

void readSession(storage::Store& store, int64_t id) {
  (void)store.session(id);
  (void)store.frames(id);
  (void)store.graphBreaks(id);
  (void)store.recompiles(id);
  (void)store.timings(id);
  (void)store.profiles(id);
  (void)store.verifications(id);
  (void)store.nodesAtLine(id, 1);
  auto compiles = store.compiles(id);
  for (size_t c = 0; c < compiles.size() && c < kMaxCompiles; ++c) {
    const std::string& cid = compiles[c].compileId;
    auto stages = store.stages(id, cid);
    std::optional<ir::Graph> previous;
    for (size_t s = 0; s < stages.size() && s < kMaxStages; ++s) {
      (void)store.stageText(stages[s].id);
      ir::Graph g = store.stageGraph(stages[s].id);
      // What the studio does with a stage: its text, its op count, the step from the last one.
      (void)ir::printGraph(g);
      (void)g.opCount();
      if (previous) (void)ir::diffGraphs(*previous, g);
      previous = std::move(g);
    }
    auto kernels = store.kernels(id, cid);
    for (size_t k = 0; k < kernels.size() && k < kMaxKernels; ++k) {
      try {
        (void)kir::parseKernel(kernels[k].kernelIr);
      } catch (const ParseError&) {}
    }
    (void)store.wrapperText(id, cid);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = storePath();
  removeStore(path);
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    std::perror(path.c_str());
    std::abort();
  }
  try {
    auto store = storage::Store::open(path, storage::Store::Access::ReadOnly);
    (void)store->schemaVersion();
    auto sessions = store->sessions();
    for (size_t i = 0; i < sessions.size() && i < kMaxSessions; ++i) {
      try {
        readSession(*store, sessions[i].id);
      } catch (const storage::StoreError&) {
        // One damaged session must not hide the others.
      }
    }
    if (sessions.size() >= 2) {
      try {
        storage::SessionDiff d = storage::diffSessions(*store, sessions[0].id, sessions[1].id);
        (void)d.text();
        (void)d.json();
      } catch (const storage::StoreError&) {}
    }
    for (const char* q : {"x", "aten mul", "kernel \"0\""}) (void)store->search(q, 20);
  } catch (const storage::StoreError&) {}
  storage::StoreCheck check = storage::checkStore(path);
  (void)check.text();
  removeStore(path);
  return 0;
}
