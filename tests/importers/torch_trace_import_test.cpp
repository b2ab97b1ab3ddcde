#include "importers/torch_trace/inductor_code.h"
#include "importers/torch_trace/trace_importer.h"
#include "importers/torch_trace/trace_records.h"
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>
#include <zlib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace fs = std::filesystem;
using namespace kiln;
using namespace kiln::importers::torch_trace;
using kiln::storage::Store;
using kiln::storage::testing::TempDir;

namespace {

const std::string kFixtures = std::string(KILN_SHARED_DIR) + "/fixtures/torch_trace";

// Imports `paths` into a fresh store; returns the store and the report.
struct Imported {
  std::unique_ptr<Store> store;
  ImportReport report;
  std::vector<int64_t> ids;
};

Imported importInto(const std::string& db, const std::vector<std::string>& paths, ImportOptions opts = {}) {
  Imported out;
  out.store = Store::open(db);
  std::vector<std::unique_ptr<session::SessionSink>> sinks;
  auto factory = [&](const std::string&, int64_t) -> session::SessionSink& {
    if (!sinks.empty()) out.ids.push_back(out.store->lastSessionId());
    sinks.push_back(out.store->beginSession());
    return *sinks.back();
  };
  out.report = importTorchTrace(paths, factory, opts);
  if (!sinks.empty()) out.ids.push_back(out.store->lastSessionId());
  sinks.clear();
  return out;
}

std::vector<std::string> dirsOf(const std::string& path) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(path, ec))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

nlohmann::json oracleOf(const std::string& name) {
  std::ifstream in(std::string(KILN_SHARED_DIR) + "/corpus/oracle/" + name + ".json");
  return nlohmann::json::parse(in, nullptr, false);
}

std::string artifactsNamed(Store& s, int64_t id, const std::string& name) {
  std::string out;
  for (const auto& a : s.artifacts(id))
    if (a.name == name) out += a.text + "\n";
  return out;
}

class CpuFixture : public ::testing::TestWithParam<std::string> {};

}  // namespace

// The 46 real CPU logs: one session each, with real PyTorch's numbers of graphs, graph breaks,
// recompiles and ops per graph (the oracle of the same run), and nothing the importer could not
// read.
TEST_P(CpuFixture, CountsEqualTheOracle) {
  const std::string name = GetParam();
  nlohmann::json oracle = oracleOf(name);
  ASSERT_FALSE(oracle.is_discarded()) << "no oracle for " << name;
  TempDir dir;
  ImportOptions opts;
  opts.sourceRoots = {std::string(KILN_SHARED_DIR) + "/corpus/public"};
  Imported im = importInto(dir.file("s.db"), {kFixtures + "/cpu/" + name}, opts);
  ASSERT_EQ(im.ids.size(), 1u);
  const int64_t id = im.ids[0];
  EXPECT_EQ(im.report.problemCount, 0);
  EXPECT_EQ(artifactsNamed(*im.store, id, "import problem"), "");
  auto summary = im.store->sessions().at(0);
  EXPECT_EQ(summary.graphCount, oracle["graph_count"].get<int>());
  EXPECT_EQ(summary.breakCount, oracle["graph_break_count"].get<int>());
  EXPECT_EQ(summary.recompileCount, oracle["recompile_count"].get<int>());
  // Ops per graph, counted as torch._dynamo.testing.CompileCounter does, on the parsed graph.
  // In the order the graphs were compiled (stage ids are in recording order).
  std::vector<std::pair<int64_t, int>> captured;
  for (const auto& c : im.store->compiles(id)) {
    if (c.status != "ok") continue;
    for (const auto& st : im.store->stages(id, c.compileId))
      if (st.stage == "captured") captured.emplace_back(st.id, im.store->stageGraph(st.id).opCount());
  }
  std::sort(captured.begin(), captured.end());
  std::vector<int> ops;
  for (const auto& [stageId, count] : captured) ops.push_back(count);
  std::vector<int> expected = oracle["op_count_per_graph"].get<std::vector<int>>();
  EXPECT_EQ(ops, expected);
  // The script was found under the source root, so breaks and nodes point into it.
  auto detail = im.store->session(id);
  ASSERT_TRUE(detail.has_value());
  EXPECT_FALSE(detail->scriptText.empty()) << detail->summary.scriptPath;
}

