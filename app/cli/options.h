// A tiny option reader shared by the kiln subcommands: positional arguments, --flag, and
// --key VALUE / --key=VALUE (repeatable); "--" makes the rest positional. Unknown options are
// UsageErrors, with a "did you mean" when a known one is close.
//
// Option values are checked here, against what exists, for every command that takes them
// (checkValue in options.cpp): --disable-pass and --stop-after name passes of the pipeline
// (passes::pipeline(); --stop-after also takes an index and is stored as one), --logs names the
// TORCH_LOGS Kiln supports (driver::ExplainReport::logNames()), counts are whole numbers in
// range, paths are not empty. A bad value is a UsageError naming the valid ones.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kiln::cli {

struct Opts {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> values;
  std::set<std::string> flags;
  bool help = false;
};

Opts parse(const std::vector<std::string>& args, const std::set<std::string>& withValue, const std::set<std::string>& flagNames);
// The last value given for `key`, else `dflt`.
std::string one(const Opts& o, const std::string& key, const std::string& dflt = "");

// A session NAME (kiln rename), or a UsageError: 1 to 200 bytes of UTF-8 text, not only spaces,
// no control characters (a name is printed in kiln sessions' table and the studio's list).
const std::string& sessionName(const std::string& name);

// "; did you mean 'X'?" for the candidate nearest to `word` when it is close (a typo), else "".
std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace kiln::cli
