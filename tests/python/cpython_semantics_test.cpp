// Every cpython/NAME.py prints in Kiln exactly what CPython printed for it (cpython/NAME.out).
#include "engine/python/interpreter.h"
#include "engine/python/parser.h"
#include "engine/torch/install.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace kiln::py {
namespace {

const std::string kDir = std::string(KILN_SOURCE_DIR) + "/tests/python/cpython/";

std::vector<std::string> scripts() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(kDir))
    if (e.path().extension() == ".py") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string readText(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Scripts Kiln does not print exactly yet (known_failures.txt: NAME reason); each must still
// differ, so the list only shrinks.
std::map<std::string, std::string> knownFailures() {
  std::map<std::string, std::string> out;
  std::ifstream f(kDir + "known_failures.txt");
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto sp = line.find(' ');
    out[line.substr(0, sp)] = sp == std::string::npos ? "" : line.substr(sp + 1);
  }
  return out;
}

class CPythonSemantics : public ::testing::TestWithParam<std::string> {};

TEST_P(CPythonSemantics, PrintsWhatCPythonPrinted) {
  const std::string src = readText(kDir + GetParam() + ".py");
  std::ostringstream out;
  {
    // The AST outlives the interpreter: functions point into it, and destroying the interpreter
    // finishes suspended generators (their finally blocks run), as kiln run's driver orders them.
    // Found by the sanitizer build (heap-use-after-free in cpython/generators.py).
    Module m = parseModule(src, GetParam() + ".py");
    Interpreter in(out);
    kiln::torchapi::install(in);
    try {
      in.runModule(m);
    } catch (const PyError& e) { out << formatTraceback(e, src); }
  }
  static const auto known = knownFailures();
  const std::string diff = test::compareGolden(kDir + GetParam() + ".out", out.str());
  if (known.count(GetParam())) {
    EXPECT_NE(diff, "") << GetParam() << " now prints what CPython printed: remove it from cpython/known_failures.txt";
    return;
  }
  EXPECT_EQ(diff, "");
}

INSTANTIATE_TEST_SUITE_P(Scripts, CPythonSemantics, ::testing::ValuesIn(scripts()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace kiln::py
