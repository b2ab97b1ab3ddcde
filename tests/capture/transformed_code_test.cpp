// For every graph-break program of the corpus (gb_*), the transformed code of each compiled
// entry and the source of every resume function, compared with golden/NAME.txt. On a
// mismatch NAME.txt.actual is written and the diff printed; accept a deliberate change with mv.
#include "engine/driver/script_runner.h"
#include "tests/support/corpus.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace kiln {
namespace {

struct Collect : session::SessionSink {
  std::map<std::string, std::string> code;   // compile id -> transformed code
  std::map<int, std::string> resumeSources;  // frame id -> resume function source
  void compile(const session::CompileEvent& e) override { code[e.compileId] = e.transformedCode; }
  void frame(const session::FrameEvent& e) override {
    if (e.kind == "resume") resumeSources[e.frameId] = e.source;
  }
};

class TransformedCode : public ::testing::TestWithParam<std::string> {};

TEST_P(TransformedCode, MatchesGolden) {
  const std::string name = GetParam();
  Collect c;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = test::corpusPath("public/" + name + ".py");
  driver::runScript(ro, c, out);
  std::string text;
  for (const auto& [cid, code] : c.code) text += "# [" + cid + "] transformed code\n" + code + "\n";
  for (const auto& [id, src] : c.resumeSources) text += "# frame " + std::to_string(id) + ": resume function\n" + src + "\n";
  std::string golden = std::string(KILN_SOURCE_DIR) + "/tests/capture/golden/" + name + ".txt";
  EXPECT_EQ(test::compareGolden(golden, text), "");
}

INSTANTIATE_TEST_SUITE_P(GraphBreaks, TransformedCode, ::testing::ValuesIn(test::corpusPrograms("gb_")),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace kiln
