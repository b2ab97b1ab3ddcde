// kiln store check|repair: what is wrong with a session store, and a new store holding what
// can still be read from a damaged one. Both only read the store they are given.
#include "app/cli/commands.h"
#include "app/cli/options.h"

#include "storage/store.h"
#include "storage/store_check.h"

#include <iostream>

namespace kiln::cli {

int cmdStore(const std::vector<std::string>& args) {
  const std::string sub = args.empty() ? "" : args[0];
  if (sub == "--help" || sub == "-h") {
    std::cout << usage();
    return 0;
  }
  if (sub != "check" && sub != "repair")
    throw UsageError(sub.empty() ? "expected 'check' or 'repair'" : "expected 'check' or 'repair', not '" + sub + "'");
  Opts o = parse({args.begin() + 1, args.end()}, sub == "check" ? std::set<std::string>{"db"} : std::set<std::string>{"db", "out"}, {});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (!o.positional.empty()) throw UsageError("takes no arguments, not '" + o.positional[0] + "' (the store is --db PATH)");
  std::string path = one(o, "db");
  if (path.empty()) path = storage::defaultStorePath();
  if (sub == "check") {
    storage::StoreCheck c = storage::checkStore(path);
    std::cout << c.text();
    return c.ok() ? 0 : 1;
  }
  storage::RepairReport r = storage::repairStore(path, one(o, "out", storage::defaultRepairPath(path)));
  std::cout << r.text();
  return r.result.ok() ? 0 : 1;
}

}  // namespace kiln::cli
