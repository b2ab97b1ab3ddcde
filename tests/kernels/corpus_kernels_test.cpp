#include "engine/driver/script_runner.h"
#include "tests/support/corpus.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace kiln {
namespace {

struct Kernels : session::SessionSink {
  std::map<std::string, std::string> text;  // "compile id / kernel name" -> kernel IR and wrapper
  void kernel(const session::KernelEvent& e) override { text[e.compileId + " " + e.name] = e.kernelIr; }
  void wrapper(const session::WrapperEvent& e) override { text[e.compileId + " ~wrapper"] = e.text; }
};

class GeneratedKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneratedKernels, MatchGolden) {
  const std::string name = GetParam();
  Kernels k;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = test::corpusPath("public/" + name + ".py");
  driver::RunResult r = driver::runScript(ro, k, out);
  ASSERT_EQ(r.exitCode, 0) << r.error;
  std::string text;
  for (const auto& [key, body] : k.text) text += "# [" + key + "]\n" + body + "\n";
  EXPECT_EQ(test::compareGolden(std::string(KILN_SOURCE_DIR) + "/tests/kernels/golden/" + name + ".txt", text), "");
}

INSTANTIATE_TEST_SUITE_P(Corpus, GeneratedKernels, ::testing::ValuesIn(test::corpusPrograms()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace kiln
