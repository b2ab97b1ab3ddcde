#include "storage/schema.h"

namespace kiln::storage {

namespace {

// Schema 1. Every row names its session with ON DELETE CASCADE, so deleting a session is one
// DELETE. Lists and nested values (guards, args, types, rules) are JSON; what the studio
// filters on (source line, kernel, compile id, stage order) are real indexed columns.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE sessions (
  id             INTEGER PRIMARY KEY,
  name           TEXT NOT NULL,
  script_path    TEXT NOT NULL DEFAULT '',
  script_text    TEXT NOT NULL DEFAULT '',
  options_json   TEXT NOT NULL DEFAULT '{}',
  engine_version TEXT NOT NULL DEFAULT '',
  status         TEXT NOT NULL DEFAULT 'running'
                 CHECK (status IN ('running', 'ok', 'error', 'incomplete')),
  started_at_ms  INTEGER NOT NULL DEFAULT 0,
  total_ms       REAL NOT NULL DEFAULT 0,
  pid            INTEGER NOT NULL DEFAULT 0,   -- the writer's pid: a dead one means a crashed run
  stdout         TEXT NOT NULL DEFAULT '',
  error          TEXT NOT NULL DEFAULT '',
  outputs_json   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_by_start ON sessions(started_at_ms);

CREATE TABLE frames (
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  frame_id   INTEGER NOT NULL,
  name       TEXT NOT NULL,
  file       TEXT NOT NULL,
  first_line INTEGER NOT NULL,
  kind       TEXT NOT NULL,
  source     TEXT NOT NULL,
  PRIMARY KEY (session_id, frame_id)
);

CREATE TABLE compiles (
  session_id       INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  compile_id       TEXT NOT NULL,
  frame_id         INTEGER NOT NULL,
  compile_index    INTEGER NOT NULL,
  backend          TEXT NOT NULL,
  status           TEXT NOT NULL,
  message          TEXT NOT NULL,
  guards_json      TEXT NOT NULL,
  transformed_code TEXT NOT NULL,
  PRIMARY KEY (session_id, compile_id)
);

CREATE TABLE stages (
  id           INTEGER PRIMARY KEY,
  session_id   INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  compile_id   TEXT NOT NULL,
  stage        TEXT NOT NULL,
  ord          INTEGER NOT NULL,
  text         TEXT NOT NULL,
  changed      INTEGER NOT NULL,
  ms           REAL NOT NULL,
  rules_json   TEXT NOT NULL,
  graph_name   TEXT NOT NULL,
  next_node_id INTEGER NOT NULL   -- the graph's id counter, which can run past its last node
);
CREATE INDEX stages_by_compile ON stages(session_id, compile_id, ord);

-- One row per node of a stage's graph, in graph order (pos). Provenance is spread into
-- columns so "which nodes come from line 12" is an indexed query.
CREATE TABLE stage_nodes (
  stage_id        INTEGER NOT NULL REFERENCES stages(id) ON DELETE CASCADE,
  session_id      INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  pos             INTEGER NOT NULL,
  node_id         INTEGER NOT NULL,
  name            TEXT NOT NULL,
  kind            TEXT NOT NULL,  -- placeholder | call_function | call_method | get_attr | output
  target          TEXT NOT NULL,
  types_json      TEXT NOT NULL,
  args_json       TEXT NOT NULL,
  kwargs_json     TEXT NOT NULL,
  file            TEXT NOT NULL,  -- file, function, code, module_path: '' where site_id (schema 12) is set
  line            INTEGER NOT NULL,
  col             INTEGER NOT NULL,
  end_line        INTEGER NOT NULL,
  end_col         INTEGER NOT NULL,
  function        TEXT NOT NULL,
  code            TEXT NOT NULL,
  module_path     TEXT NOT NULL,
  from_json       TEXT NOT NULL,
  user_stack_json TEXT NOT NULL,
  kernel          TEXT NOT NULL,
  PRIMARY KEY (stage_id, pos)
);
CREATE INDEX stage_nodes_by_line ON stage_nodes(session_id, line);
CREATE INDEX stage_nodes_by_kernel ON stage_nodes(stage_id, kernel);  -- dropped by schema 12: no query read it

CREATE TABLE kernels (
  id                INTEGER PRIMARY KEY,
  session_id        INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  compile_id        TEXT NOT NULL,
  name              TEXT NOT NULL,
  kind              TEXT NOT NULL,
  kernel_ir         TEXT NOT NULL,
  source            TEXT NOT NULL,
  llvm_ir           TEXT NOT NULL,
  assembly          TEXT NOT NULL,
  node_ids_json     TEXT NOT NULL,
  source_lines_json TEXT NOT NULL,
  compile_ms        REAL NOT NULL
);
CREATE INDEX kernels_by_compile ON kernels(session_id, compile_id);

CREATE TABLE wrappers (
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  compile_id TEXT NOT NULL,
  text       TEXT NOT NULL,
  PRIMARY KEY (session_id, compile_id)
);

CREATE TABLE graph_breaks (
  id              INTEGER PRIMARY KEY,
  session_id      INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  frame_id        INTEGER NOT NULL,
  compile_id      TEXT NOT NULL,
  code            TEXT NOT NULL,
  title           TEXT NOT NULL,
  explanation     TEXT NOT NULL,
  hints_json      TEXT NOT NULL,
  file            TEXT NOT NULL,
  line            INTEGER NOT NULL,
  col             INTEGER NOT NULL,
  user_stack_json TEXT NOT NULL
);
CREATE INDEX graph_breaks_by_session ON graph_breaks(session_id, line);

CREATE TABLE recompiles (
  id           INTEGER PRIMARY KEY,
  session_id   INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  frame_id     INTEGER NOT NULL,
  compile_id   TEXT NOT NULL,
  reasons_json TEXT NOT NULL
);
CREATE INDEX recompiles_by_session ON recompiles(session_id);

CREATE TABLE timings (
  id         INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  compile_id TEXT NOT NULL,
  phase      TEXT NOT NULL,
  ms         REAL NOT NULL
);
CREATE INDEX timings_by_session ON timings(session_id);

-- Full-text search over code and IR. A virtual table cannot carry a foreign key, so a
-- trigger does the cascade.
CREATE VIRTUAL TABLE search_text USING fts5(text, session_id UNINDEXED, kind UNINDEXED, ref UNINDEXED);
CREATE TRIGGER sessions_delete_search AFTER DELETE ON sessions BEGIN
  DELETE FROM search_text WHERE session_id = old.id;
END;
)sql";

}  // namespace

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> kSteps = {
      {1, "initial schema: sessions, frames, compiles, stages and nodes, kernels, breaks, search", kSchemaV1},
      {2, "recompiles record the user line of each failing guard",
       "ALTER TABLE recompiles ADD COLUMN lines_json TEXT NOT NULL DEFAULT '[]';"},
      {3, "run profiles: eager vs compiled per compile, time per generated kernel",
       "CREATE TABLE frame_profiles (id INTEGER PRIMARY KEY,"
       " session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
       " compile_id TEXT NOT NULL, eager_ms REAL NOT NULL, compiled_ms REAL NOT NULL, repeat INTEGER NOT NULL);"
       "CREATE INDEX frame_profiles_by_session ON frame_profiles(session_id);"
       "CREATE TABLE kernel_profiles (id INTEGER PRIMARY KEY,"
       " session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
       " compile_id TEXT NOT NULL, kernel TEXT NOT NULL, ms REAL NOT NULL, bytes INTEGER NOT NULL);"
       "CREATE INDEX kernel_profiles_by_session ON kernel_profiles(session_id);"},
      {4, "kiln run --verify: compiled graphs checked against eager, and what a mismatch was bisected to",
       "CREATE TABLE verifications (id INTEGER PRIMARY KEY,"
       " session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
       " compile_id TEXT NOT NULL, call INTEGER NOT NULL, matched INTEGER NOT NULL, output INTEGER NOT NULL,"
       " detail TEXT NOT NULL, culprit TEXT NOT NULL, bisection_json TEXT NOT NULL);"
       "CREATE INDEX verifications_by_session ON verifications(session_id);"},
      {5, "why a run that ended in an error was stopped: interrupted, timed out, out of memory",
       "ALTER TABLE sessions ADD COLUMN stop_reason TEXT NOT NULL DEFAULT '';"},
      {6, "artifacts: records kept as they came (what an importer read but did not structure, and its problems)",
       "CREATE TABLE artifacts (id INTEGER PRIMARY KEY,"
       " session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
       " compile_id TEXT NOT NULL, name TEXT NOT NULL, text TEXT NOT NULL, line INTEGER NOT NULL);"
       "CREATE INDEX artifacts_by_session ON artifacts(session_id);"},
      {7, "a failed compile records where it failed (file, line, col) and the explanation",
       "ALTER TABLE compiles ADD COLUMN file TEXT NOT NULL DEFAULT '';"
       "ALTER TABLE compiles ADD COLUMN line INTEGER NOT NULL DEFAULT 0;"
       "ALTER TABLE compiles ADD COLUMN col INTEGER NOT NULL DEFAULT 0;"
       "ALTER TABLE compiles ADD COLUMN detail TEXT NOT NULL DEFAULT '';"},
      {8, "collectives: every torch.distributed collective a run issued (op, bytes, issue time, duration, DDP bucket)",
       "CREATE TABLE collectives (id INTEGER PRIMARY KEY,"
       " session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
       " seq INTEGER NOT NULL, op TEXT NOT NULL, reduce_op TEXT NOT NULL, root INTEGER NOT NULL, backend TEXT NOT NULL,"
       " bytes INTEGER NOT NULL, dtype TEXT NOT NULL, shape_json TEXT NOT NULL, issued_at_ms REAL NOT NULL,"
       " duration_ms REAL NOT NULL, waited_at_ms REAL NOT NULL, rank INTEGER NOT NULL, world_size INTEGER NOT NULL,"
       " label TEXT NOT NULL);"
       "CREATE INDEX collectives_by_session ON collectives(session_id, seq);"},
      {9,
       "scale: a stage that repeats the one before it points at it (same_as) instead of storing its nodes and "
       "text again; nodes' user stacks and types are stored once per session (node_json); large texts may be "
       "zstd BLOBs",
       "ALTER TABLE stages ADD COLUMN same_as INTEGER;"
       "ALTER TABLE stage_nodes ADD COLUMN user_stack_id INTEGER;"
       "ALTER TABLE stage_nodes ADD COLUMN types_id INTEGER;"
       "CREATE TABLE node_json (id INTEGER PRIMARY KEY,"
       " session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, json TEXT NOT NULL);"
       "CREATE INDEX node_json_by_session ON node_json(session_id);"},
      {10,
       "GPU kernels keep what the GPU ran: PTX, SASS (when nvdisasm was there), the launch configuration and "
       "ptxas's registers, shared memory, stack and spills (gpu_json)",
       "ALTER TABLE kernels ADD COLUMN ptx TEXT NOT NULL DEFAULT '';"
       "ALTER TABLE kernels ADD COLUMN sass TEXT NOT NULL DEFAULT '';"
       "ALTER TABLE kernels ADD COLUMN gpu_json TEXT NOT NULL DEFAULT '';"},
      {11,
       "rule-table passes keep each rule application (rule, where it is defined, root, consumed and added "
       "nodes, replacement) so the Step tab steps one application at a time; '' for other stages",
       "ALTER TABLE stages ADD COLUMN applications_json TEXT NOT NULL DEFAULT '';"},
      {12,
       "nodes' sites (file, function, source line and module path) are stored once per session (node_json, "
       "stage_nodes.site_id): a 200-layer model's 72,000 node rows share 4,200 sites, 5.9 MB of its 41 MB; "
       "the index of nodes by kernel, which no query read, is dropped (1.2 MB, and a b-tree kept on every row stored)",
       "ALTER TABLE stage_nodes ADD COLUMN site_id INTEGER;"
       "DROP INDEX IF EXISTS stage_nodes_by_kernel;"},
      {13,
       "mode='max-autotune': every implementation timed for each matrix product of a compiled graph, with its "
       "time and whether the graph runs it (one row per candidate, in the order tried)",
       "CREATE TABLE autotune_choices (id INTEGER PRIMARY KEY,"
       " session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
       " compile_id TEXT NOT NULL, node TEXT NOT NULL, op TEXT NOT NULL, problem TEXT NOT NULL, algo TEXT NOT NULL,"
       " ms REAL NOT NULL, note TEXT NOT NULL, chosen INTEGER NOT NULL, cached INTEGER NOT NULL);"
       "CREATE INDEX autotune_choices_by_session ON autotune_choices(session_id);"},
  };
  return kSteps;
}

