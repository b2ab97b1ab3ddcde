// torch.distributed's collectives in the ranks' sessions (issue 20): DDP on two CPU processes
// (gloo, `kiln run --nproc-per-node 2`, the built executable) records every broadcast,
// all-reduce and barrier each rank issued, in issue order with DDP's bucket labels, sizes and
// measured durations, and `kiln show SESSION --stage collectives` prints one line each.
#include "tests/cli/run_kiln.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace kiln {
namespace {

namespace fs = std::filesystem;
using test::lines;

TEST(Collectives, DdpRanksRecordEveryCollectiveWithItsBucket) {
  test::TempDir d("/tmp/kiln-collectives-test");
  const std::string db = (d.path / "s.db").string();
  const fs::path script = fs::path(KILN_SOURCE_DIR) / "tests/cli/distributed/ddp_matches_single_process.py";
  auto r = test::runKiln({"run", "--nproc-per-node", "2", script.string(), "--db", db, "--timeout", "240"}, d.path);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  ASSERT_NE(r.out.find("rank 0 ok"), std::string::npos) << r.out << r.err;

  // What the script issues, per rank: DDP's broadcast of the 8 parameters (4 Linear layers),
  // 3 steps of 3 buckets, the script's own MIN and MAX all-reduces of 2,378,768 floats, a barrier.
  std::vector<std::string> ops[2];
  for (const char* id : {"1", "2"}) {
    auto show = test::runKiln({"show", id, "--db", db}, d.path);
    ASSERT_EQ(show.exitCode, 0) << show.err;
    EXPECT_NE(show.out.find("collectives: 20 (kiln show " + std::string(id) + " --stage collectives)"), std::string::npos) << show.out;
    auto list = test::runKiln({"show", id, "--db", db, "--stage", "collectives"}, d.path);
    ASSERT_EQ(list.exitCode, 0) << list.err;
    const auto ls = lines(list.out);
    ASSERT_EQ(ls.size(), 20u) << list.out;
    const int rank = list.out.find("rank 1 of 2") != std::string::npos ? 1 : 0;
    // "#7 broadcast DDP parameters · 64 B · 0.012 ms (from rank 0 · float32 [16] · gloo · rank 0 of 2 · issued at ... ms · waited until ...
    // ms)"
    const std::regex line(R"(#(\d+) (\w+)( [^·]*)? · (?:([0-9.]+ [KMG]?i?B) · )?([0-9.]+) ms \((.*)\))");
    double lastIssued = -1;
    for (size_t i = 0; i < ls.size(); ++i) {
      std::smatch m;
      ASSERT_TRUE(std::regex_match(ls[i], m, line)) << ls[i];
      EXPECT_EQ(std::stoul(m[1]), i) << ls[i];  // seq in issue order from 0
      const std::string op = m[2], label = m[3].matched ? std::string(m[3]).substr(1) : "", details = m[6];
      EXPECT_GE(std::stod(m[5]), 0.0) << ls[i];  // every one completed and was timed
      EXPECT_NE(details.find("gloo · rank " + std::to_string(rank) + " of 2"), std::string::npos) << ls[i];
      const double issued = std::stod(details.substr(details.find("issued at ") + 10));
      EXPECT_GE(issued, lastIssued) << ls[i];
      lastIssued = issued;
      EXPECT_NE(details.find("waited until"), std::string::npos) << ls[i];  // DDP and the script wait for all
      ops[rank].push_back(op + "|" + label + "|" + (m[4].matched ? std::string(m[4]) : ""));
      if (i < 8) {
        EXPECT_EQ(op, "broadcast") << ls[i];
        EXPECT_EQ(label, "DDP parameters") << ls[i];
        EXPECT_NE(details.find("from rank 0"), std::string::npos) << ls[i];
      } else if (i < 17) {
        EXPECT_EQ(op, "all_reduce") << ls[i];
        EXPECT_EQ(label, "bucket " + std::to_string((i - 8) % 3)) << ls[i];
        EXPECT_EQ(details.substr(0, 4), "sum ") << ls[i];
      } else if (i < 19) {
        EXPECT_EQ(op, "all_reduce") << ls[i];
        EXPECT_EQ(label, "") << ls[i];
        EXPECT_EQ(details.substr(0, 4), i == 17 ? "min " : "max ") << ls[i];
        EXPECT_NE(details.find("float32 [2378768]"), std::string::npos) << ls[i];
      } else {
        EXPECT_EQ(op, "barrier") << ls[i];
      }
    }
    // The buckets: (64 KiB + 4 MiB + biases) (4 MiB + bias) (1 MiB + bias), the same every step.
    EXPECT_NE(list.out.find("#8 all_reduce bucket 0 · 4.1 MiB"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("#9 all_reduce bucket 1 · 4.0 MiB"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("#10 all_reduce bucket 2 · 1.0 MiB"), std::string::npos) << list.out;
  }
  // Both ranks issued the same sequence (as collectives must pair up).
  EXPECT_EQ(ops[0], ops[1]);
  EXPECT_EQ(ops[0].size(), 20u);

  // A session without collectives says so.
  const fs::path plain = d.path / "plain.py";
  std::ofstream(plain) << "print(1)\n";
  ASSERT_EQ(test::runKiln({"run", plain.string(), "--db", db}, d.path).exitCode, 0);
  auto none = test::runKiln({"show", "3", "--db", db, "--stage", "collectives"}, d.path);
  EXPECT_EQ(none.exitCode, 1);
  EXPECT_NE(none.err.find("session 3 has no collectives"), std::string::npos) << none.err;
}

// A collective the script never waits for is still recorded, in issue order: when
// destroy_process_group has drained the group (its duration known), else when the script ends.
TEST(Collectives, NeverWaitedForAreRecordedAtDestroyOrAtTheEnd) {
  test::TempDir d("/tmp/kiln-collectives-test");
  const std::string db = (d.path / "s.db").string();
  const fs::path destroyed = d.path / "destroyed.py", kept = d.path / "kept.py";
  std::ofstream(destroyed) << "import torch\nimport torch.distributed as dist\ndist.init_process_group('gloo')\n"
                              "w = dist.all_reduce(torch.ones(4), async_op=True)\n"
                              "dist.broadcast(torch.zeros(2, 3, dtype=torch.int64), 0)\ndist.barrier()\n"
                              "dist.destroy_process_group()\n";
  std::ofstream(kept) << "import torch\nimport torch.distributed as dist\ndist.init_process_group('gloo')\n"
                         "w = dist.all_reduce(torch.ones(8, dtype=torch.float64), op=dist.ReduceOp.MAX, async_op=True)\n";
  for (const auto& script : {destroyed, kept}) {
    auto r = test::runKiln({"run", "--nproc-per-node", "1", script.string(), "--db", db, "--timeout", "60"}, d.path);
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  }
  auto one = test::runKiln({"show", "1", "--db", db, "--stage", "collectives"}, d.path);
  ASSERT_EQ(one.exitCode, 0) << one.err;
  const auto ls = lines(one.out);
  ASSERT_EQ(ls.size(), 3u) << one.out;
  EXPECT_EQ(ls[0].rfind("#0 all_reduce · 16 B · ", 0), 0u) << ls[0];
  EXPECT_EQ(ls[0].find("running"), std::string::npos) << ls[0];  // the destroy drained it: timed
  EXPECT_NE(ls[0].find("(sum · float32 [4] · gloo · rank 0 of 1 · issued at "), std::string::npos) << ls[0];
  EXPECT_NE(ls[0].find(" · never waited for)"), std::string::npos) << ls[0];
  EXPECT_EQ(ls[1].rfind("#1 broadcast · 48 B · ", 0), 0u) << ls[1];
  EXPECT_NE(ls[1].find("(from rank 0 · int64 [2, 3] · gloo"), std::string::npos) << ls[1];
  EXPECT_NE(ls[1].find("waited until"), std::string::npos) << ls[1];
  EXPECT_EQ(ls[2].rfind("#2 barrier · ", 0), 0u) << ls[2];
  auto two = test::runKiln({"show", "2", "--db", db, "--stage", "collectives"}, d.path);
  ASSERT_EQ(two.exitCode, 0) << two.err;
  ASSERT_EQ(lines(two.out).size(), 1u) << two.out;
  EXPECT_EQ(two.out.rfind("#0 all_reduce · 64 B · ", 0), 0u) << two.out;
  EXPECT_NE(two.out.find("(max · float64 [8] · gloo · rank 0 of 1 · issued at "), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("never waited for)"), std::string::npos) << two.out;
}

}  // namespace
}  // namespace kiln
