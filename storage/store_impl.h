// Store's private state, shared by the readers (store.cpp, store_readers.cpp) and the session
// writer (session_writer.cpp).
#pragma once

#include "storage/sqlite_util.h"
#include "storage/store.h"

#include <atomic>
#include <string>

namespace kiln::storage {

struct Store::Impl {
  Impl(const std::string& p, Db::Access access) : path(p), db(p, access) {}
  std::string path;
  Db db;  // the readers' connection; each session writer opens its own
  int version = 0;
  std::atomic<int64_t> lastSessionId{0};
  std::string readOnlyReason;  // why the store was opened read-only; "" when it may be written
  bool writable = false;       // quick_check passed and the file is in WAL mode
  std::string damage;          // what quick_check found, once it failed

  // Called before every write: throws a StoreError saying why `what` cannot be done when the
  // store is read-only or damaged. The first call runs PRAGMA quick_check (reads only) and
  // then switches the file to WAL, so nothing is written to a file that is not sound.
  void ensureWritable(const std::string& what);
};

}  // namespace kiln::storage
