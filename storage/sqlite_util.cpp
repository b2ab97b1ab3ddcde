#include "storage/sqlite_util.h"
#include "storage/text_codec.h"

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace kiln::storage {

namespace {
std::string describe(sqlite3* db, int rc) {
  // sqlite3_errmsg is more specific ("no such table: x") than the generic code text.
  std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  int primary = rc & 0xff;
  if (primary == SQLITE_NOTADB) msg += " (the file is not a SQLite database, or is encrypted or damaged)";
  if (primary == SQLITE_CORRUPT) msg += " (the file is damaged; earlier copies or a backup may still be intact)";
  if (primary == SQLITE_READONLY) msg += " (the file or its folder is not writable)";
  if (primary == SQLITE_FULL) msg += " (the disk is full, or the file reached its size limit)";
  if (primary == SQLITE_IOERR) msg += " (reading or writing the file failed: a full disk, a size limit or a failing device)";
  return msg;
}
}  // namespace

int Db::openAndRead(const std::string& name, int flags) {
  int rc = sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_extended_result_codes(db_, 1);
    setBusyTimeout(busyTimeoutMs());
    // Reads the header (and, in WAL mode, the wal-index): a foreign or garbage file is first
    // noticed here (SQLITE_NOTADB). Writes nothing.
    rc = sqlite3_exec(db_, "PRAGMA schema_version", nullptr, nullptr, nullptr);
  }
  return rc;
}

Db::Db(const std::string& path, Access access) : path_(path), readOnly_(access == Access::ReadOnly) {
  namespace fs = std::filesystem;
  int flags = readOnly_ ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = openAndRead(path, flags);
  std::error_code ec;
  if (readOnly_ && ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN) && fs::exists(path, ec) &&
      !fs::exists(path + "-wal", ec)) {
    // A WAL file in a folder we cannot write: SQLite cannot create the -shm index it reads
    // through. With no -wal file everything committed is in the main file, and no writer can
    // exist (it would need that folder), so reading the file as immutable is exact.
    sqlite3_close_v2(db_);
    db_ = nullptr;
    std::string uri = "file://";
    for (char c : fs::absolute(path, ec).string()) {
      if (c == '%' || c == '?' || c == '#') {
        static const char* kHex = "0123456789abcdef";
        uri += '%';
        uri += kHex[(c >> 4) & 0xf];
        uri += kHex[c & 0xf];
      } else {
        uri += c;
      }
    }
    rc = openAndRead(uri + "?immutable=1", flags | SQLITE_OPEN_URI);
  }
  if (rc != SQLITE_OK) {
    std::string msg = describe(db_, rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw StoreError("cannot open session store '" + path + "': " + msg);
  }
  try {
    // NORMAL is durable across application crashes in WAL mode; only an OS crash or power loss
    // can lose the last commits, and never corrupt earlier ones. Both are connection settings.
    exec("PRAGMA synchronous=NORMAL");
    exec("PRAGMA foreign_keys=ON");
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

void Db::useWal() {
  if (readOnly_) throw StoreError("session store '" + path_ + "' is open read-only");
  // Switching a new store to WAL takes an exclusive lock, and SQLite returns BUSY at once rather
  // than calling the busy handler when another process holds it (the ranks of `kiln run
  // --nproc-per-node` all open the store as they start): retry for the busy timeout.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(busyTimeoutMs());
  for (;;) {
    int rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= until) fail(rc, "cannot run 'PRAGMA journal_mode=WAL'");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Db::~Db() {
  if (db_) sqlite3_close_v2(db_);
}

void Db::fail(int rc, std::string_view what) const {
  throw StoreError(std::string(what) + " in session store '" + path_ + "': " + describe(db_, rc));
}

void Db::exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (err) sqlite3_free(err);
  if (rc != SQLITE_OK) fail(rc, "cannot run '" + sql.substr(0, 60) + "'");
}

void Db::setBusyTimeout(int ms) { sqlite3_busy_timeout(db_, ms); }

int Db::busyTimeoutMs() {
  static const int ms = [] {
    const char* v = std::getenv("KILN_STORE_BUSY_TIMEOUT_MS");
    if (!v || !*v) return kBusyTimeoutMs;
    char* end = nullptr;
    long n = std::strtol(v, &end, 10);
    return end && *end == '\0' && n > 0 && n <= 24L * 3600 * 1000 ? static_cast<int>(n) : kBusyTimeoutMs;
  }();
  return ms;
}
int64_t Db::lastInsertId() const { return sqlite3_last_insert_rowid(db_); }
int Db::changes() const { return sqlite3_changes(db_); }
bool Db::inTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

Stmt::Stmt(Db& db, std::string_view sql) : db_(db), sql_(sql) {
  int rc = sqlite3_prepare_v3(db.handle(), sql.data(), static_cast<int>(sql.size()), 0, &stmt_, nullptr);
  if (rc != SQLITE_OK) db_.fail(rc, "cannot prepare '" + sql_.substr(0, 60) + "'");
}

Stmt::~Stmt() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Stmt& Stmt::bind(int i, int64_t v) {
  int rc = sqlite3_bind_int64(stmt_, i, v);
  if (rc != SQLITE_OK) db_.fail(rc, "cannot bind parameter");
  return *this;
}

Stmt& Stmt::bind(int i, double v) {
  int rc = sqlite3_bind_double(stmt_, i, v);
  if (rc != SQLITE_OK) db_.fail(rc, "cannot bind parameter");
  return *this;
}

Stmt& Stmt::bind(int i, std::string_view v) {
  // SQLITE_TRANSIENT: SQLite copies, so temporaries can be bound safely.
  int rc = sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) db_.fail(rc, "cannot bind parameter");
  return *this;
}

Stmt& Stmt::bindCompressed(int i, std::string_view v) {
  auto packed = compressText(v);
  if (!packed) return bind(i, v);
  int rc = sqlite3_bind_blob64(stmt_, i, packed->data(), packed->size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) db_.fail(rc, "cannot bind parameter");
  return *this;
}

bool Stmt::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(stmt_);
  db_.fail(rc, "cannot run '" + sql_.substr(0, 60) + "'");
}

void Stmt::run() {
  while (step()) {}
  reset();
}

void Stmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Stmt::int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double Stmt::real(int col) const { return sqlite3_column_double(stmt_, col); }
bool Stmt::isNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

std::string Stmt::text(int col) const {
  if (sqlite3_column_type(stmt_, col) == SQLITE_BLOB) {
    std::string_view bytes(static_cast<const char*>(sqlite3_column_blob(stmt_, col)),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
    if (isCompressedText(bytes)) return decompressText(bytes);
  }
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (!p) return {};
  return std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

Transaction::Transaction(Db& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (done_) return;
  // Destructors must not throw; a failed rollback leaves SQLite to roll back on close.
  sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace kiln::storage
