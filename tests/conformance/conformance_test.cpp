// Every program in programs/ against what real PyTorch 2.11 did with it (oracle/NAME.json and
// NAME.outs.json), in three modes: eager outputs, compiled outputs, and graph / break /
// recompile counts with recompile reasons (and outputs). Prints one summary line per mode.
//
// known_failures.txt lists the program/mode pairs that do not match yet, each with its reason;
// the test fails on any other mismatch, and on a listed pair that now matches (so the list
// only shrinks and a known gap is never hidden).
#include "tests/support/dynamo_parity.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace kiln {
namespace {

const std::string kDir = std::string(KILN_SOURCE_DIR) + "/tests/conformance/";

nlohmann::json loadJson(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// KILN_CONFORMANCE_FILTER=REGEX runs only the programs whose names match (while working on
// them); the counts are then not checked against the whole suite.
std::vector<std::string> programs() {
  std::vector<std::string> names;
  const char* filter = std::getenv("KILN_CONFORMANCE_FILTER");
  for (const auto& e : std::filesystem::directory_iterator(kDir + "programs"))
    if (e.path().extension() == ".py" && (!filter || std::regex_search(e.path().stem().string(), std::regex(filter))))
      names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// "NAME MODE reason" per line; '#' starts a comment line.
std::map<std::pair<std::string, std::string>, std::string> knownFailures() {
  std::map<std::pair<std::string, std::string>, std::string> out;
  std::ifstream f(kDir + "known_failures.txt");
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, mode, reason;
    ss >> name >> mode;
    std::getline(ss, reason);
    out[{name, mode}] = reason;
  }
  return out;
}

// torch_compile_wrong.txt: "NAME why" per line — programs whose real torch.compile returned a
// value that is not eager PyTorch's, reviewed one by one and found wrong (a missed guard, a lost
// gradient, an unchecked index). Kiln must not copy a wrong answer, so their compiled and counts
// modes compare Kiln's outputs with eager PyTorch's; the listing must stay true: the test fails
// when Kiln's compiled value equals torch.compile's after all.
std::map<std::string, std::string> torchCompileWrong() {
  std::map<std::string, std::string> out;
  std::ifstream f(kDir + "torch_compile_wrong.txt");
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, why;
    ss >> name;
    std::getline(ss, why);
    out[name] = why;
  }
  return out;
}

TEST(Conformance, ThreeModesAgainstPyTorch) {
  const auto known = knownFailures();
  const auto wrong = torchCompileWrong();
  int judgedByEager = 0;
  const auto names = programs();
  if (!std::getenv("KILN_CONFORMANCE_FILTER")) { ASSERT_GE(names.size(), 400u); }
  const char* modes[] = {"eager", "compiled", "counts"};
  std::map<std::string, int> passed;
  std::vector<std::string> unexpected, fixed, unrecorded;
  for (const auto& name : names) {
    std::cerr << "conformance: " << name << std::endl;  // the last name printed names a crash
    // Compiled tensor values real torch.compile gave where they differ from eager's, where recorded.
    const std::string compiledPath = kDir + "oracle/" + name + ".compiled_outs.json";
    test::ParityResult r = test::checkParity(kDir + "programs/" + name + ".py", loadJson(kDir + "oracle/" + name + ".json"),
                                             loadJson(kDir + "oracle/" + name + ".outs.json"),
                                             std::filesystem::exists(compiledPath) ? loadJson(compiledPath) : nlohmann::json());
    for (const auto& u : r.unrecorded) unrecorded.push_back(name + ":" + u);
    if (wrong.count(name)) {
      if (r.compiled.empty()) ADD_FAILURE() << name << " is in torch_compile_wrong.txt but Kiln's compiled outputs equal torch.compile's";
      r.compiled = r.compiledVsEager;
      r.counts = r.countsWithoutOutputs.empty() && !r.compiled.empty() ? "outputs: " + r.compiled : r.countsWithoutOutputs;
      ++judgedByEager;
    }
    const std::string* results[] = {&r.eager, &r.compiled, &r.counts};
    for (int m = 0; m < 3; ++m) {
      const bool ok = results[m]->empty();
      passed[modes[m]] += ok;
      const bool listed = known.count({name, modes[m]}) > 0;
      if (!ok && !listed) unexpected.push_back(name + " " + modes[m] + ": " + *results[m]);
      if (ok && listed) fixed.push_back(name + " " + modes[m]);
      if (!ok) std::cout << "[ DIFFERS  ] " << name << " " << modes[m] << ": " << *results[m] << "\n";
    }
  }
  for (const char* m : modes)
    std::cout << "conformance " << std::left << std::setw(8) << m << " " << passed[m] << "/" << names.size() << " (" << std::fixed
              << std::setprecision(1) << 100.0 * passed[m] / names.size() << "%)\n";
  if (judgedByEager)
    std::cout << "of them, " << judgedByEager << " judged by eager PyTorch's outputs where torch.compile's were reviewed "
              << "as wrong (torch_compile_wrong.txt)\n";
  if (!unrecorded.empty()) {
    std::cout << "compiled outputs the oracle run did not record (compared with eager's):";
    for (const auto& u : unrecorded) std::cout << " " << u;
    std::cout << "\n";
  }
  for (const auto& u : unexpected) ADD_FAILURE() << "differs from PyTorch and is not in known_failures.txt: " << u;
  for (const auto& f : fixed) ADD_FAILURE() << "now matches PyTorch: remove from known_failures.txt: " << f;
}

}  // namespace
}  // namespace kiln
