#include "tests/support/corpus.h"

#include "tests/support/golden.h"

#include <algorithm>
#include <filesystem>

namespace kiln::test {

std::string corpusPath(const std::string& rel) { return std::string(KILN_SHARED_DIR) + "/corpus/" + rel; }

std::vector<std::string> corpusPrograms(const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(corpusPath("public"))) {
    std::string stem = e.path().stem().string();
    if (e.path().extension() == ".py" && stem.rfind(prefix, 0) == 0) out.push_back(stem);
  }
  std::sort(out.begin(), out.end());
  return out;
}

nlohmann::json loadCorpusJson(const std::string& rel) { return nlohmann::json::parse(readFile(corpusPath(rel))); }

}  // namespace kiln::test
