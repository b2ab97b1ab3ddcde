// torch.distributed's nccl backend and DistributedDataParallel with one GPU per rank, through
// `kiln run --nproc-per-node N` (N = 2 where two GPUs are there, else 1; scripts in
// tests/cli/distributed/): collectives agree across ranks, PyTorch's errors for what NCCL
// refuses, DDP training (eager and compiled) equals single-process training on the whole batch,
// and the seed tutorial's compiled DDP training function runs. Label gpu: skips without a GPU.
#include "engine/runtime/cuda_runtime.h"
#include "tests/cli/run_kiln.h"
#include "tests/runtime/require_gpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace kiln {
namespace {

namespace fs = std::filesystem;

fs::path script(const std::string& name) { return fs::path(KILN_SOURCE_DIR) / "tests/cli/distributed" / name; }

int ranks() { return std::min(2, runtime::cuda::deviceCount()); }

// Python's str() of a float that is a multiple of 0.5, as the script prints it.
std::string pyFloat(double x) {
  if (x == static_cast<long long>(x)) return std::to_string(static_cast<long long>(x)) + ".0";
  return std::to_string(static_cast<long long>(x)) + ".5";
}

TEST(Nccl, CollectivesAgreeAcrossRanksAndRefuseWhatNcclRefuses) {
  REQUIRE_GPU();
  test::TempDir d("/tmp/kiln-nccl-test");
  const int n = ranks();
  auto r = test::runKiln({"run", "--nproc-per-node", std::to_string(n), script("nccl_collectives.py").string(), "--db",
                          (d.path / "s.db").string(), "--timeout", "240"},
                         d.path);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const double avg = (n - 1) / 2.0;
  for (int rank = 0; rank < n; ++rank) {
    std::string sum = "[";
    for (int k = 0; k < 4; ++k) sum += (k ? ", " : "") + pyFloat(n * k + n * (n - 1) / 2.0);
    sum += "]";
    std::string line = "rank " + std::to_string(rank) + "/" + std::to_string(n) + " nccl on cuda:" + std::to_string(rank) + " current " +
                       std::to_string(rank) + " sum " + sum + " max [" + pyFloat(10.0 * (n - 1)) + ", 0.0" + "] avg [" + pyFloat(avg) +
                       ", " + pyFloat(avg) + ", " + pyFloat(avg) + "] bcast [7, 7, 7] big " + pyFloat(n * (n + 1) / 2.0);
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("rank " + std::to_string(rank) + " cpu tensor: No backend type associated with device type cpu"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("rank " + std::to_string(rank) + " transposed: Tensors must be contiguous"), std::string::npos) << r.out;
    if (runtime::cuda::deviceCount() > 1) {
      EXPECT_NE(r.out.find("rank " + std::to_string(rank) + " other gpu: Kiln drives one GPU per process"), std::string::npos) << r.out;
    }
  }
  EXPECT_NE(r.out.find("nccl version 2."), std::string::npos) << r.out;
}

void expectDdpEqualsSingleProcess(bool compile) {
  test::TempDir d("/tmp/kiln-nccl-test");
  const int n = ranks();
  std::map<std::string, std::string> env = {{"KILN_TEST_BACKEND", "nccl"}};
  if (compile) env["KILN_TEST_COMPILE"] = "1";
  auto r = test::runKiln({"run", "--nproc-per-node", std::to_string(n), script("ddp_matches_single_process.py").string(), "--db",
                          (d.path / "s.db").string(), "--timeout", "400"},
                         d.path, env);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  for (int rank = 0; rank < n; ++rank) {
    EXPECT_NE(r.out.find("rank " + std::to_string(rank) + " ok"), std::string::npos) << r.out << r.err;
    EXPECT_NE(r.out.find("rank " + std::to_string(rank) + " of " + std::to_string(n) + " on cuda:" + std::to_string(rank) + " (nccl)"),
              std::string::npos)
        << r.out;
  }
  EXPECT_NE(r.out.find("buckets 3"), std::string::npos) << r.out;
}

TEST(Nccl, DdpOnGpusEqualsSingleProcess) {
  REQUIRE_GPU();
  expectDdpEqualsSingleProcess(false);
}

TEST(Nccl, CompiledDdpOnGpusEqualsSingleProcess) {
  REQUIRE_GPU();
  expectDdpEqualsSingleProcess(true);
}

// The seed tutorial's setup_distributed_compiled_training (examples/seeds/001_14, as written:
// nccl, LOCAL_RANK, set_device, torch.compile then DDP, AdamW, cross_entropy, 10 epochs).
TEST(Nccl, SeedDistributedCompiledTrainingRuns) {
  REQUIRE_GPU();
  test::TempDir d("/tmp/kiln-nccl-test");
  auto r = test::runKiln({"run", "--nproc-per-node", std::to_string(ranks()),
                          (fs::path(KILN_SOURCE_DIR) / "examples/seeds/001_14_distributed_compiled_training.py").string(), "--db",
                          (d.path / "s.db").string(), "--timeout", "500"},
                         d.path);
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
}

}  // namespace
}  // namespace kiln