INSTANTIATE_TEST_SUITE_P(TorchTrace, CpuFixture, ::testing::ValuesIn(dirsOf(kFixtures + "/cpu")),
                         [](const auto& info) { return info.param; });

// A compile that failed (fullgraph=True met print()) keeps where it failed, from Dynamo's
// compilation metrics (fail_user_frame_filename / _lineno), and the whole reason as its detail.
TEST(TorchTraceImport, FailedCompileKeepsItsLine) {
  TempDir dir;
  Imported im = importInto(dir.file("s.db"), {kFixtures + "/cpu/gb_fullgraph_print_error"});
  ASSERT_EQ(im.ids.size(), 1u);
  int failed = 0;
  for (const auto& c : im.store->compiles(im.ids[0])) {
    if (c.status != "failed") continue;
    ++failed;
    EXPECT_EQ(c.message, "Unsupported: Failed to trace builtin operator");
    EXPECT_EQ(c.line, 20);
    EXPECT_NE(c.file.find("gb_fullgraph_print_error.py"), std::string::npos) << c.file;
    EXPECT_NE(c.detail.find("Explanation: Dynamo does not know how to trace builtin operator `print`"), std::string::npos) << c.detail;
  }
  EXPECT_EQ(failed, 1);
}

TEST(TorchTraceImport, AllFortySixCpuLogsArePresent) { EXPECT_EQ(dirsOf(kFixtures + "/cpu").size(), 46u); }

// The GPU training step: AOTAutograd's forward and backward graphs parsed into nodes, the
// forward and backward post-grad graphs, and Triton kernels tied to post-grad nodes and to
// user lines through Inductor's provenance comments.
TEST(TorchTraceImport, GpuTrainingStepKeepsTritonKernelsAndBackward) {
  TempDir dir;
  ImportOptions opts;
  opts.sourceRoots = {kFixtures + "/gpu/gpu_training_step"};
  Imported im = importInto(dir.file("s.db"), {kFixtures + "/gpu/gpu_training_step"}, opts);
  ASSERT_EQ(im.ids.size(), 1u);
  const int64_t id = im.ids[0];
  EXPECT_EQ(im.report.problemCount, 0);
  std::set<std::string> stages;
  int triton = 0, tied = 0;
  for (const auto& c : im.store->compiles(id)) {
    for (const auto& st : im.store->stages(id, c.compileId)) {
      stages.insert(st.stage);
      if (st.stage == "aot_backward") { EXPECT_GT(im.store->stageGraph(st.id).opCount(), 0); }
    }
    for (const auto& k : im.store->kernels(id, c.compileId)) {
      if (k.source.find("@triton") != std::string::npos || k.source.find("import triton") != std::string::npos) ++triton;
      if (!k.nodeIds.empty()) ++tied;
    }
    if (c.status == "ok") { EXPECT_NE(im.store->wrapperText(id, c.compileId).find("def call("), std::string::npos); }
  }
  for (const char* s : {"captured", "aot_joint", "aot_forward", "aot_backward", "post_grad:forward", "post_grad:backward"})
    EXPECT_TRUE(stages.count(s)) << s;
  EXPECT_GT(triton, 0);
  EXPECT_GT(tied, 0);
}

// Inductor's C++ output code names no source nodes for its kernels (only Triton kernels carry
// the mapping): each C++ kernel is kept with its source, its lines unknown rather than guessed.
TEST(TorchTraceImport, CppKernelsKeepTheirSource) {
  TempDir dir;
  Imported im = importInto(dir.file("s.db"), {kFixtures + "/cpu/model_residual_block"});
  ASSERT_EQ(im.ids.size(), 1u);
  int cpp = 0;
  for (const auto& c : im.store->compiles(im.ids[0]))
    for (const auto& k : im.store->kernels(im.ids[0], c.compileId)) {
      EXPECT_EQ(k.kind, "cpp") << k.name;
      EXPECT_NE(k.source.find("extern \"C\""), std::string::npos) << k.name;
      ++cpp;
    }
  EXPECT_EQ(cpp, 4);
}

