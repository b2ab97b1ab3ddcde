#include "tests/storage/store_test_util.h"

#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kiln::storage::testing {

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "kiln-storage-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {

ir::SourceLoc loc(int line, const std::string& function, const std::string& code) {
  ir::SourceLoc l;
  l.file = "/home/user/model.py";
  l.line = line;
  l.col = 8;
  l.endLine = line;
  l.endCol = 8 + static_cast<int>(code.size());
  l.function = function;
  l.code = code;
  return l;
}

}  // namespace

ir::Graph sampleGraph(int salt) {
  ir::Graph g;
  g.name = "forward_" + std::to_string(salt);

  ir::Node x;
  x.name = "l_x_";
  x.kind = ir::NodeKind::Placeholder;
  x.target = "L['x']";
  ir::TensorType tx;
  tx.dtype = ir::DType::Float32;
  tx.sizes = {ir::Dim::sym("s0"), 16};
  tx.strides = {16, 1};
  tx.device = "cuda:0";
  tx.requiresGrad = true;
  x.types = {tx};
  x.prov.loc = loc(3, "forward", "def forward(self, x):");
  int xId = g.add(x).id;

  ir::Node w;
  w.name = "l_self_weight";
  w.kind = ir::NodeKind::GetAttr;
  w.target = "self.linear.weight";
  ir::TensorType tw;
  tw.dtype = ir::DType::BFloat16;
  tw.sizes = {16, 16};
  w.types = {tw};
  w.prov.modulePath = "linear";
  int wId = g.add(w).id;

  // A node that a pass removed: the id counter keeps counting past it.
  ir::Node gone;
  gone.name = "dead";
  gone.target = "torch.neg";
  gone.args = {ir::Arg::ref(xId)};
  int goneId = g.add(gone).id;

  ir::Node mul;
  mul.name = "mul";
  mul.kind = ir::NodeKind::CallFunction;
  mul.target = "aten.mul.Tensor";
  mul.args = {ir::Arg::ref(xId), ir::Arg::real(0.1 + salt)};
  mul.kwargs = {
      {"alpha", ir::Arg::real(-std::numeric_limits<double>::infinity())},
      {"dims", ir::Arg::listOf(
                   {ir::Arg::integer(0), ir::Arg::integer(-1), ir::Arg::listOf({ir::Arg::integer(int64_t{1} << 40), ir::Arg::none()})})},
      {"dtype", ir::Arg::dtypeArg(ir::DType::Float16)},
      {"keepdim", ir::Arg::boolean(true)},
      {"mode", ir::Arg::string("tanh \"quoted\" ünïcode")},
      {"two", ir::Arg::real(2.0)},
  };
  mul.types = {tx, tw};
  mul.prov.loc = loc(12, "forward", "y = x * 0.1");
  mul.prov.modulePath = "block.0.act";
  mul.prov.from = {7, 9};
  mul.prov.userStack = {loc(20, "<module>", "out = model(x)"), loc(12, "forward", "y = x * 0.1")};
  mul.kernel = "kernel_pointwise_0";
  int mulId = g.add(mul).id;

  ir::Node meth;
  meth.name = "relu";
  meth.kind = ir::NodeKind::CallMethod;
  meth.target = "relu";
  meth.args = {ir::Arg::ref(mulId), ir::Arg::ref(wId)};
  meth.types = {tx};
  meth.prov.loc = loc(13, "forward", "return y.relu()");
  meth.kernel = "kernel_pointwise_0";
  int reluId = g.add(meth).id;

  ir::Node out;
  out.name = "output";
  out.kind = ir::NodeKind::Output;
  out.target = "output";
  out.args = {ir::Arg::listOf({ir::Arg::ref(reluId), ir::Arg::ref(mulId)})};
  g.add(out);

  g.remove(goneId);
  return g;
}

