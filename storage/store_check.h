// `kiln store check` and `kiln store repair`: what is wrong with a store file, and a new store
// holding everything that can still be read from a damaged one.
//
// Both open the file read-only and never write to it, whatever its state. Repair copies table
// by table, row by row in rowid order, into a freshly created store; a row SQLite cannot read
// (a damaged page) is skipped by seeking past it, and rows whose session did not survive are
// dropped by the new store's foreign keys, so the result always passes check. (SQLite's
// `.recover`, which also finds rows on pages no b-tree reaches, needs the sqlite_dbpage table,
// which Debian's SQLite 3.40 does not build.)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::storage {

struct StoreCheck {
  std::string path;
  int applicationId = 0;
  int schemaVersion = 0;
  std::vector<std::string> problems;                      // empty: the store is sound
  std::vector<std::string> notes;                         // worth knowing but not wrong (an older schema, an empty file)
  std::vector<std::pair<std::string, int64_t>> rows;      // table -> row count, tables that could be counted
  std::vector<std::pair<std::string, int64_t>> statuses;  // session status (as readers report it) -> sessions
  bool ok() const { return problems.empty(); }
  // The report `kiln store check` prints; names `kiln store repair` when there are problems.
  std::string text() const;
};

// Checks the file at `path`: a Kiln store (application id, schema version), PRAGMA
// integrity_check, foreign keys, and row counts. Never throws for a bad file; every finding
// is in the result.
StoreCheck checkStore(const std::string& path);

struct RepairReport {
  struct Table {
    std::string name;
    int64_t copied = 0;
    int64_t dropped = 0;     // read, but refused by the new store (their session was lost)
    int64_t readErrors = 0;  // places where reading failed and rows were skipped
  };
  std::string from, to;
  std::vector<Table> tables;
  std::vector<std::string> notes;  // tables that could not be read at all
  StoreCheck result;               // checkStore of the new file
  std::string text() const;
};

// Copies what can be read from the store at `from` into a new store at `to`, which must not
// exist. Throws StoreError when `from` cannot be read at all (not a SQLite file, another
// application's database) or `to` cannot be created; `from` is never modified.
RepairReport repairStore(const std::string& from, const std::string& to);

// The file name repair writes by default: "sessions.db" -> "sessions.recovered.db".
std::string defaultRepairPath(const std::string& from);

}  // namespace kiln::storage
