// Opening a store, starting sessions, and the edits a user makes (rename, delete).
// The read queries are in store_readers.cpp.
#include "storage/store.h"

#include "storage/guarded_session_writer.h"
#include "storage/process_liveness.h"
#include "storage/schema.h"
#include "storage/session_writer.h"
#include "storage/store_impl.h"

#include <pwd.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>

namespace kiln::storage {

namespace {

// Persists "incomplete" for runs whose writer died, so a later process that happens to reuse
// the pid cannot make them look alive again. Best effort: if a live writer holds the write
// lock we skip it rather than wait (readers compute the same status on the fly anyway).
void markAbandonedSessions(Store::Impl& store) {
  Db& db = store.db;
  std::vector<int64_t> dead;
  {
    Stmt s(db, "SELECT id, pid FROM sessions WHERE status = 'running'");
    while (s.step())
      if (!processAlive(s.int64(1))) dead.push_back(s.int64(0));
  }
  if (dead.empty() || !store.readOnlyReason.empty()) return;
  db.setBusyTimeout(0);
  try {
    store.ensureWritable("mark abandoned sessions");
    Transaction tx(db);
    Stmt up(db, "UPDATE sessions SET status = 'incomplete' WHERE id = ? AND status = 'running'");
    for (int64_t id : dead) {
      up.bind(1, id);
      up.run();
    }
    tx.commit();
  } catch (const StoreError&) {
    // Busy, read-only or damaged: leave the rows as they are.
  }
  db.setBusyTimeout(Db::busyTimeoutMs());
}

bool inMemory(const std::string& path) { return path.empty() || path == ":memory:"; }

// Why the store at `path` can only be read, or "" when it can be written. SQLite writes a
// -wal and -shm file beside the store, so its folder must be writable too. (As root access()
// says yes to everything, and SQLite can indeed write.)
std::string whyReadOnly(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (inMemory(path) || !fs::exists(path, ec)) return "";
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (access(path.c_str(), W_OK) != 0) return "the file is not writable";
  if (access(dir.c_str(), W_OK) != 0) return "its folder " + dir.string() + " is not writable";
  return "";
}

}  // namespace

void Store::Impl::ensureWritable(const std::string& what) {
  if (!readOnlyReason.empty())
    throw StoreError("cannot " + what + ": session store '" + path + "' is open read-only (" + readOnlyReason + ")");
  if (writable) return;
  if (damage.empty()) {
    try {
      Stmt check(db, "PRAGMA quick_check(5)");
      while (check.step())
        if (std::string row = check.text(0); row != "ok") damage += (damage.empty() ? "" : "; ") + row;
    } catch (const StoreError& e) {
      damage = e.what();  // damage bad enough that the check itself stops (SQLITE_CORRUPT)
    }
    for (size_t at; (at = damage.find('\n')) != std::string::npos;) damage.replace(at, 1, "; ");
  }
  if (!damage.empty())
    throw StoreError("cannot " + what + ": session store '" + path + "' is damaged (quick_check: " + damage +
                     "). Kiln does not write to it; its sessions can still be read. Run 'kiln store repair --db " + path +
                     "' to copy what can be read into a new store.");
  db.useWal();
  writable = true;
}

std::unique_ptr<Store> Store::open(const std::string& path, Access access) {
  std::string reason = access == Access::ReadOnly ? "opened read-only" : whyReadOnly(path);
  auto impl = std::make_unique<Impl>(path, reason.empty() ? Db::Access::ReadWrite : Db::Access::ReadOnly);
  impl->readOnlyReason = reason;
  // Everything up to ensureWritable only reads: a foreign or newer file is refused untouched.
  checkOpenable(impl->db);
  int version = userVersion(impl->db);
  if (version < kSchemaVersion) {
    if (!reason.empty())
      throw StoreError("session store '" + path + "' " +
                       (version == 0 ? std::string("is empty") : "has schema " + std::to_string(version)) +
                       " and cannot be brought to schema " + std::to_string(kSchemaVersion) + ": it is read-only (" + reason + ")");
    impl->ensureWritable(version == 0 ? "create the schema" : "upgrade the schema");
    migrate(impl->db);
    version = userVersion(impl->db);
  }
  impl->version = version;
  markAbandonedSessions(*impl);
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;

int Store::schemaVersion() const { return impl_->version; }
const std::string& Store::path() const { return impl_->path; }
const std::string& Store::readOnlyReason() const { return impl_->readOnlyReason; }

std::unique_ptr<session::SessionSink> Store::beginSession() {
  impl_->ensureWritable("record a session");
  return std::make_unique<SessionWriter>(*impl_);
}

std::unique_ptr<session::SessionSink> Store::beginSession(StopHandler onStop) {
  impl_->ensureWritable("record a session");
  return std::make_unique<GuardedSessionWriter>(std::make_unique<SessionWriter>(*impl_), std::move(onStop));
}

int64_t Store::lastSessionId() const { return impl_->lastSessionId; }

void Store::renameSession(int64_t id, const std::string& name) {
  impl_->ensureWritable("rename a session");
  Stmt s(impl_->db, "UPDATE sessions SET name = ? WHERE id = ?");
  s.bind(1, name).bind(2, id).run();
  if (impl_->db.changes() == 0) throw StoreError("no session " + std::to_string(id) + " to rename");
}

void Store::deleteSession(int64_t id) {
  impl_->ensureWritable("delete a session");
  Db& db = impl_->db;
  {
    Stmt s(db, "SELECT status, pid FROM sessions WHERE id = ?");
    s.bind(1, id);
    if (!s.step()) throw StoreError("no session " + std::to_string(id) + " to delete");
    // Deleting under a live writer would make its next insert fail inside the engine.
    if (effectiveStatus(s.text(0), s.int64(1)) == "running")
      throw StoreError("session " + std::to_string(id) + " is still being recorded (pid " + std::to_string(s.int64(1)) +
                       "); stop the run before deleting it");
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
