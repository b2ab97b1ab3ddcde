// Opening a store, starting sessions, and the edits a user makes (rename, delete).
// The read queries are in store_readers.cpp.
#include "storage/store.h"

#include "storage/process_liveness.h"
#include "storage/schema.h"
#include "storage/session_writer.h"
#include "storage/store_impl.h"

#include <cstdlib>
#include <filesystem>
#include <pwd.h>
#include <unistd.h>

namespace kiln::storage {

namespace {

// Persists "incomplete" for runs whose writer died, so a later process that happens to reuse
// the pid cannot make them look alive again. Best effort: if a live writer holds the write
// lock we skip it rather than wait (readers compute the same status on the fly anyway).
void markAbandonedSessions(Db& db) {
  std::vector<int64_t> dead;
  {
    Stmt s(db, "SELECT id, pid FROM sessions WHERE status = 'running'");
    while (s.step())
      if (!processAlive(s.int64(1))) dead.push_back(s.int64(0));
  }
  if (dead.empty()) return;
  db.setBusyTimeout(0);
  try {
    Transaction tx(db);
    Stmt up(db, "UPDATE sessions SET status = 'incomplete' WHERE id = ? AND status = 'running'");
    for (int64_t id : dead) {
      up.bind(1, id);
      up.run();
    }
    tx.commit();
  } catch (const StoreError&) {
    // Busy or read-only: leave the rows as they are.
  }
  db.setBusyTimeout(Db::kBusyTimeoutMs);
}

}  // namespace

std::unique_ptr<Store> Store::open(const std::string& path) {
  auto impl = std::make_unique<Impl>(path);
  migrate(impl->db);
  impl->version = userVersion(impl->db);
  markAbandonedSessions(impl->db);
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;

int Store::schemaVersion() const { return impl_->version; }
const std::string& Store::path() const { return impl_->path; }

std::unique_ptr<session::SessionSink> Store::beginSession() {
  return std::make_unique<SessionWriter>(*impl_);
}

int64_t Store::lastSessionId() const { return impl_->lastSessionId; }

void Store::renameSession(int64_t id, const std::string& name) {
  Stmt s(impl_->db, "UPDATE sessions SET name = ? WHERE id = ?");
  s.bind(1, name).bind(2, id).run();
  if (impl_->db.changes() == 0) throw StoreError("no session " + std::to_string(id) + " to rename");
}

void Store::deleteSession(int64_t id) {
  Db& db = impl_->db;
  {
    Stmt s(db, "SELECT status, pid FROM sessions WHERE id = ?");
    s.bind(1, id);
    if (!s.step()) throw StoreError("no session " + std::to_string(id) + " to delete");
    // Deleting under a live writer would make its next insert fail inside the engine.
    if (effectiveStatus(s.text(0), s.int64(1)) == "running")
      throw StoreError("session " + std::to_string(id) + " is still being recorded (pid " +
                       std::to_string(s.int64(1)) + "); stop the run before deleting it");
  }
  Transaction tx(db);
  // Foreign keys cascade to every table; a trigger clears the search index.
  Stmt(db, "DELETE FROM sessions WHERE id = ?").bind(1, id).run();
  tx.commit();
}

std::string defaultStorePath() {
  namespace fs = std::filesystem;
  fs::path dir;
  // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg && *xdg && fs::path(xdg).is_absolute()) {
    dir = fs::path(xdg) / "kiln";
  } else {
    const char* home = std::getenv("HOME");
    std::string h = home && *home ? home : "";
    if (h.empty())
      if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir) h = pw->pw_dir;
    if (h.empty()) throw StoreError("cannot find a home directory for the session store; pass --db");
    dir = fs::path(h) / ".local" / "share" / "kiln";
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw StoreError("cannot create the session store directory '" + dir.string() + "': " + ec.message());
  return (dir / "sessions.db").string();
}

}  // namespace kiln::storage