SampleSession sampleSession(const std::string& scriptName) {
  SampleSession s;
  s.start.scriptPath = "/home/user/" + scriptName;
  s.start.scriptText = "import torch\n\n@torch.compile\ndef forward(x):\n    return torch.sin(x).relu()\n";
  s.start.optionsJson = R"({"backend": "inductor", "eager": false})";
  s.start.engineVersion = "0.1.0-test";
  s.start.startedAtMs = 1700000000123;

  s.frames = {{0, "forward", "/home/user/model.py", 3, "function", "def forward(x):\n    ..."},
              {1, "resume_forward_at_44", "/home/user/model.py", 7, "resume", "def resume(...):\n    pass"}};

  session::CompileEvent c0;
  c0.compileId = "0/0";
  c0.frameId = 0;
  c0.compileIndex = 0;
  c0.backend = "inductor";
  c0.guards = {{"TENSOR_MATCH", "L['x']", "check_tensor(L['x'], torch.float32, [16, 16])", 3},
               {"CONSTANT_MATCH", "G['SCALE']", "G['SCALE'] == 2", 0}};
  c0.transformedCode = "def forward(x):\n    return __compiled_fn_0(x)\n";
  session::CompileEvent c1 = c0;
  c1.compileId = "0/1";
  c1.compileIndex = 1;
  c1.guards = {{"TYPE_MATCH", "L['n']", "type(L['n']) is int", 5}};
  session::CompileEvent c2;
  c2.compileId = "1/0";
  c2.frameId = 1;
  c2.backend = "eager";
  c2.status = "failed";
  c2.message = "unsupported op aten.foo";
  c2.file = "model.py";
  c2.line = 12;
  c2.col = 4;
  c2.detail = "Dynamo does not know how to trace aten.foo";
  s.compiles = {c0, c1, c2};

  for (const char* cid : {"0/0", "0/1"}) {
    int k = 0;
    for (const char* name : {"captured", "aten", "pass:simplify", "fused"}) {
      session::StageEvent st;
      st.compileId = cid;
      st.stage = name;
      st.order = k;
      st.text = std::string("graph ") + name + " of " + cid + "\n  %mul = aten.mul.Tensor(%x, 0.1)\n";
      st.graph = sampleGraph(k);
      st.changed = k != 2;
      st.rules =
          k == 2 ? std::vector<session::RuleHit>{{"exp(log(x)) -> x", 2, {4, 6}}, {"x * 1 -> x", 1, {3}}} : std::vector<session::RuleHit>{};
      if (k == 2)  // each firing (schema 11): one consuming a node and adding two, one adding none
        st.applications = {{"exp(log(x)) -> x", "engine/passes/simplify.cpp, rule 1 of 12", 4, {2}, {20, 21}, 21},
                           {"x * 1 -> x", "engine/passes/simplify.cpp, rule 7 of 12", 3, {}, {}, 1}};
      st.ms = 0.25 * (k + 1);
      s.stages.push_back(std::move(st));
      ++k;
    }
  }

  session::KernelEvent kn;
  kn.compileId = "0/0";
  kn.name = "kernel_pointwise_0";
  kn.kind = "pointwise";
  kn.kernelIr = "kernel kernel_pointwise_0(in0: f32[16], out0: f32[16]) { for i0 in 0..16 { ... } }";
  kn.source = "extern \"C\" __global__ void kernel_pointwise_0(float* in0) {}";
  kn.llvmIr = "define void @kernel_pointwise_0(ptr %0) {\n  ret void\n}\n";
  kn.assembly = "kernel_pointwise_0:\n  vmovups (%rdi), %ymm0\n  ret\n";
  kn.nodeIds = {3, 4};
  kn.sourceLines = {12, 13};
  kn.compileMs = 4.5;
  // A kernel that ran on a GPU keeps its PTX, SASS and figures (schema 10).
  kn.gpu.arch = "sm_90";
  kn.gpu.ptx = ".visible .entry kernel_pointwise_0(\n\t.loc\t1 12 3  // cuda line 4 @3\n\tret;\n}\n";
  kn.gpu.sass = "\t//## File \"kiln_kernels.cu\", line 12  // cuda line 4 @3\n        /*0000*/ EXIT ;\n";
  kn.gpu.launch = "grid 1x1, block 32, thread";
  kn.gpu.registers = 18;
  kn.gpu.sharedBytes = 0;
  kn.gpu.stackBytes = 0;
  kn.gpu.spillStores = 0;
  kn.gpu.spillLoads = 4;
  kn.gpu.notes = "SASS: nvdisasm not found";
  session::KernelEvent kr = kn;
  kr.gpu = {};  // a CPU kernel: nothing stored
  kr.name = "kernel_reduction_1";
  kr.kind = "reduction";
  kr.source = "";
  kr.nodeIds = {};
  kr.sourceLines = {};
  session::KernelEvent k1 = kn;
  k1.compileId = "0/1";
  k1.name = "kernel_pointwise_0_1";
  s.kernels = {kn, kr, k1};

  s.wrappers = {{"0/0", "buf0 = empty(16)\nkernel_pointwise_0(x, buf0)\nreturn (buf0,)\n"}, {"0/1", "kernel_pointwise_0_1(x)\n"}};

  session::GraphBreakEvent b;
  b.frameId = 0;
  b.compileId = "0/0";
  b.code = "KB001";
  b.title = "Data-dependent branching";
  b.explanation = "The branch depends on a tensor's value.";
  b.hints = {"Use torch.cond.", "Move the branch out of the compiled region."};
  b.file = "/home/user/model.py";
  b.line = 44;
  b.col = 5;
  b.userStack = {loc(50, "<module>", "out = forward(x)"), loc(44, "forward", "if x.sum() > 0:")};
  s.breaks = {b};

  s.recompiles = {{0, "0/1", {"0/0: tensor 'L['x']' size mismatch at index 0. expected 16, actual 8", "n == 1"}, {12, 0}}};
  s.timings = {{"0/0", "capture", 1.5}, {"0/0", "codegen", 12.25}, {"", "run", 30.0}};
  session::ProfileEvent p;
  p.compileId = "0/0";
  p.eagerMs = 0.75;
  p.compiledMs = 0.25;
  p.repeat = 5;
  p.kernels = {{"cpp_fused_mul_relu_0", 0.125, 8192}, {"cpp_fused_sum_1", 0.0625, 4096}};
  s.profiles = {p};
  session::AutotuneEvent at;
  at.compileId = "0/0";
  at.node = "addmm";
  at.op = "aten.addmm.default";
  at.problem = "[16, 1024] @ [1024, 1024] (column-major), float32";
  at.candidates = {{"openblas", 0.8125, "", false}, {"few_rows", 0.5, "", true}, {"onednn", -1.0, "failed: unsupported", false}};
  session::AutotuneEvent at2 = at;
  at2.node = "mm_1";
  at2.cached = true;
  at2.candidates = {{"openblas", 0.25, "", true}};
  s.autotunes = {at, at2};
  session::VerifyEvent ok, bad;
  ok.compileId = "0/0";
  ok.call = 1;
  bad.compileId = "0/1";
  bad.call = 2;
  bad.matched = false;
  bad.output = 1;
  bad.detail = "output 1 [16] at [3]: 2 compiled vs 1 eager (1 of 16 elements differ, max abs diff 1)";
  bad.culprit = "fusion decision 2 of 3: relu into cpp_fused_mul_relu_0 (fused: pointwise into producer's kernel)";
  bad.bisection = {"without cse: still differs", "1 fusion decisions: matches eager"};
  s.verifications = {ok, bad};
  s.artifacts = {{"0/0", "describe_tensor", R"({"describe_tensor": {"id": 1, "size": [16]}})", 57},
                 {"", "import problem", "line 11: not a TORCH_TRACE record (no glog prefix): caf\xc3\xa9", 11},
                 {"0/1", "chromium_events", std::string(5000, 'z') + "\n\ttabbed", 0}};
  // DDP's all-reduces are reported when waited for, which need not be in issue order; a
  // broadcast, a barrier, and one that was still running when the run ended (duration < 0).
  session::CollectiveEvent bucket1{1,         "all_reduce", "sum", -1,    "gloo", 4300000, "float32",
                                   {1075000}, 812.25,       0.375, 815.5, 0,      2,       "bucket 1"};
  session::CollectiveEvent bucket0{0,           "all_reduce", "avg", -1,     "nccl", 1048576, "bfloat16",
                                   {512, 1024}, 810.0,        1.5,   815.25, 1,      2,       "bucket 0"};
  session::CollectiveEvent bcast{2, "broadcast", "", 1, "gloo", 8, "int64", {}, 900.5, 0.0625, 900.75, 0, 2, ""};
  session::CollectiveEvent barrier{3, "barrier", "", -1, "gloo", 0, "", {}, 901.0, 0.25, 901.5, 0, 2, "caf\xc3\xa9"};
  session::CollectiveEvent running{4,    "all_reduce", "max", -1, "gloo", int64_t{3} << 32, "float64", {int64_t{1} << 31, 2}, 950.0,
                                   -1.0, -1.0,         0,     2,  ""};
  s.collectives = {bucket1, bucket0, bcast, barrier, running};
  s.output = {"hello\n", "tensor([1., 2.])\n", std::string(70 * 1024, 'x') + "\n"};
  s.end.status = "ok";
  s.end.totalMs = 123.5;
  s.end.outputsJson = R"({"out": {"shape": [16], "dtype": "float32"}})";
  return s;
}

