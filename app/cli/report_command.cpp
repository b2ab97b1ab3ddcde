// kiln report SESSION -o FILE.html: one self-contained HTML page about a stored session (a Kiln
// run or an imported TORCH_TRACE run) to hand to a colleague. The page is storage's
// sessionReportHtml (storage/session_report.h), which the studio's File > Export Report writes
// too; this file checks the arguments, opens the store read-only (never creating one) and writes.
#include "app/cli/commands.h"
#include "app/cli/options.h"

#include "storage/session_report.h"
#include "storage/store.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace kiln::cli {

namespace fs = std::filesystem;

int cmdReport(const std::vector<std::string>& args) {
  std::vector<std::string> a = args;
  for (auto& x : a)
    if (x == "-o") x = "--out";  // the short form every tool that writes a file takes
  Opts o = parse(a, {"db", "out"}, {});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.positional.size() != 1) throw UsageError("expected exactly one SESSION id");
  const std::string& idText = o.positional[0];
  int64_t id = 0;
  try {
    size_t used = 0;
    id = std::stoll(idText, &used);
    if (used != idText.size() || id <= 0) id = 0;
  } catch (...) {}
  if (id == 0) throw UsageError("'" + idText + "' is not a SESSION id (see kiln sessions)");
  const std::string outPath = one(o, "out");
  if (outPath.empty()) throw UsageError("expected -o FILE.html, the report to write");

  std::string dbPath = one(o, "db");
  if (dbPath.empty()) dbPath = storage::defaultStorePath();
  std::error_code ec;
  if (!fs::exists(dbPath, ec)) {  // Store::open would create an empty store: a report never writes one
    std::cerr << "kiln report: no store at " << dbPath << "\n";
    return 1;
  }
  auto store = storage::Store::open(dbPath, storage::Store::Access::ReadOnly);
  auto s = store->session(id);
  if (!s) {
    std::cerr << "kiln report: no session " << id << " in " << store->path() << "\n";
    return 1;
  }
  // Refuse an unwritable output before the (possibly long) work of reading every stage.
  std::ofstream out(outPath, std::ios::binary | std::ios::trunc);
  if (!out) {
    std::cerr << "kiln report: cannot write " << outPath << ": " << std::strerror(errno) << "\n";
    return 1;
  }

  out << storage::sessionReportHtml(*store, id);
  out.close();
  if (!out) {
    std::cerr << "kiln report: cannot write " << outPath << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  std::cout << "wrote " << outPath << "\n";
  return 0;
}

}  // namespace kiln::cli