// C++ kernels over all 46 CPU logs: PyTorch 2.11's C++ backend writes no provenance comment for
// them (no "Topologically Sorted Source Nodes" or ATen mapping above a cpp_fused definition, nor
// before its call in call(): there such comments only precede extern kernels, addmm, bmm, mm,
// convolution; no provenance-tracking artifact either). A kernel is tied to nodes and lines
// exactly when its definition names its nodes, through the code that ties Triton kernels:
// what the logs state, never inferred from the kernel's name.
TEST(TorchTraceImport, CppKernelProvenanceIsWhatTheLogsState) {
  int inLogs = 0, stated = 0, imported = 0, tied = 0;
  for (const auto& name : dirsOf(kFixtures + "/cpu")) {
    RecordReader reader(logFilesOf(kFixtures + "/cpu/" + name).at(0));
    Record r;
    while (reader.next(r))
      if (r.key == "inductor_output_code")
        for (const auto& k : inductorKernels(r.payload))
          if (k.kind == "cpp") {
            ++inLogs;
            if (!k.sourceNodes.empty() || !k.atenNodes.empty()) ++stated;
          }
    TempDir dir;
    Imported im = importInto(dir.file("s.db"), {kFixtures + "/cpu/" + name});
    for (int64_t id : im.ids)
      for (const auto& c : im.store->compiles(id))
        for (const auto& k : im.store->kernels(id, c.compileId)) {
          if (k.kind != "cpp") continue;
          ++imported;
          if (!k.sourceLines.empty() || !k.nodeIds.empty()) ++tied;
        }
  }
  std::cout << "C++ kernels in the 46 CPU logs: " << inLogs << ", with provenance stated: " << stated << ", imported: " << imported
            << ", tied to nodes or lines: " << tied << "\n";
  EXPECT_EQ(imported, inLogs);
  EXPECT_GT(inLogs, 0);
  EXPECT_EQ(tied, stated);
}

// Every GPU log imports without a problem and with every graph parsed.
TEST(TorchTraceImport, GpuLogsImportWhole) {
  for (const auto& name : dirsOf(kFixtures + "/gpu")) {
    TempDir dir;
    Imported im = importInto(dir.file("s.db"), {kFixtures + "/gpu/" + name});
    EXPECT_EQ(im.report.problemCount, 0) << name;
    ASSERT_EQ(im.report.sessions.size(), 1u) << name;
    EXPECT_EQ(im.report.sessions[0].stagesUnparsed, 0) << name;
    EXPECT_GT(im.report.sessions[0].graphs, 0) << name;
    EXPECT_GT(im.report.sessions[0].kernels, 0) << name;
  }
}

namespace {

std::string firstLog(const std::string& dir) { return logFilesOf(dir).at(0); }

}  // namespace

