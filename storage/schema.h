// The store's schema and its migrations.
//
// The schema version lives in PRAGMA user_version, and PRAGMA application_id marks the file
// as a Kiln store. Migrations are an ordered list of steps, step i taking the schema from
// version i to i+1; opening a store applies the missing steps in one transaction, so a store
// is always at one whole version. A store from a newer Kiln is refused, never downgraded.
#pragma once

#include "storage/sqlite_util.h"

#include <string>
#include <vector>

namespace kiln::storage {

// 'KILN' in ASCII, written to the header so foreign SQLite files are told apart.
constexpr int kApplicationId = 0x4B494C4E;

struct Migration {
  int toVersion;
  std::string description;
  std::string sql;
};

// The steps in order; migrations()[i].toVersion == i + 1.
const std::vector<Migration>& migrations();

// Refuses a file this Kiln must not touch: one from a newer Kiln, or another application's
// database (a foreign application id, or tables without a schema version). Only reads, so a
// refused file is left exactly as it was.
void checkOpenable(Db& db);

// Brings `db` up to Store::kSchemaVersion. Throws StoreError if the file is from a newer Kiln,
// is some other application's database, or a step fails (the file is left as it was).
void migrate(Db& db);

int userVersion(Db& db);

}  // namespace kiln::storage
