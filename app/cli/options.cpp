#include "app/cli/options.h"

#include "app/cli/commands.h"

namespace kiln::cli {

Opts parse(const std::vector<std::string>& args, const std::set<std::string>& withValue, const std::set<std::string>& flagNames) {
  Opts o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") { o.help = true; continue; }
    if (a.rfind("--", 0) == 0) {
      std::string key = a.substr(2), val;
      auto eq = key.find('=');
      if (eq != std::string::npos) { val = key.substr(eq + 1); key = key.substr(0, eq); }
      if (withValue.count(key)) {
        if (eq == std::string::npos) {
          if (i + 1 >= args.size()) throw UsageError("--" + key + " needs a value");
          val = args[++i];
        }
        o.values[key].push_back(val);
      } else if (flagNames.count(key) && eq == std::string::npos) {
        o.flags.insert(key);
      } else {
        throw UsageError("unknown option '" + a + "'");
      }
      continue;
    }
    o.positional.push_back(a);
  }
  return o;
}

std::string one(const Opts& o, const std::string& key, const std::string& dflt) {
  auto it = o.values.find(key);
  return it == o.values.end() ? dflt : it->second.back();
}

}  // namespace kiln::cli
