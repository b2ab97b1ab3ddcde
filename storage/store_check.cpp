// kiln store check: reads a store file without writing to it and lists what is wrong.
#include "storage/store_check.h"

#include "storage/process_liveness.h"
#include "storage/schema.h"
#include "storage/sqlite_util.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

namespace kiln::storage {

namespace {

constexpr int kMaxListed = 20;  // integrity_check and foreign-key findings listed, at most

std::string hexId(int id) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(id));
  return buf;
}

// integrity_check's first finding comes as several lines; a listed problem is one.
std::string oneLine(std::string text) {
  for (size_t at; (at = text.find('\n')) != std::string::npos;) text.replace(at, 1, "; ");
  return text;
}

// The schema's tables in creation order, FTS5's shadow tables left out (they are the index).
std::vector<std::string> tables(Db& db) {
  std::vector<std::string> out;
  Stmt s(db,
         "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
         " AND name NOT LIKE 'search\\_text\\_%' ESCAPE '\\' ORDER BY rowid");
  while (s.step()) out.push_back(s.text(0));
  return out;
}

// Application id and schema version; false when the file is not a Kiln store at all.
bool checkIdentity(Db& db, StoreCheck& c) {
  {
    Stmt s(db, "PRAGMA application_id");
    c.applicationId = s.step() ? s.integer(0) : 0;
  }
  c.schemaVersion = userVersion(db);
  if (c.applicationId != 0 && c.applicationId != kApplicationId) {
    c.problems.push_back("application id " + hexId(c.applicationId) + " is not Kiln's (" + hexId(kApplicationId) +
                         ", 'KILN'): this is another application's SQLite database");
    return false;
  }
  if (c.schemaVersion == 0) {
    size_t n = tables(db).size();
    if (n > 0) {
      c.problems.push_back("no schema version but " + std::to_string(n) + " tables: not a Kiln session store");
      return false;
    }
    c.notes.push_back("an empty database: Kiln creates the schema when it first records a session");
    return false;
  }
  if (c.schemaVersion > Store::kSchemaVersion) {
    c.problems.push_back("written by a newer Kiln (schema " + std::to_string(c.schemaVersion) + "; this Kiln reads schema " +
                         std::to_string(Store::kSchemaVersion) + " and older)");
    return false;
  }
  if (c.schemaVersion < Store::kSchemaVersion)
    c.notes.push_back("schema " + std::to_string(c.schemaVersion) + ": Kiln upgrades it to schema " +
                      std::to_string(Store::kSchemaVersion) + " the next time it writes to it");
  return true;
}

void checkIntegrity(Db& db, StoreCheck& c) {
  Stmt s(db, "PRAGMA integrity_check(" + std::to_string(kMaxListed) + ")");
  while (s.step())
    if (std::string row = s.text(0); row != "ok") c.problems.push_back("integrity_check: " + oneLine(row));
}

void checkForeignKeys(Db& db, StoreCheck& c) {
  std::map<std::string, int64_t> orphans;  // "table -> parent" -> rows
  Stmt s(db, "PRAGMA foreign_key_check");
  for (int seen = 0; s.step() && seen < 100000; ++seen) ++orphans[s.text(0) + " refer to a missing row of " + s.text(2)];
  for (const auto& [what, n] : orphans) c.problems.push_back(std::to_string(n) + (n == 1 ? " row of " : " rows of ") + what);
}

void countRows(Db& db, StoreCheck& c) {
  for (const auto& t : tables(db)) {
    try {
      Stmt s(db, "SELECT count(*) FROM \"" + t + "\"");
      c.rows.emplace_back(t, s.step() ? s.int64(0) : 0);
    } catch (const StoreError& e) { c.problems.push_back("cannot count the rows of " + t + ": " + e.what()); }
  }
  std::map<std::string, int64_t> byStatus;
  Stmt s(db, "SELECT status, pid FROM sessions");
  while (s.step()) ++byStatus[effectiveStatus(s.text(0), s.int64(1))];
  c.statuses.assign(byStatus.begin(), byStatus.end());
}

}  // namespace

StoreCheck checkStore(const std::string& path) {
  StoreCheck c;
  c.path = path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    c.problems.push_back(std::filesystem::exists(path, ec) ? "not a file" : "no such file");
    return c;
  }
  // Each step reports its own failure, so one damaged part does not hide the others.
  auto step = [&](const char* what, auto&& f) {
    try {
      f();
      return true;
    } catch (const StoreError& e) {
      c.problems.push_back(std::string(what) + ": " + e.what());
      return false;
    }
  };
  std::unique_ptr<Db> db;
  if (!step("cannot open", [&] { db = std::make_unique<Db>(path, Db::Access::ReadOnly); })) return c;
  bool kiln = false;
  if (!step("cannot read the header", [&] { kiln = checkIdentity(*db, c); }) || !kiln) return c;
  step("integrity_check failed", [&] { checkIntegrity(*db, c); });
  step("foreign_key_check failed", [&] { checkForeignKeys(*db, c); });
  step("cannot count rows", [&] { countRows(*db, c); });
  return c;
}

std::string StoreCheck::text() const {
  std::ostringstream o;
  o << "session store " << path << "\n";
  if (schemaVersion > 0)
    o << "  schema " << schemaVersion << ", application id " << hexId(applicationId) << (applicationId == kApplicationId ? " ('KILN')" : "")
      << "\n";
  if (!statuses.empty() || !rows.empty()) {
    int64_t sessions = 0;
    for (const auto& [s, n] : statuses) sessions += n;
    o << "  " << sessions << (sessions == 1 ? " session" : " sessions");
    for (size_t i = 0; i < statuses.size(); ++i) o << (i ? ", " : " (") << statuses[i].second << " " << statuses[i].first;
    o << (statuses.empty() ? "" : ")") << "\n  rows:";
    for (size_t i = 0; i < rows.size(); ++i) o << (i ? ", " : " ") << rows[i].first << " " << rows[i].second;
    o << "\n";
  }
  for (const auto& n : notes) o << "  note: " << n << "\n";
  if (ok()) {
    o << "ok\n";
    return o.str();
  }
  o << problems.size() << (problems.size() == 1 ? " problem:\n" : " problems:\n");
  for (const auto& p : problems) o << "  - " << p << "\n";
  bool kiln = (applicationId == 0 || applicationId == kApplicationId) && schemaVersion > 0 && schemaVersion <= Store::kSchemaVersion;
  if (kiln) o << "Run 'kiln store repair --db " << path << "' to copy what can be read into a new store.\n";
  return o.str();
}

}  // namespace kiln::storage
