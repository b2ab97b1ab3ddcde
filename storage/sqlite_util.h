// A thin RAII layer over the sqlite3 C API: a connection, a prepared statement and a
// transaction guard. Every failure becomes a StoreError that names the database file, so a
// damaged or foreign file is reported, never crashed on.
#pragma once

#include "storage/store.h"

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace kiln::storage {

class Db {
 public:
  // A writer holds the write lock for one compile; a reader or a second writer waits this long
  // for it rather than failing at once.
  static constexpr int kBusyTimeoutMs = 10000;
  // kBusyTimeoutMs, or $KILN_STORE_BUSY_TIMEOUT_MS where set: `kiln run --nproc-per-node` gives
  // its ranks a long one, since they share one store and a rank's compile holds the write lock
  // for its whole length (the others wait for it instead of stopping their recording).
  static int busyTimeoutMs();

  enum class Access { ReadWrite, ReadOnly };

  // Opens the database at `path` (ReadWrite creates it if needed) with the connection settings
  // every Kiln connection uses: foreign keys, a busy timeout. Only reads the file: it is not
  // switched to WAL here, because a file must be known to be a sound Kiln store before
  // anything is written to it (useWal). Reads the header, so a file that is not a database
  // fails here with a StoreError naming it.
  explicit Db(const std::string& path, Access access = Access::ReadWrite);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  bool readOnly() const { return readOnly_; }

  // Switches the file to WAL (a write to its header; persistent). Readers then never block
  // the writer. A no-op for in-memory databases, which cannot use WAL.
  void useWal();

  // Runs one or more statements that return no rows worth reading.
  void exec(const std::string& sql);
  int64_t lastInsertId() const;
  // How long a statement waits for another connection's lock before failing with SQLITE_BUSY.
  void setBusyTimeout(int ms);
  int changes() const;
  bool inTransaction() const;

  // Throws StoreError("<what> in <path>: <sqlite message>") for a non-OK result code.
  [[noreturn]] void fail(int rc, std::string_view what) const;

 private:
  // Opens with `flags`; returns the result of reading the header, closing on failure.
  int openAndRead(const std::string& name, int flags);

  sqlite3* db_ = nullptr;
  std::string path_;
  bool readOnly_ = false;
};

class Stmt {
 public:
  Stmt(Db& db, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Binds are 1-based like sqlite3_bind_*; they return *this so a row reads as one line.
  Stmt& bind(int i, int64_t v);
  Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, double v);
  Stmt& bind(int i, bool v) { return bind(i, static_cast<int64_t>(v ? 1 : 0)); }
  Stmt& bind(int i, std::string_view v);
  Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  // A large text as a zstd BLOB when that is smaller (text_codec.h), else as TEXT; `text()`
  // reads either back.
  Stmt& bindCompressed(int i, std::string_view v);

  // Advances to the next row; false when done. Throws StoreError on any error.
  bool step();
  // Runs a statement that returns no rows, then resets it so it can be bound again.
  void run();
  void reset();

  int64_t int64(int col) const;
  int integer(int col) const { return static_cast<int>(int64(col)); }
  double real(int col) const;
  std::string text(int col) const;  // NULL reads as ""; a zstd BLOB (bindCompressed) decoded
  bool isNull(int col) const;

 private:
  Db& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back if destroyed without commit() (an exception escaped).
class Transaction {
 public:
  explicit Transaction(Db& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Db& db_;
  bool done_ = false;
};

}  // namespace kiln::storage
