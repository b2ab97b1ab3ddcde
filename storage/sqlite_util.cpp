#include "storage/sqlite_util.h"

#include <sqlite3.h>

namespace kiln::storage {

namespace {
std::string describe(sqlite3* db, int rc) {
  // sqlite3_errmsg is more specific ("no such table: x") than the generic code text.
  std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  int primary = rc & 0xff;
  if (primary == SQLITE_NOTADB) msg += " (the file is not a SQLite database, or is encrypted or damaged)";
  if (primary == SQLITE_CORRUPT) msg += " (the file is damaged; earlier copies or a backup may still be intact)";
  return msg;
}
}  // namespace

Db::Db(const std::string& path) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = describe(db_, rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw StoreError("cannot open session store '" + path + "': " + msg);
  }
  sqlite3_extended_result_codes(db_, 1);
  setBusyTimeout(kBusyTimeoutMs);
  try {
    // journal_mode reads the header, so this is also where a foreign or garbage file is first
    // noticed (SQLITE_NOTADB). It is a no-op for in-memory databases, which cannot use WAL.
    exec("PRAGMA journal_mode=WAL");
    // NORMAL is durable across application crashes in WAL mode; only an OS crash or power loss
    // can lose the last commits, and never corrupt earlier ones.
    exec("PRAGMA synchronous=NORMAL");
    exec("PRAGMA foreign_keys=ON");
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
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

bool Stmt::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(stmt_);
  db_.fail(rc, "cannot run '" + sql_.substr(0, 60) + "'");
}

void Stmt::run() {
  while (step()) {
  }
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
