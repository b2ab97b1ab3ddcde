// kiln store repair: copies what can be read from a damaged store into a new one, row by row.
#include "storage/schema.h"
#include "storage/sqlite_util.h"
#include "storage/store_check.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <sstream>

namespace kiln::storage {

namespace {

namespace fs = std::filesystem;

std::string quote(const std::string& name) { return "\"" + name + "\""; }

// The schema's tables in creation order, which puts every parent (sessions, stages) before
// the rows that refer to it. FTS5's shadow tables are left out: inserting into search_text
// rebuilds them.
std::vector<std::string> tablesOf(Db& db) {
  std::vector<std::string> out;
  Stmt s(db,
         "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
         " AND name NOT LIKE 'search\\_text\\_%' ESCAPE '\\' ORDER BY rowid");
  while (s.step()) out.push_back(s.text(0));
  return out;
}

std::vector<std::string> columnsOf(Db& db, const std::string& table) {
  std::vector<std::string> out;
  Stmt s(db, "SELECT name FROM pragma_table_info(?)");
  s.bind(1, table);
  while (s.step()) out.push_back(s.text(0));
  return out;
}

// A raw prepared statement: the copy moves sqlite3_value's across unchanged (types, bytes),
// which Stmt does not offer.
struct Raw {
  Raw(Db& db, const std::string& sql) : db_(db) {
    int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &st, nullptr);
    if (rc != SQLITE_OK) db.fail(rc, "cannot prepare '" + sql.substr(0, 60) + "'");
  }
  ~Raw() { sqlite3_finalize(st); }
  Raw(const Raw&) = delete;
  Raw& operator=(const Raw&) = delete;
  Db& db_;
  sqlite3_stmt* st = nullptr;
};

// Copies the rows of `table` in rowid order. When a read fails (a damaged page), it seeks past
// the last good row: one rowid further each try at first, then doubling, so a damaged leaf of
// a few dozen rows costs only those rows and a damaged interior page is crossed quickly.
RepairReport::Table copyTable(Db& src, Db& dst, const std::string& table, const std::vector<std::string>& cols) {
  RepairReport::Table t;
  t.name = table;
  std::string list, params;
  for (const auto& c : cols) {
    list += (list.empty() ? "" : ", ") + quote(c);
    params += params.empty() ? "?" : ", ?";
  }
  Raw read(src, "SELECT rowid, " + list + " FROM " + quote(table) + " WHERE rowid >= ? ORDER BY rowid");
  Raw write(dst, "INSERT INTO " + quote(table) + " (" + list + ") VALUES (" + params + ")");
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t resume = std::numeric_limits<int64_t>::min();  // the rowid after the last good row
  int64_t skip = 0;
  for (int tries = 0; tries < 100000; ++tries) {
    sqlite3_bind_int64(read.st, 1, skip > 0 && resume > kMax - skip ? kMax : resume + skip);
    int rc;
    while ((rc = sqlite3_step(read.st)) == SQLITE_ROW) {
      int64_t rowid = sqlite3_column_int64(read.st, 0);
      for (size_t i = 0; i < cols.size(); ++i)
        sqlite3_bind_value(write.st, static_cast<int>(i) + 1, sqlite3_column_value(read.st, static_cast<int>(i) + 1));
      int wrc = sqlite3_step(write.st);
      sqlite3_reset(write.st);
      if (wrc == SQLITE_DONE) ++t.copied;
      else if ((wrc & 0xff) == SQLITE_CONSTRAINT) ++t.dropped;  // its session (or stage) was lost
      else dst.fail(wrc, "cannot write the recovered rows of " + table);
      skip = 0;
      if (rowid == kMax) break;
      resume = rowid + 1;
    }
    sqlite3_reset(read.st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
      if (skip == 0) ++t.readErrors;
      if (skip > kMax / 2) break;  // doubling would pass every possible rowid (and overflow int64)
      skip = skip < 256 ? skip + 1 : skip * 2;
      if (resume > kMax - skip) break;  // past every possible rowid
      continue;
    }
    break;
  }
  return t;
}

void removeStoreFiles(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ec);
}

}  // namespace

std::string defaultRepairPath(const std::string& from) {
  fs::path p(from);
  std::string ext = p.extension().string();
  return (p.parent_path() / (p.stem().string() + ".recovered" + (ext.empty() ? ".db" : ext))).string();
}

RepairReport repairStore(const std::string& from, const std::string& to) {
  std::error_code ec;
  if (!fs::is_regular_file(from, ec)) throw StoreError("no session store at '" + from + "' to repair");
  if (fs::exists(to, ec) || fs::exists(to + "-wal", ec))
    throw StoreError("'" + to + "' already exists; repair writes a new file: remove it or pass --out NEW");
  Db src(from, Db::Access::ReadOnly);
  checkOpenable(src);  // another application's database, or a newer Kiln's, is not ours to copy

  RepairReport r;
  r.from = from;
  r.to = to;
  try {
    Store::open(to);  // a new, empty store at the current schema
    Db dst(to);
    std::vector<std::string> have;
    try {
      have = tablesOf(src);
    } catch (const StoreError& e) {
      throw StoreError("cannot recover anything from '" + from + "': its list of tables cannot be read: " + e.what());
    }
    Transaction tx(dst);
    for (const auto& table : tablesOf(dst)) {
      if (std::find(have.begin(), have.end(), table) == have.end()) continue;  // an older schema
      try {
        std::vector<std::string> srcCols = columnsOf(src, table), cols;
        for (const auto& c : columnsOf(dst, table))
          if (std::find(srcCols.begin(), srcCols.end(), c) != srcCols.end()) cols.push_back(c);
        r.tables.push_back(copyTable(src, dst, table, cols));
      } catch (const StoreError& e) {
        if (std::string(e.what()).find("'" + to + "'") != std::string::npos) throw;  // the new file failed
        r.notes.push_back("table " + table + " could not be read: " + e.what());
      }
    }
    // The search index has no foreign key; drop the entries of sessions that were lost.
    Stmt(dst, "DELETE FROM search_text WHERE session_id NOT IN (SELECT id FROM sessions)").run();
    for (auto& t : r.tables)
      if (t.name == "search_text") {
        t.dropped += dst.changes();
        t.copied -= dst.changes();
      }
    tx.commit();
  } catch (...) {
    removeStoreFiles(to);  // never leave a half-made store behind
    throw;
  }
  r.result = checkStore(to);
  return r;
}

std::string RepairReport::text() const {
  std::ostringstream o;
  o << "recovered " << from << " into " << to << " (" << from << " is unchanged)\n";
  for (const auto& t : tables) {
    o << "  " << t.name << ": " << t.copied << " rows";
    if (t.dropped) o << ", " << t.dropped << " dropped (their session was not recovered)";
    if (t.readErrors) o << ", " << t.readErrors << " unreadable stretch" << (t.readErrors == 1 ? "" : "es") << " skipped";
    o << "\n";
  }
  for (const auto& n : notes) o << "  note: " << n << "\n";
  o << "check of the new store: " << (result.ok() ? "ok" : "problems") << "\n";
  for (const auto& p : result.problems) o << "  - " << p << "\n";
  // The old -wal must go too: SQLite would replay it onto the new file.
  if (result.ok())
    o << "To use it in place of the damaged store, with no Kiln running:\n  mv '" << from << "' '" << from << ".damaged' && rm -f '" << from
      << "-wal' '" << from << "-shm' && mv '" << to << "' '" << from << "'\n";
  return o.str();
}

}  // namespace kiln::storage
