// Store's private state, shared by the readers (store.cpp, store_readers.cpp) and the session
// writer (session_writer.cpp).
#pragma once

#include "storage/sqlite_util.h"
#include "storage/store.h"

#include <atomic>
#include <string>

namespace kiln::storage {

struct Store::Impl {
  explicit Impl(const std::string& p) : path(p), db(p) {}
  std::string path;
  Db db;  // the readers' connection; each session writer opens its own
  int version = 0;
  std::atomic<int64_t> lastSessionId{0};
};

}  // namespace kiln::storage