int userVersion(Db& db) {
  Stmt s(db, "PRAGMA user_version");
  return s.step() ? s.integer(0) : 0;
}

namespace {

int applicationId(Db& db) {
  Stmt s(db, "PRAGMA application_id");
  return s.step() ? s.integer(0) : 0;
}

int tableCount(Db& db) {
  Stmt s(db, "SELECT count(*) FROM sqlite_master");
  return s.step() ? s.integer(0) : 0;
}

void refuseForeign(Db& db, int version) {
  if (version > Store::kSchemaVersion)
    throw StoreError("session store '" + db.path() + "' was written by a newer Kiln (schema " + std::to_string(version) +
                     "); this Kiln reads schema " + std::to_string(Store::kSchemaVersion) + " and older. Update Kiln or use --db.");
  int app = applicationId(db);
  // A version-0 file with tables, or a foreign application id, is someone else's database.
  if ((app != 0 && app != kApplicationId) || (version == 0 && tableCount(db) > 0))
    throw StoreError("'" + db.path() + "' is a SQLite database but not a Kiln session store" +
                     (app != 0 && app != kApplicationId ? " (it belongs to another application)" : "") +
                     "; it was not changed (choose a Kiln store with --db PATH)");
}

}  // namespace

void checkOpenable(Db& db) { refuseForeign(db, userVersion(db)); }

void migrate(Db& db) {
  checkOpenable(db);
  if (userVersion(db) == Store::kSchemaVersion) return;

  Transaction tx(db);
  // Re-read under the write lock: another process may have migrated while we waited.
  int version = userVersion(db);
  refuseForeign(db, version);
  for (const auto& step : migrations()) {
    if (step.toVersion <= version) continue;
    try {
      db.exec(step.sql);
    } catch (const StoreError& e) {
      throw StoreError("cannot upgrade session store '" + db.path() + "' to schema " + std::to_string(step.toVersion) + " (" +
                       step.description + "): " + e.what());
    }
    version = step.toVersion;
  }
  // Both pragmas write the file header, which is part of the transaction.
  db.exec("PRAGMA application_id=" + std::to_string(kApplicationId));
  db.exec("PRAGMA user_version=" + std::to_string(version));
  tx.commit();
}

}  // namespace kiln::storage
