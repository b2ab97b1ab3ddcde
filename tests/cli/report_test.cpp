// kiln report through the built executable: a script with a graph break, a recompile and
// `<script>` in its source is run into a temporary store, the report is written, and the HTML
// must hold the expected sections with every stored text escaped; bad input gives one clear
// line and exit 1 (or 2 for usage), never a crash. The page is checked as text here;
// tests/gui/report_browser_test.cpp opens it in headless Chromium.
#include "tests/cli/run_kiln.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>

namespace kiln {
namespace {

namespace fs = std::filesystem;

using Ran = test::KilnRun;

Ran kiln(const std::vector<std::string>& args, const fs::path& dir) { return test::runKiln(args, dir); }

bool dotOnPath() {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string p = path;
  for (size_t at = 0; at <= p.size();) {
    size_t end = p.find(':', at);
    if (end == std::string::npos) end = p.size();
    if (end > at && ::access((p.substr(at, end - at) + "/dot").c_str(), X_OK) == 0) return true;
    at = end + 1;
  }
  return false;
}

// A break (print inside the compiled function), a recompile (a second int value) and markup in
// the source that must come out as text.
const char* kScript = R"(import torch

# a <script>alert("x")</script> & 'quotes' in the source
@torch.compile(backend="inductor")
def f(x, n):
    y = x * n
    print("<b>not bold</b>")
    return y.sin() + 1

f(torch.ones(4), 1)
f(torch.ones(4), 2)
)";

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::path(KILN_BINARY_DIR) / "tests/cli/work/report" / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir);
    fs::create_directories(dir);
    test::writeFile((dir / "markup.py").string(), kScript);
  }
  fs::path dir;
  std::string db() const { return (dir / "s.db").string(); }
};

TEST_F(Report, HoldsBreaksRecompilesGuardsStagesAndEscapesTheSource) {
  Ran run = kiln({"run", (dir / "markup.py").string(), "--db", db()}, dir);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const std::string html = (dir / "r.html").string();
  Ran rep = kiln({"report", "1", "--db", db(), "-o", html}, dir);
  ASSERT_EQ(rep.exitCode, 0) << rep.err;
  const std::string page = test::readFile(html);
  EXPECT_NE(page.find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_NE(page.find("<style>"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);  // self-contained: nothing to fetch
  EXPECT_EQ(page.find("src=\""), std::string::npos);
  EXPECT_NE(page.find("[0/0]"), std::string::npos);
  EXPECT_NE(page.find("[1/0]"), std::string::npos) << "the code after the break is a compile of its own";
  // The break: its reason and the user line it happened on, marked in the excerpt.
  EXPECT_NE(page.find("Graph break"), std::string::npos);
  EXPECT_NE(page.find("builtin"), std::string::npos) << "print's break names the builtin it skipped";
  EXPECT_NE(page.find("<span class=\"hit\">7      print(&quot;&lt;b&gt;not bold&lt;/b&gt;&quot;)</span>"), std::string::npos);
  // The recompile with its failing guard, and the guards table.
  EXPECT_NE(page.find("Recompile"), std::string::npos);
  EXPECT_NE(page.find("<code>0/0: n == 1"), std::string::npos);
  EXPECT_NE(page.find("Guards ("), std::string::npos);
  EXPECT_NE(page.find("Stage <b>captured</b>"), std::string::npos);
  EXPECT_NE(page.find("Kernel <b>"), std::string::npos);
  // Escaped: the script's markup is text, never markup.
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_EQ(page.find("<b>not bold"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;"), std::string::npos);
  if (dotOnPath()) {
    EXPECT_NE(page.find("<svg"), std::string::npos);
  } else {
    EXPECT_NE(page.find("Graphviz <code>dot</code> is not on PATH"), std::string::npos);
    EXPECT_EQ(page.find("<svg"), std::string::npos);
  }
}

TEST_F(Report, AGraphOverTheCapIsCutAndSaysSo) {
  if (!dotOnPath()) GTEST_SKIP() << "Graphviz dot is not on PATH: no graph is drawn";
  test::writeFile((dir / "big.py").string(),
                  "import torch\n\n@torch.compile\ndef h(x):\n    for i in range(200):\n"
                  "        x = x * 1.01 + 0.5\n    return x\n\nh(torch.ones(8))\n");
  ASSERT_EQ(kiln({"run", (dir / "big.py").string(), "--db", db()}, dir).exitCode, 0);
  const std::string html = (dir / "big.html").string();
  ASSERT_EQ(kiln({"report", "1", "--db", db(), "-o", html}, dir).exitCode, 0);
  const std::string page = test::readFile(html);
  EXPECT_NE(page.find("Only the first 300 nodes are drawn; "), std::string::npos);
  EXPECT_NE(page.find("<svg"), std::string::npos);
}

TEST_F(Report, BadInputGivesOneLineAndExitsNonZero) {
  ASSERT_EQ(kiln({"run", (dir / "markup.py").string(), "--db", db()}, dir).exitCode, 0);
  const std::string html = (dir / "r.html").string();
  Ran r = kiln({"report", "99", "--db", db(), "-o", html}, dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "kiln report: no session 99 in " + db() + "\n");
  EXPECT_FALSE(fs::exists(html));

  const std::string missing = (dir / "nosuch.db").string();
  r = kiln({"report", "1", "--db", missing, "-o", html}, dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "kiln report: no store at " + missing + "\n");
  EXPECT_FALSE(fs::exists(missing)) << "a report never creates a store";

  const std::string unwritable = (dir / "no/such/folder/r.html").string();
  r = kiln({"report", "1", "--db", db(), "-o", unwritable}, dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "kiln report: cannot write " + unwritable + ": No such file or directory\n");

  r = kiln({"report", "1", "--db", db(), "-o", dir.string()}, dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("kiln report: cannot write " + dir.string()), std::string::npos);

  r = kiln({"report", "1", "--db", db()}, dir);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("expected -o FILE.html"), std::string::npos);
  r = kiln({"report", "x1", "--db", db(), "-o", html}, dir);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("'x1' is not a SESSION id"), std::string::npos);
}

}  // namespace
}  // namespace kiln