void writeSample(session::SessionSink& sink, const SampleSession& s, bool end) {
  sink.sessionStart(s.start);
  sink.output(s.output[0]);
  for (const auto& f : s.frames) sink.frame(f);
  for (const auto& c : s.compiles) {
    sink.compile(c);
    for (const auto& st : s.stages)
      if (st.compileId == c.compileId) sink.stage(st);
    for (const auto& k : s.kernels)
      if (k.compileId == c.compileId) sink.kernel(k);
    for (const auto& w : s.wrappers)
      if (w.compileId == c.compileId) sink.wrapper(w);
    for (const auto& b : s.breaks)
      if (b.compileId == c.compileId) sink.graphBreak(b);
    for (const auto& r : s.recompiles)
      if (r.compileId == c.compileId) sink.recompile(r);
    for (const auto& t : s.timings)
      if (t.compileId == c.compileId) sink.timing(t);
    for (const auto& a : s.autotunes)
      if (a.compileId == c.compileId) sink.autotune(a);
    for (const auto& v : s.verifications)
      if (v.compileId == c.compileId) sink.verify(v);
    for (const auto& a : s.artifacts)
      if (a.compileId == c.compileId) sink.artifact(a);
    sink.compileDone(c.compileId);
  }
  for (size_t i = 1; i < s.output.size(); ++i) sink.output(s.output[i]);
  for (const auto& c : s.collectives) sink.collective(c);
  for (const auto& t : s.timings)
    if (t.compileId.empty()) sink.timing(t);
  for (const auto& p : s.profiles) sink.profile(p);
  for (const auto& a : s.artifacts)
    if (a.compileId.empty()) sink.artifact(a);
  if (end) sink.sessionEnd(s.end);
}

