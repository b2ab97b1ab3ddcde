// kiln show SESSION --stage pass:NAME --rules (issue 17): a rule-table pass's applications one
// per line, from a real `kiln run` (RuleStepsCli.*). The x * 1, x + 0 and exp(log x) of the
// script fire simplify's rules in that order; a stage without a rule table says it has none.
#include "tests/cli/run_kiln.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kiln::test {
namespace {

TEST(RuleStepsCli, ShowRulesPrintsEachApplication) {
  TempDir dir;
  const std::string script = (dir.path / "rules.py").string(), db = (dir.path / "rules.db").string();
  std::ofstream(script) << "import torch\n\n\n@torch.compile\ndef f(x):\n    a = x * 1\n    b = a + 0\n"
                           "    c = torch.exp(torch.log(b))\n    return torch.relu(c) * 2\n\n\nprint(f(torch.ones(4)))\n";
  KilnRun run = runKiln({"run", script, "--db", db}, dir.path);
  ASSERT_EQ(run.exitCode, 0) << run.err;

  KilnRun show = runKiln({"show", "1", "--stage", "pass:simplify", "--rules", "--db", db}, dir.path);
  ASSERT_EQ(show.exitCode, 0) << show.err;
  const std::vector<std::string> ls = lines(show.out);
  ASSERT_EQ(ls.size(), 4u) << show.out;
  EXPECT_EQ(ls[0], "# [0/0] pass:simplify: 3 rule applications");
  EXPECT_EQ(ls[1], "1  x * 1 -> x  [engine/passes/simplify.cpp, rule 7 of 12]  root mul  consumed -  added -  now arg0_1");
  EXPECT_EQ(ls[2], "2  x + 0 -> x  [engine/passes/simplify.cpp, rule 9 of 12]  root add  consumed -  added -  now arg0_1");
  // The added nodes are named in the pass's output graph.
  EXPECT_EQ(ls[3].rfind("3  exp(log(x)) -> where(x < 0, nan, x)  [engine/passes/simplify.cpp, rule 1 of 12]  root exp  consumed log"
                        "  added lt,where  now where",
                        0),
            0u)
      << ls[3];

  // The short stage name works as without --rules; a pass that is no rule table has none.
  KilnRun dce = runKiln({"show", "1", "--stage", "dce", "--rules", "--db", db}, dir.path);
  ASSERT_EQ(dce.exitCode, 0) << dce.err;
  EXPECT_EQ(dce.out, "# [0/0] pass:dce: 0 rule applications (not a rule-table pass, nothing fired, or a store from before schema 11)\n");
}

}  // namespace
}  // namespace kiln::test
