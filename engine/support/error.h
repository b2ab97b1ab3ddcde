// Errors users can cause. Each carries a source location so the CLI and studio can show
// file:line:col with a caret and a Python-style traceback.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace kiln {

struct Location {
  std::string file;
  int line = 0;
  int col = 0;  // 1-based; 0 = unknown
};

// A malformed text (script, IR text, kernel IR text).
class ParseError : public std::runtime_error {
 public:
  ParseError(std::string msg, Location loc) : std::runtime_error(std::move(msg)), loc_(std::move(loc)) {}
  const Location& where() const { return loc_; }

 private:
  Location loc_;
};

}  // namespace kiln