// A damaged log imports what is valid: garbage lines, a record whose JSON is cut, and a log
// cut in the middle of a compile are listed with their line numbers; the compile cut short is
// stored as failed; nothing crashes.
TEST(TorchTraceImport, DamagedLogImportsWhatIsValid) {
  TempDir dir;
  std::ifstream in(firstLog(kFixtures + "/cpu/gb_builtin_float_of_tensor"));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_GT(lines.size(), 2000u);
  std::ofstream out(dir.file("bad.log"));
  for (size_t i = 0; i < lines.size() * 2 / 3; ++i) {
    if (i == 10) out << "this line is not a record\n";
    if (i == 20) out << "V1125 14:04:04.310000 1830 torch/x.py:1] {\"dynamo_start\": {\"stack\": [\n";
    out << lines[i] << "\n";
  }
  out.close();
  Imported im = importInto(dir.file("s.db"), {dir.file("bad.log")});
  ASSERT_EQ(im.ids.size(), 1u);
  std::string problems = artifactsNamed(*im.store, im.ids[0], "import problem");
  // The two lines put in, the record whose body the second one cut (its MD5 fails), and the
  // last record, cut with the log (its MD5 fails too).
  EXPECT_EQ(im.report.problemCount, 4) << problems;
  EXPECT_NE(problems.find("line 11: not a TORCH_TRACE record"), std::string::npos) << problems;
  EXPECT_NE(problems.find("line 22: the record's JSON does not parse"), std::string::npos) << problems;
  EXPECT_NE(problems.find("line 14: record 'chromium_event': the payload does not match its has_payload MD5"), std::string::npos)
      << problems;
  bool cutShort = false;
  for (const auto& c : im.store->compiles(im.ids[0]))
    cutShort = cutShort || (c.status == "failed" && c.message.find("log ends before") != std::string::npos);
  EXPECT_TRUE(cutShort);
  EXPECT_GT(im.store->sessions().at(0).graphCount, 0);
}

// A payload edited after PyTorch wrote it no longer matches the MD5 in its record's
// has_payload: the record still imports, and the mismatch is listed with the record's line.
TEST(TorchTraceImport, EditedPayloadFailsItsMd5) {
  TempDir dir;
  std::ifstream in(firstLog(kFixtures + "/cpu/gb_explicit_graph_break"));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  // The first record with a payload: its line and its first body line, edited.
  size_t rec = 0;
  while (rec + 1 < lines.size() && !(lines[rec].find("\"has_payload\"") != std::string::npos && lines[rec + 1][0] == '\t')) ++rec;
  ASSERT_LT(rec + 1, lines.size());
  lines[rec + 1] += " ";
  std::ofstream out(dir.file("edited.log"));
  for (const auto& l : lines) out << l << "\n";
  out.close();
  Imported im = importInto(dir.file("s.db"), {dir.file("edited.log")});
  ASSERT_EQ(im.ids.size(), 1u);
  EXPECT_EQ(im.report.problemCount, 1);
  std::string problems = artifactsNamed(*im.store, im.ids[0], "import problem");
  EXPECT_NE(problems.find("line " + std::to_string(rec + 1) + ": record '"), std::string::npos) << problems;
  EXPECT_NE(problems.find("does not match its has_payload MD5"), std::string::npos) << problems;
}

// Gzip logs read like plain ones; paths that are not logs are refused before anything is stored.
TEST(TorchTraceImport, GzipAndBadPaths) {
  TempDir dir;
  const std::string plain = firstLog(kFixtures + "/cpu/gb_explicit_graph_break");
  {
    std::ifstream in(plain, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    gzFile gz = gzopen(dir.file("x.log.gz").c_str(), "wb");
    ASSERT_NE(gz, nullptr);
    gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(gz);
  }
  Imported a = importInto(dir.file("a.db"), {plain});
  Imported b = importInto(dir.file("b.db"), {dir.file("x.log.gz")});
  ASSERT_EQ(a.report.sessions.size(), 1u);
  ASSERT_EQ(b.report.sessions.size(), 1u);
  EXPECT_EQ(a.report.records, b.report.records);
  EXPECT_EQ(a.report.sessions[0].graphs, b.report.sessions[0].graphs);
  EXPECT_EQ(a.report.sessions[0].stages, b.report.sessions[0].stages);
  EXPECT_THROW(logFilesOf(dir.file("missing.log")), std::runtime_error);
  fs::create_directories(dir.file("empty"));
  EXPECT_THROW(logFilesOf(dir.file("empty")), std::runtime_error);
  // Random bytes: one session holding the problems, no crash.
  {
    std::ofstream junk(dir.file("junk.log"), std::ios::binary);
    for (int i = 0; i < 5000; ++i) junk << static_cast<char>((i * 7919) % 251);
  }
  Imported c = importInto(dir.file("c.db"), {dir.file("junk.log")});
  EXPECT_EQ(c.report.sessions.size(), 1u);
  EXPECT_GT(c.report.problemCount, 0);
}
