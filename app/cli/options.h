// A tiny option reader shared by the kiln subcommands: positional arguments, --flag, and
// --key VALUE / --key=VALUE (repeatable). Unknown options are UsageErrors.
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

}  // namespace kiln::cli
