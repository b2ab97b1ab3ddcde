#include "sample_session.h"

#include <tuple>

namespace kiln::testing {
namespace {

const char* kScript =
    "import torch\n"
    "\n"
    "@torch.compile\n"
    "def f(x):\n"
    "    y = torch.sin(x) * 2\n"
    "    return torch.relu(y)\n"
    "\n"
    "out = f(torch.randn(8, 8))\n";

ir::Node node(int id, std::string name, ir::NodeKind kind, std::string target, std::vector<ir::Arg> args, int line,
              std::string kernel = {}) {
  ir::Node n;
  n.id = id;
  n.name = std::move(name);
  n.kind = kind;
  n.target = std::move(target);
  n.args = std::move(args);
  if (kind != ir::NodeKind::Output) n.types.push_back(ir::TensorType{.dtype = ir::DType::Float32, .sizes = {8, 8}});
  n.prov.loc.file = "sample.py";
  n.prov.loc.line = line;
  n.kernel = std::move(kernel);
  return n;
}

// x -> sin -> mul(2) -> relu -> output, with the given op names and kernel.
ir::Graph chain(const std::string& sin, const std::string& mul, const std::string& relu, const std::string& kernel) {
  using K = ir::NodeKind;
  ir::Graph g;
  g.add(node(0, "l_x_", K::Placeholder, "L_x_", {}, 4));
  g.add(node(1, "sin", K::CallFunction, sin, {ir::Arg::ref(0)}, kSinLine, kernel));
  g.add(node(2, "mul", K::CallFunction, mul, {ir::Arg::ref(1), ir::Arg::integer(2)}, kSinLine, kernel));
  g.add(node(3, "relu", K::CallFunction, relu, {ir::Arg::ref(2)}, kReluLine, kernel));
  g.add(node(4, "output", K::Output, "output", {ir::Arg::listOf({ir::Arg::ref(3)})}, 0));
  return g;
}

session::StageEvent stage(const std::string& name, int order, ir::Graph graph, bool changed) {
  session::StageEvent s;
  s.compileId = "0/0";
  s.stage = name;
  s.order = order;
  s.graph = std::move(graph);
  s.changed = changed;
  s.text = "# stage " + name + "\n" + "def forward(self, l_x_: \"f32[8, 8]\"):\n    ...\n";
  s.ms = 0.25;
  return s;
}

int64_t writeSession(storage::Store& store, bool changed) {
  auto sink = store.beginSession();
  sink->sessionStart({"sample.py", kScript, R"({"backend": "inductor"})", "test", 1700000000000 + (changed ? 60000 : 0)});
  sink->frame({0, "f", "sample.py", 4, "function", "def f(x): ..."});
  session::CompileEvent compile;
  compile.compileId = "0/0";
  compile.backend = "inductor";
  compile.guards.push_back({"TENSOR_MATCH", "L['x']", "check_tensor(L['x'], Tensor, torch.float32, size=[64], stride=[1])", 4});
  if (changed) compile.guards.push_back({"CONSTANT_MATCH", "G['SCALE']", "G['SCALE'] == 2", 5});
  compile.transformedCode = "def __transformed_code_0_for_f(x):\n    graph_out_0 = __compiled_fn_0_0(x)\n    return graph_out_0[0]\n";
  sink->compile(compile);
  auto captured = stage("captured", 0, chain("torch.sin", "_operator.mul", "torch.relu", ""), true);
  if (changed) captured.text += "    # scaled by G['SCALE']\n";
  sink->stage(captured);
  sink->stage(stage("aten", 1, chain("aten.sin.default", "aten.mul.Tensor", "aten.relu.default", ""), true));
  sink->stage(stage("pass:cse", 2, chain("aten.sin.default", "aten.mul.Tensor", "aten.relu.default", ""), false));
  // The changed run's fused stage computes sigmoid where the first computes relu.
  auto fused = stage(
      "fused", 3, chain("aten.sin.default", "aten.mul.Tensor", changed ? "aten.sigmoid.default" : "aten.relu.default", "kernel_0"), true);
  fused.rules.push_back({"fused: pointwise into producer's kernel", 2, {2, 3}});
  sink->stage(fused);
  for (const auto& [phase, ms] :
       {std::pair<const char*, double>{"capture", 1.5}, {"lower", 0.5}, {"passes", 2.0}, {"codegen", changed ? 30.0 : 20.0}})
    sink->timing({"0/0", phase, ms});
  session::ProfileEvent prof;
  prof.compileId = "0/0";
  prof.eagerMs = changed ? 0.5 : 0.4;
  prof.compiledMs = 0.1;
  prof.repeat = 5;
  prof.kernels = {{"kernel_0", 0.05, 512}};
  sink->profile(prof);
  // kiln run --verify: the first run's graph agrees with eager; the changed run's does not.
  session::VerifyEvent ver;
  ver.compileId = "0/0";
  ver.call = 1;
  ver.matched = !changed;
  if (changed) {
    ver.output = 0;
    ver.detail = "output 0 [8, 8] at [0, 3]: 0.731 compiled vs 0.5 eager (40 of 64 elements differ, max abs diff 0.5)";
    ver.culprit = "pass cse";
    ver.bisection = {"lowered to ATen, run op by op (aot_eager): matches eager", "without cse: matches eager"};
  }
  sink->verify(ver);
  session::KernelEvent k;
  k.compileId = "0/0";
  k.name = "kernel_0";
  k.kind = "pointwise";
  // Kernel IR as the engine prints it: every instruction names the node it comes from (@N).
  k.kernelIr =
      "kernel kernel_0 pointwise\n  nodes 1, 2, 3\n  in in_l_x_: f32[8, 8]\n  out out_relu: f32[8, 8]\n  loop i0 in 0..64\n"
      "  %0 = load in_l_x_[i0] @1\n  %1 = sin %0 @1\n  %2 = const 2.0 : f32 @2\n  %3 = mul %1, %2 @2\n"
      "  %4 = const 0.0 : f32 @3\n  %5 = max %3, %4 @3\n  store out_relu[i0], %5 @3\nend\n";
  k.llvmIr =
      "define void @kernel_0(ptr %in0, ptr %out0) {\n  %v1 = call float @sinf(float %x) ; @1\n  %v3 = fmul float %v1, 2.0 ; @2\n"
      "  %v5 = call float @llvm.maxnum.f32(float %v3, float 0.0) ; @3\n  ret void\n}\n";
  k.assembly =
      "kernel_0:\n\t# @1\n\tcall\tsinf\n\t# @2\n\tvmulss\t%xmm1, %xmm0, %xmm0\n\t# @3\n\tvmaxss\t%xmm2, %xmm0, %xmm0\n.LBB0_1:\n\tret\n";
  k.nodeIds = {1, 2, 3};
  k.sourceLines = {kSinLine, kReluLine};
  sink->kernel(k);
  sink->wrapper({"0/0", "def call(args):\n    kernel_0(args[0], buf0)\n    return (buf0,)\n"});
  sink->compileDone("0/0");
  sink->output("done\n");
  sink->sessionEnd({.status = "ok", .totalMs = 12.5, .outputsJson = "{}"});
  return store.lastSessionId();
}

}  // namespace

int64_t appendTrainingSampleSession(storage::Store& store) {
  using K = ir::NodeKind;
  auto sink = store.beginSession();
  sink->sessionStart({"sample.py", kScript, R"({"backend": "inductor"})", "test", 1700000120000});
  sink->frame({0, "f", "sample.py", 4, "function", "def f(x): ..."});
  session::CompileEvent compile;
  compile.compileId = "0/0";
  compile.backend = "inductor";
  sink->compile(compile);
  sink->stage(stage("captured", 0, chain("torch.sin", "_operator.mul", "torch.relu", ""), true));
  sink->stage(stage("aten", 1, chain("aten.sin.default", "aten.mul.Tensor", "aten.relu.default", ""), true));
  sink->stage(stage("fused", 2, chain("aten.sin.default", "aten.mul.Tensor", "aten.relu.default", "kernel_0"), true));
  // The backward reuses ids 0..3 for other nodes: it must not share the forward's layout.
  for (const auto& [name, kernel, order] :
       {std::tuple<const char*, const char*, int>{"backward:aten", "", 3}, {"backward:fused", "bw_kernel_0", 4}}) {
    ir::Graph bw;
    bw.add(node(0, "primals_1", K::Placeholder, "primals_1", {}, 4));
    bw.add(node(1, "tangents_1", K::Placeholder, "tangents_1", {}, 0));
    bw.add(node(2, "cos", K::CallFunction, "aten.cos.default", {ir::Arg::ref(0)}, kSinLine, kernel));
    bw.add(node(3, "mul_1", K::CallFunction, "aten.mul.Tensor", {ir::Arg::ref(2), ir::Arg::ref(1)}, kSinLine, kernel));
    bw.add(node(4, "output", K::Output, "output", {ir::Arg::listOf({ir::Arg::ref(3)})}, 0));
    sink->stage(stage(name, order, std::move(bw), true));
  }
  sink->compileDone("0/0");
  sink->sessionEnd({.status = "ok", .totalMs = 10.0, .outputsJson = "{}"});
  return store.lastSessionId();
}

int64_t appendFailedCompileSampleSession(storage::Store& store) {
  auto sink = store.beginSession();
  sink->sessionStart({"sample.py", kScript, R"({"backend": "inductor"})", "test", 1700000180000});
  sink->frame({0, "g", "sample.py", 4, "function", "def g(x): ..."});
  sink->frame({1, "f", "sample.py", 4, "function", "def f(x): ..."});
  session::CompileEvent failed;
  failed.compileId = "0/0";
  failed.backend = "inductor";
  failed.status = "failed";
  failed.message = "Data-dependent branching";
  failed.file = "sample.py";
  failed.line = kFailedLine;
  failed.col = 4;
  failed.detail = "Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`).";
  sink->compile(failed);
  sink->compileDone("0/0");
  session::CompileEvent ok;
  ok.compileId = "1/0";
  ok.frameId = 1;
  ok.backend = "inductor";
  sink->compile(ok);
  session::StageEvent captured = stage("captured", 0, chain("torch.sin", "_operator.mul", "torch.relu", ""), true);
  captured.compileId = "1/0";
  sink->stage(captured);
  sink->compileDone("1/0");
  sink->sessionEnd({.status = "ok", .totalMs = 10.0, .outputsJson = "{}"});
  return store.lastSessionId();
}

SampleSession writeSampleSession(const std::string& dbPath) {
  SampleSession out;
  out.store = storage::Store::open(dbPath);
  out.sessionId = writeSession(*out.store, false);
  return out;
}

int64_t appendChangedSampleSession(storage::Store& store) { return writeSession(store, true); }

}  // namespace kiln::testing
