// torch.distributed on Gloo and DistributedDataParallel, through `kiln run --nproc-per-node 2`
// (the built executable; scripts in tests/cli/distributed/): collectives agree across ranks,
// DDP training on two CPU processes equals single-process training on the whole batch (eager
// and compiled), the compiled run splits its graph at the bucket boundaries (Dynamo's
// DDPOptimizer: one subgraph per bucket in the rank's session), and without the launcher
// init_process_group raises PyTorch's errors.
#include "tests/cli/run_kiln.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace kiln {
namespace {

namespace fs = std::filesystem;

fs::path script(const std::string& name) { return fs::path(KILN_SOURCE_DIR) / "tests/cli/distributed" / name; }

TEST(Distributed, CollectivesAgreeAcrossTwoRanks) {
  test::TempDir d("/tmp/kiln-dist-test");
  auto r = test::runKiln(
      {"run", "--nproc-per-node", "2", script("collectives.py").string(), "--db", (d.path / "s.db").string(), "--timeout", "120"}, d.path);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  for (int rank : {0, 1}) {
    std::string line = "rank " + std::to_string(rank) + "/2 gloo sum [1.0, 3.0, 5.0, 7.0] max [10.0, 0.0] avg [0.5, 0.5] bcast [7, 7, 7]";
    EXPECT_NE(r.out.find(line), std::string::npos) << r.out << r.err;
  }
  EXPECT_NE(r.out.find("again: trying to initialize the default process group twice!"), std::string::npos) << r.out;
  // One session per rank, named for it.
  auto s = test::runKiln({"sessions", "--db", (d.path / "s.db").string()}, d.path);
  EXPECT_NE(s.out.find("collectives.py rank 0"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("collectives.py rank 1"), std::string::npos) << s.out;
}

TEST(Distributed, DdpOnTwoRanksEqualsSingleProcess) {
  test::TempDir d("/tmp/kiln-dist-test");
  auto r = test::runKiln({"run", "--nproc-per-node", "2", script("ddp_matches_single_process.py").string(), "--db",
                          (d.path / "s.db").string(), "--timeout", "240"},
                         d.path);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("rank 0 ok"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("rank 1 ok"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("buckets 3"), std::string::npos) << r.out;  // (64 KiB + 4 MiB) (4 MiB) (1 MiB), biases with them
}

// The compiled DDP run of ddp_matches_single_process.py with KILN_TEST_COMPILE=`mode`; returns
// its output.
std::string compiledDdpSplits(const std::string& mode) {
  test::TempDir d("/tmp/kiln-dist-test");
  const std::string db = (d.path / "s.db").string();
  auto r = test::runKiln({"run", "--nproc-per-node", "2", script("ddp_matches_single_process.py").string(), "--db", db, "--timeout", "400"},
                         d.path, {{"KILN_TEST_COMPILE", mode}});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("rank 0 ok"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("rank 1 ok"), std::string::npos) << r.out << r.err;
  // Both ranks' sessions hold the whole captured graph, the split, and one compiled subgraph per
  // bucket. (Both ranks write one store and a compile holds its write transaction until it is
  // done: the launcher gives the ranks a long busy timeout, so a rank waits for the other's
  // compile instead of stopping its recording after 10 s.)
  EXPECT_EQ(r.err.find("recording stopped"), std::string::npos) << r.err;
  auto sessions = test::runKiln({"sessions", "--db", db}, d.path);
  std::string explained;
  for (const char* id : {"1", "2"}) {
    if (mode == "autotune") {
      // mode="max-autotune" reaches each bucket's subgraph: its products are tuned and named
      // for their piece (submod_0_addmm ...), one product per row.
      auto listing = test::runKiln({"show", id, "--db", db}, d.path).out;
      EXPECT_NE(listing.find("    autotune submod_0_"), std::string::npos) << listing;
      EXPECT_NE(listing.find("    autotune submod_2_"), std::string::npos) << listing;
    }
    auto show = test::runKiln({"show", id, "--db", db, "--stage", "ddp_split"}, d.path);
    EXPECT_EQ(show.exitCode, 0) << show.out << show.err << sessions.out;
    EXPECT_NE(show.out.find("DDPOptimizer used bucket cap 1048576 and created 3 buckets"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("---submod_2 graph---"), std::string::npos) << show.out;
    auto stages = test::runKiln({"show", id, "--db", db}, d.path);
    for (const char* piece : {"submod_0: captured", "submod_1: captured", "submod_2: captured"})
      EXPECT_NE(stages.out.find(piece), std::string::npos) << stages.out;
    explained += test::runKiln({"explain", id, "--db", db}, d.path).out;
  }
  return explained;
}

TEST(Distributed, CompiledDdpSplitsTheGraphPerBucketAndEqualsSingleProcess) {
  // DDP(torch.compile(model)): the compiled module's frame runs inside DDP.forward.
  const std::string explained = compiledDdpSplits("1");
  EXPECT_EQ(explained.find("Graph Break Count: 1"), std::string::npos) << explained;
}

TEST(Distributed, MaxAutotuneReachesEveryBucketsSubgraph) {
  const std::string explained = compiledDdpSplits("autotune");
  EXPECT_EQ(explained.find("Graph Break Count: 1"), std::string::npos) << explained;
}

TEST(Distributed, CompiledOuterDdpBreaksInDdpForwardAndSplitsTheModule) {
  // torch.compile(DDP(model)), as PyTorch 2.11 runs it (measured on the GPU machine): DDP.forward
  // breaks at _inside_ddp_forward, "marked as skipped", and the wrapped module's forward is
  // compiled as its own frame while DDP is active, so the DDPOptimizer splits it (3 graphs of 7
  // ops in all from one frame).
  const std::string explained = compiledDdpSplits("outer");
  EXPECT_NE(explained.find("Graph Count: 1"), std::string::npos) << explained;
  EXPECT_NE(explained.find("Attempted to call function marked as skipped"), std::string::npos) << explained;
  EXPECT_NE(explained.find("`DistributedDataParallel._inside_ddp_forward`"), std::string::npos) << explained;
}

TEST(Distributed, WithoutTheLauncherInitRaisesPyTorchsErrors) {
  test::TempDir d("/tmp/kiln-dist-test");
  if (std::getenv("RANK")) GTEST_SKIP() << "RANK is set in this environment";
  auto plain = test::runKiln({"run", script("no_launcher.py").string(), "--db", (d.path / "s.db").string()}, d.path);
  ASSERT_EQ(plain.exitCode, 0) << plain.out << plain.err;
  EXPECT_NE(plain.out.find("ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK "
                           "expected, but not set"),
            std::string::npos)
      << plain.out;
  EXPECT_NE(plain.out.find("ValueError: Default process group has not been initialized, please make sure to call "
                           "init_process_group."),
            std::string::npos)
      << plain.out;
  auto nccl = test::runKiln({"run", script("no_launcher.py").string(), "--db", (d.path / "s.db").string()}, d.path,
                            {{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"}});
  ASSERT_EQ(nccl.exitCode, 0) << nccl.out << nccl.err;
  EXPECT_NE(nccl.out.find("ValueError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!"), std::string::npos) << nccl.out;
}

}  // namespace
}  // namespace kiln
