// The shared corpus (KILN_SHARED_DIR/corpus): paths into it, its public programs, its JSON files.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kiln::test {

// `rel` under the corpus folder ("public/NAME.py", "oracle/NAME.json").
std::string corpusPath(const std::string& rel);
// The stems of corpus/public/*.py starting with `prefix`, sorted.
std::vector<std::string> corpusPrograms(const std::string& prefix = "");
// A corpus JSON file (oracle graphs, outputs), parsed.
nlohmann::json loadCorpusJson(const std::string& rel);

}  // namespace kiln::test
