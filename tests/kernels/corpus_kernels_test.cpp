#include "engine/driver/script_runner.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

namespace kiln {
namespace {

namespace fs = std::filesystem;

struct Kernels : session::SessionSink {
  std::map<std::string, std::string> text;  // "compile id / kernel name" -> kernel IR and wrapper
  void kernel(const session::KernelEvent& e) override { text[e.compileId + " " + e.name] = e.kernelIr; }
  void wrapper(const session::WrapperEvent& e) override { text[e.compileId + " ~wrapper"] = e.text; }
};

std::vector<std::string> programs() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(std::string(KILN_SHARED_DIR) + "/corpus/public"))
    if (e.path().extension() == ".py") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

class GeneratedKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneratedKernels, MatchGolden) {
  const std::string name = GetParam();
  Kernels k;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = std::string(KILN_SHARED_DIR) + "/corpus/public/" + name + ".py";
  driver::RunResult r = driver::runScript(ro, k, out);
  ASSERT_EQ(r.exitCode, 0) << r.error;
  std::string text;
  for (const auto& [key, body] : k.text) text += "# [" + key + "]\n" + body + "\n";
  EXPECT_EQ(test::compareGolden(std::string(KILN_SOURCE_DIR) + "/tests/kernels/golden/" + name + ".txt", text), "");
}

INSTANTIATE_TEST_SUITE_P(Corpus, GeneratedKernels, ::testing::ValuesIn(programs()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace kiln