void writeCompile(session::SessionSink& sink, int frame, bool done) {
  std::string cid = std::to_string(frame) + "/0";
  sink.frame({frame, "f" + std::to_string(frame), "/tmp/loop.py", frame + 1, "function", "def f(x): ..."});
  session::CompileEvent c;
  c.compileId = cid;
  c.frameId = frame;
  c.backend = "inductor";
  c.guards = {{"TENSOR_MATCH", "L['x']", "check_tensor(L['x'])", 1}};
  sink.compile(c);
  for (int k = 0; k < 3; ++k) {
    session::StageEvent st;
    st.compileId = cid;
    st.stage = k == 0 ? "captured" : k == 1 ? "aten" : "fused";
    st.order = k;
    st.text = std::string(2000, 'a' + k);
    st.graph = sampleGraph(k);
    sink.stage(st);
  }
  session::KernelEvent kn;
  kn.compileId = cid;
  kn.name = "k" + std::to_string(frame);
  kn.kind = "pointwise";
  kn.kernelIr = std::string(4000, 'k');
  sink.kernel(kn);
  sink.timing({cid, "codegen", 1.0});
  sink.output("compiled " + cid + "\n");
  if (done) sink.compileDone(cid);
}

namespace {

template <class F>
void withDb(const std::string& dbPath, F f) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(dbPath.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(db);
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + dbPath + ": " + msg);
  }
  try {
    f(db);
  } catch (...) {
    sqlite3_close(db);
    throw;
  }
  sqlite3_close(db);
}

}  // namespace

int runInChild(const std::function<int()>& f, bool unprivileged) {
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int code = 120;
    try {
      if (unprivileged && geteuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(121);
      code = f();
    } catch (const std::exception& e) { std::fprintf(stderr, "child threw: %s\n", e.what()); }
    std::fflush(nullptr);
    _exit(code);  // no gtest or static destructors in the child
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) throw std::runtime_error("waitpid failed");
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string queryText(const std::string& dbPath, const std::string& sql) {
  std::string out;
  withDb(dbPath, [&](sqlite3* db) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) throw std::runtime_error(sql + ": " + sqlite3_errmsg(db));
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  });
  return out;
}

long long queryInt(const std::string& dbPath, const std::string& sql) { return std::stoll(queryText(dbPath, sql)); }

void execSql(const std::string& dbPath, const std::string& sql) {
  withDb(dbPath, [&](sqlite3* db) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error(sql + ": " + msg);
    }
  });
}

}  // namespace kiln::storage::testing
