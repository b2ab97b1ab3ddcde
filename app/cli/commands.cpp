#include "app/cli/commands.h"
#include "app/cli/options.h"

#include "engine/codegen/cuda/cuda_source.h"
#include "engine/codegen/cuda/cuda_views.h"
#include "engine/codegen/kernel_compiler.h"
#include "engine/driver/explain.h"
#include "engine/driver/script_runner.h"
#include "engine/driver/verify.h"
#include "engine/session/kernel_gpu_text.h"
#include "engine/session/rule_steps.h"
#include "engine/session/tee_sink.h"
#include "storage/collective_text.h"
#include "storage/session_diff.h"
#include "storage/session_replay.h"
#include "storage/store.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace kiln::cli {

namespace {

std::unique_ptr<storage::Store> openStore(const Opts& o) {
  std::string path = one(o, "db");
  if (path.empty()) path = storage::defaultStorePath();
  return storage::Store::open(path);
}

int64_t sessionId(const std::string& text) {
  try {
    size_t used = 0;
    int64_t id = std::stoll(text, &used);
    if (used == text.size() && id > 0) return id;
  } catch (...) {}
  throw UsageError("'" + text + "' is not a SESSION id (see kiln sessions)");
}

// kiln run and explain record through this: a store that cannot take more (a full disk)
// stops the recording with this one warning, and the script runs on.
void warnRecordingStopped(const std::string& reason) {
  std::cerr << "kiln: warning: " << reason << "; the script goes on, and its session stays incomplete\n";
}

std::string when(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  std::ostringstream s;
  s << std::put_time(&tm, "%Y-%m-%d %H:%M:%S");
  return s.str();
}

}  // namespace

std::string usage() {
  return "kiln - a torch.compile-style compiler you can see inside\n\n"
         "usage:\n"
         "  kiln run SCRIPT [--db PATH] [--eager] [--dump-outputs DIR] [--logs NAMES] [--disable-pass NAME]... [--stop-after N]\n"
         "               [--profile N] [--progress] [--verify] [--timeout SECONDS] [--memory-limit SIZE] [--nproc-per-node N]\n"
         "               [--default-device cpu|cuda] [--backend NAME]\n"
         "      run a script; compiled regions are captured, compiled and recorded as a session; with --profile,\n"
         "      every compiled graph is then timed (eager vs compiled, per kernel; median of N runs) into the session;\n"
         "      --progress prints 'kiln-progress: PERCENT WHAT' lines to stderr as the script advances;\n"
         "      --verify checks every compiled graph call against the graph run eagerly; a difference is bisected to\n"
         "      the pass or fusion decision that introduced it, recorded in the session, and the run exits with 3;\n"
         "      --timeout stops the script after SECONDS (exit 124, session 'timed out'); --memory-limit caps what\n"
         "      it may allocate (bytes or 512M, 8G; default 80% of RAM: MemoryError / PyTorch's allocator error);\n"
         "      --default-device cuda runs the script after torch.set_default_device('cuda') (every factory on the GPU);\n"
         "      --backend NAME compiles with backend NAME where torch.compile names none (default inductor, Kiln's own\n"
         "      pipeline; see kiln backends, and plugins' backends with --plugin);\n"
         "      Ctrl-C raises KeyboardInterrupt in the script (exit 130, session 'interrupted'); output is kept\n"
         "      --nproc-per-node N starts N processes of the script as torchrun does (RANK, LOCAL_RANK, WORLD_SIZE,\n"
         "      MASTER_ADDR/PORT; torch.distributed's gloo backend), each its own session named 'SCRIPT rank R'\n"
         "  kiln explain SCRIPT|SESSION [--json] [--db PATH]\n"
         "      run a script and report what capture did: graphs, graph breaks, recompiles, guards\n"
         "  kiln bench SCRIPT|DIR [--eager] [--torch] [--repeat N] [--threads N]\n"
         "      time scripts in Kiln (eager, compiled) and with --torch under PyTorch CPU eager; then per compiled\n"
         "      frame: eager vs compiled, the cold compile by phase, and the slowest kernels' bandwidth vs memcpy\n"
         "  kiln diff SESSION_A SESSION_B [--json] [--db PATH]\n"
         "      compare two sessions: graphs, breaks, recompiles, guards, captured graphs, kernels\n"
         "  kiln sessions [--db PATH]\n"
         "      list the stored sessions, newest first\n"
         "  kiln search TEXT [--limit N] [--db PATH]\n"
         "      full-text search over scripts, captured code, stage IR, kernels and wrappers\n"
         "  kiln rename SESSION NAME [--db PATH]     kiln rm SESSION... [--db PATH]\n"
         "      name a session (shown by kiln sessions and the studio), or delete sessions\n"
         "  kiln show SESSION [--stage NAME [--rules]] [--db PATH]\n"
         "      print a session: its frames, stages and kernels, or one stage's IR (captured, aten,\n"
         "      pass:NAME, fused, kernels, llvm, asm, wrapper; cuda: the kernels as CUDA C++, compiled with NVRTC;\n"
         "      ptx, sass: what the GPU runs, per kernel with its launch, registers, shared memory and spills, as\n"
         "      recorded when it ran on a GPU, else made now from the kernel IR for sm_90 (SASS needs nvdisasm);\n"
         "      imported runs: aot_joint, aot_forward, aot_backward, post_grad...; artifacts, artifact:NAME;\n"
         "      collectives: torch.distributed's all_reduce / broadcast / barrier, one line each); with --rules, a\n"
         "      rule-table pass's rule applications instead of its IR, one per line: rule, where it is defined,\n"
         "      root, consumed and added nodes, replacement\n"
         "  kiln cuda FILE|- [--arch sm_XY] [--json]\n"
         "      kernel IR (kiln show --stage kernels) to what the GPU would run, without a GPU: CUDA C++, PTX with\n"
         "      line info, SASS (when nvdisasm is installed), the launch and ptxas's registers, shared memory, spills\n"
         "  kiln import PATH... [--importer NAME] [--name N] [--source-root DIR]... [--db PATH] [--json] [--progress]\n"
         "      import TORCH_TRACE logs of real PyTorch runs (files, plain or gzip, or folders of *.log): one session\n"
         "      per process with its graphs (Dynamo, AOT, post-grad), breaks, recompiles, guards, kernels and times;\n"
         "      --source-root finds the recorded source files here; exits 4 when some lines could not be read;\n"
         "      the importer is the one that recognises the first PATH (or --importer: see kiln plugins)\n"
         "  kiln report SESSION -o FILE.html [--db PATH]\n"
         "      write one self-contained HTML page about a session (also an imported one) to share: status, per compile\n"
         "      id its breaks (with the source line), recompiles, guards, stage texts, the final graph as SVG (when\n"
         "      Graphviz dot is on PATH), kernels and timings\n"
         "  kiln plugins     kiln backends\n"
         "      list what is registered (passes, importers, backends), built in and by each loaded plugin with its file;\n"
         "      list the backends torch.compile(backend=NAME) takes, with their descriptions\n"
         "  kiln store check [--db PATH]     kiln store repair [--db PATH] [--out NEW]\n"
         "      check a store (integrity, application id, schema, counts; exits 1 listing the problems), or copy what can\n"
         "      be read from a damaged store into a new one (default NAME.recovered.db); neither writes to the store\n\n"
         "Every command takes --plugin PATH (repeatable): load that plugin (a shared library built against Kiln's\n"
         "plugin API, plugins/README.md) first, as do the files and folders of *.so on KILN_PLUGIN_PATH (':'-separated).\n\n"
         "The default store is " +
         storage::defaultStorePath() + "\n";
}

int cmdRun(const std::vector<std::string>& args) {
  Opts o = parse(args,
                 {"db", "dump-outputs", "disable-pass", "stop-after", "logs", "profile", "timeout", "memory-limit", "nproc-per-node",
                  "default-device", "backend"},
                 {"eager", "progress", "verify"});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.positional.size() != 1) throw UsageError("expected exactly one SCRIPT");
  if (std::string n = one(o, "nproc-per-node"); !n.empty()) return launchRanks(args, std::stoi(n));
  driver::RunOptions ro;
  ro.scriptPath = o.positional[0];
  ro.eager = o.flags.count("eager") > 0;
  ro.verify = o.flags.count("verify") > 0;
  ro.handleSignals = true;
  if (std::string s = one(o, "timeout"); !s.empty()) ro.timeoutSeconds = std::stod(s);
  if (std::string s = one(o, "memory-limit"); !s.empty()) ro.memoryLimitBytes = std::stoull(s);
  if (std::string s = one(o, "default-device"); !s.empty()) {
    if (s != "cpu" && s != "cuda" && s.rfind("cuda:", 0) != 0) throw UsageError("--default-device takes cpu, cuda or cuda:N");
    ro.defaultDevice = s;
  }
  if (ro.verify && ro.eager) throw UsageError("--verify checks compiled graphs; it cannot be used with --eager");
  if (std::string s = one(o, "profile"); !s.empty()) {
    try {
      ro.profileRepeat = std::stoi(s);
    } catch (...) { throw UsageError("--profile needs a number of runs"); }
    if (ro.profileRepeat < 1 || ro.profileRepeat > 1000) throw UsageError("--profile takes 1 to 1000 runs");
  }
  // Machine-readable progress on stderr for the studio: "kiln-progress: PERCENT WHAT".
  if (o.flags.count("progress"))
    ro.progress = [](int percent, const std::string& what) { std::cerr << "kiln-progress: " << percent << " " << what << std::endl; };
  if (o.values.count("disable-pass"))
    for (const auto& p : o.values.at("disable-pass")) ro.passes.disabled.insert(p);
  if (std::string s = one(o, "backend"); !s.empty()) ro.backend = s;
  if (std::string s = one(o, "stop-after"); !s.empty()) {
    try {
      ro.passes.stopAfter = std::stoi(s);
    } catch (...) { throw UsageError("--stop-after needs a number"); }
  }
  auto store = openStore(o);
  auto sink = store->beginSession(warnRecordingStopped);
  driver::ExplainReport report;
  session::TeeSink tee({sink.get(), &report});
  driver::RunResult r = driver::runScript(ro, tee, std::cout);
  std::cout.flush();
  sink.reset();
  int64_t id = store->lastSessionId();
  if (std::string name = rankSessionName(ro.scriptPath); id != 0 && !name.empty()) store->renameSession(id, name);
  // TORCH_LOGS-style output goes to stderr, as PyTorch's logging does.
  if (std::string logs = one(o, "logs"); !logs.empty()) std::cerr << report.logs(logs);
  if (!r.error.empty()) std::cerr << r.error;
  if (std::string dir = one(o, "dump-outputs"); !dir.empty() && r.exitCode == 0) {
    std::filesystem::create_directories(dir);
    std::ofstream f(std::filesystem::path(dir) / "outs.json");
    f << r.outputsJson << "\n";
    if (!f) {
      std::cerr << "kiln: could not write " << dir << "/outs.json\n";
      return 1;
    }
  }
  if (id != 0) std::cout << "session " << id << "\n";  // 0: the store could not even take its first row
  if (r.verify) {
    const driver::VerifyStats& v = *r.verify;
    std::cerr << "kiln verify: " << v.graphs << " compiled graph" << (v.graphs == 1 ? "" : "s") << ", " << v.calls << " call"
              << (v.calls == 1 ? "" : "s") << " checked against eager, " << v.mismatches << " differ" << (v.mismatches == 1 ? "s" : "")
              << "\n";
    for (const auto& line : v.reports) std::cerr << "  " << line << "\n";
    if (v.mismatches > 0 && r.exitCode == 0) return 3;
  }
  return r.exitCode;
}

int cmdExplain(const std::vector<std::string>& args) {
  Opts o = parse(args, {"db"}, {"json"});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.positional.size() != 1) throw UsageError("expected exactly one SCRIPT");
  // A stored session (an imported PyTorch run, say) explains from the store: `kiln explain 12`.
  const std::string& arg = o.positional[0];
  std::error_code ec;
  if (!arg.empty() && arg.find_first_not_of("0123456789") == std::string::npos && !std::filesystem::exists(arg, ec)) {
    auto store = openStore(o);
    driver::ExplainReport report;
    storage::replaySession(*store, sessionId(arg), report);
    std::cout << (o.flags.count("json") ? report.json() + "\n" : report.text());
    return 0;
  }
  driver::RunOptions ro;
  ro.scriptPath = o.positional[0];
  auto store = openStore(o);
  auto sink = store->beginSession(warnRecordingStopped);
  driver::ExplainReport report;
  session::TeeSink tee({sink.get(), &report});
  // The script's own printing goes to stderr so that stdout holds only the report.
  driver::RunResult r = driver::runScript(ro, tee, std::cerr);
  sink.reset();
  if (!r.error.empty()) std::cerr << r.error;
  std::cout << (o.flags.count("json") ? report.json() + "\n" : report.text());
  return r.exitCode;
}

int cmdDiff(const std::vector<std::string>& args) {
  Opts o = parse(args, {"db"}, {"json"});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.positional.size() != 2) throw UsageError("expected two SESSION ids");
  int64_t a = sessionId(o.positional[0]), b = sessionId(o.positional[1]);
  auto store = openStore(o);
  storage::SessionDiff d = storage::diffSessions(*store, a, b);
  std::cout << (o.flags.count("json") ? d.json() + "\n" : d.text());
  return 0;
}

int cmdSessions(const std::vector<std::string>& args) {
  Opts o = parse(args, {"db"}, {});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (!o.positional.empty()) throw UsageError("takes no arguments, not '" + o.positional[0] + "'");
  auto store = openStore(o);
  auto list = store->sessions();
  if (list.empty()) {
    std::cout << "no sessions in " << store->path() << "\n";
    return 0;
  }
  size_t nameWidth = 4;  // the longest name, so the script column never runs into it
  for (const auto& s : list) nameWidth = std::max(nameWidth, s.name.size());
  std::cout << std::left << std::setw(6) << "id" << std::setw(21) << "started" << std::setw(15) << "status" << std::setw(8) << "graphs"
            << std::setw(8) << "breaks" << std::setw(11) << "recompiles" << std::setw(static_cast<int>(nameWidth)) << "name"
            << " script\n";
  for (const auto& s : list)
    std::cout << std::left << std::setw(6) << s.id << std::setw(21) << when(s.startedAtMs) << std::setw(15) << s.status << std::setw(8)
              << s.graphCount << std::setw(8) << s.breakCount << std::setw(11) << s.recompileCount << std::setw(static_cast<int>(nameWidth))
              << s.name << " " << s.scriptPath << "\n";
  return 0;
}

int cmdSearch(const std::vector<std::string>& args) {
  Opts o = parse(args, {"db", "limit"}, {});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.positional.empty()) throw UsageError("expected TEXT to search for");
  std::string text;
  for (const auto& p : o.positional) text += (text.empty() ? "" : " ") + p;
  int limit = 50;
  if (std::string s = one(o, "limit"); !s.empty()) {
    try {
      limit = std::stoi(s);
    } catch (...) { throw UsageError("--limit needs a number"); }
  }
  auto store = openStore(o);
  auto hits = store->search(text, limit);
  if (hits.empty()) {
    std::cout << "no matches for '" << text << "' in " << store->path() << "\n";
    return 1;  // as grep: scripts can test for a match
  }
  for (const auto& h : hits) {
    std::string snippet = h.snippet;
    std::replace(snippet.begin(), snippet.end(), '\n', ' ');
    std::cout << "session " << h.sessionId << "  " << h.kind << (h.ref.empty() ? "" : " " + h.ref) << ": " << snippet << "\n";
  }
  return 0;
}

int cmdRename(const std::vector<std::string>& args) {
  Opts o = parse(args, {"db"}, {});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.positional.size() != 2) throw UsageError("expected SESSION and NAME");
  int64_t id = sessionId(o.positional[0]);
  sessionName(o.positional[1]);
  auto store = openStore(o);
  store->renameSession(id, o.positional[1]);
  std::cout << "session " << id << " is now '" << o.positional[1] << "'\n";
  return 0;
}

int cmdRm(const std::vector<std::string>& args) {
  Opts o = parse(args, {"db"}, {});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.positional.empty()) throw UsageError("expected one or more SESSION ids");
  std::vector<int64_t> ids;
  for (const auto& p : o.positional) ids.push_back(sessionId(p));  // all valid before any is deleted
  auto store = openStore(o);
  for (int64_t id : ids) {
    store->deleteSession(id);
    std::cout << "deleted session " << id << "\n";
  }
  return 0;
}

namespace {

// kiln show --rules: a rule-table pass's applications, one per line, node names from the stage
// before it (the pass's input) and the stage itself (its output).
void printRuleApplications(storage::Store& store, const storage::StageRow& st, const storage::StageRow* previous) {
  const std::vector<session::RuleApplication> apps = store.ruleApplications(st.id);
  std::cout << "# [" << st.compileId << "] " << st.stage << ": " << apps.size() << " rule application" << (apps.size() == 1 ? "" : "s");
  if (apps.empty()) {
    std::cout << " (not a rule-table pass, nothing fired, or a store from before schema 11)\n";
    return;
  }
  std::cout << "\n";
  const ir::Graph after = store.stageGraph(st.id);
  const ir::Graph before = previous ? store.stageGraph(previous->id) : ir::Graph{};
  for (size_t k = 0; k < apps.size(); ++k) std::cout << session::ruleApplicationLine(before, after, apps[k], k + 1) << "\n";
}

}  // namespace

int cmdShow(const std::vector<std::string>& args) {
  Opts o = parse(args, {"db", "stage", "compile"}, {"rules"});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.positional.size() != 1) throw UsageError("expected exactly one SESSION id");
  int64_t id = sessionId(o.positional[0]);
  auto store = openStore(o);
  auto s = store->session(id);
  if (!s) {
    std::cerr << "kiln show: no session " << id << " in " << store->path() << "\n";
    return 1;
  }
  std::string stage = one(o, "stage");
  std::string wantCompile = one(o, "compile");
  auto compiles = store->compiles(id);
  if (stage.empty()) {
    std::cout << "session " << id << ": " << s->summary.scriptPath << " (" << s->summary.status << ", " << std::fixed
              << std::setprecision(1) << s->summary.totalMs << " ms)\n";
    for (const auto& f : store->frames(id))
      std::cout << "frame " << f.frameId << ": " << f.name << " (" << f.file << ":" << f.firstLine << ")\n";
    const auto profiles = store->profiles(id);
    const auto autotunes = store->autotuneChoices(id);
    for (const auto& c : compiles) {
      std::cout << "  [" << c.compileId << "] backend=" << c.backend << " status=" << c.status
                << (c.message.empty() ? "" : " (" + c.message + ")") << "\n";
      for (const auto& st : store->stages(id, c.compileId))
        std::cout << "    stage " << std::left << std::setw(16) << st.stage << (st.changed ? "" : " (unchanged)") << "\n";
      const session::ProfileEvent* prof = nullptr;
      for (const auto& p : profiles)
        if (p.compileId == c.compileId) prof = &p;
      if (prof)
        std::cout << "    profile: eager " << std::setprecision(3) << prof->eagerMs << " ms, compiled " << prof->compiledMs << " ms ("
                  << std::setprecision(2) << (prof->compiledMs > 0 ? prof->eagerMs / prof->compiledMs : 0.0) << "x), median of "
                  << prof->repeat << " runs\n";
      for (const auto& k : store->kernels(id, c.compileId)) {
        std::cout << "    kernel " << k.name;
        if (prof)
          for (const auto& pk : prof->kernels)
            if (pk.name == k.name) std::cout << "  " << std::setprecision(4) << pk.ms << " ms";
        std::cout << "\n";
      }
      // mode="max-autotune": each product's candidates, the chosen one marked with '*'.
      for (const auto& a : autotunes) {
        if (a.compileId != c.compileId) continue;
        std::cout << "    autotune " << a.node << ": " << a.problem << (a.cached ? " (cached)" : "") << "\n";
        for (const auto& cand : a.candidates) {
          std::cout << "      " << (cand.chosen ? "* " : "  ") << std::left << std::setw(9) << cand.algo << std::right;
          if (cand.ms >= 0) std::cout << " " << std::setprecision(4) << cand.ms << " ms\n";
          else std::cout << " n/a: " << cand.note << "\n";
        }
      }
    }
    for (const auto& b : store->graphBreaks(id))
      std::cout << "graph break " << b.code << " at " << b.file << ":" << b.line << ": " << b.title << "\n";
    for (const auto& r : store->recompiles(id))
      for (const auto& reason : r.reasons) std::cout << "recompile [" << r.compileId << "]: " << reason << "\n";
    // Records an importer kept as they came; its problems are listed here in full.
    const auto artifacts = store->artifacts(id);
    size_t problems = 0;
    for (const auto& a : artifacts)
      if (a.name == "import problem") {
        std::cout << "import problem: " << a.text << "\n";
        ++problems;
      }
    if (!artifacts.empty())
      std::cout << "artifacts: " << artifacts.size() << " (" << problems << " import problems; kiln show " << id << " --stage artifacts)\n";
    if (const auto collectives = store->collectives(id); !collectives.empty())
      std::cout << "collectives: " << collectives.size() << " (kiln show " << id << " --stage collectives)\n";
    if (!s->error.empty()) std::cout << "error:\n" << s->error;
    return 0;
  }
  if (stage == "artifacts" || stage.rfind("artifact:", 0) == 0) {
    // The list (one line each), or every artifact of one name in full.
    const std::string name = stage == "artifacts" ? "" : stage.substr(9);
    bool any = false;
    for (const auto& a : store->artifacts(id)) {
      if (!wantCompile.empty() && a.compileId != wantCompile) continue;
      if (!name.empty() && a.name != name) continue;
      any = true;
      std::cout << (a.compileId.empty() ? "" : "[" + a.compileId + "] ") << a.name
                << (a.line ? " (line " + std::to_string(a.line) + ")" : "");
      if (name.empty()) {
        std::string first = a.text.substr(0, a.text.find('\n'));
        std::cout << ": " << (first.size() > 100 ? first.substr(0, 99) + "..." : first) << "\n";
      } else {
        std::cout << "\n" << a.text << "\n";
      }
    }
    if (!any) {
      std::cerr << "kiln show: session " << id << " has no artifact" << (name.empty() ? "s" : " named '" + name + "'") << "\n";
      return 1;
    }
    return 0;
  }
  if (stage == "collectives") {
    // One line per torch.distributed collective, in issue order.
    const auto collectives = store->collectives(id);
    if (collectives.empty()) {
      std::cerr << "kiln show: session " << id << " has no collectives (torch.distributed was not used)\n";
      return 1;
    }
    for (const auto& c : collectives)
      std::cout << "#" << c.seq << " " << storage::collectiveSummary(c) << " (" << storage::collectiveDetails(c) << ")\n";
    return 0;
  }
  bool explained = false;  // ptx / sass: a kernel had none, and the reason was printed
  bool found = false;
  for (const auto& c : compiles) {
    if (!wantCompile.empty() && c.compileId != wantCompile) continue;
    if (stage == "kernels" || stage == "llvm" || stage == "asm") {
      for (const auto& k : store->kernels(id, c.compileId)) {
        // Imported kernels have no kernel IR: their source (Triton or C++) is what there is.
        const std::string& text = stage == "kernels" ? (k.kernelIr.empty() ? k.source : k.kernelIr)
                                  : stage == "llvm"  ? k.llvmIr
                                                     : k.assembly;
        std::cout << "# [" << c.compileId << "] " << k.name << "\n" << text << "\n";
        found = true;
      }
      continue;
    }
    if (stage == "cuda") {  // the stored kernel IR through the CUDA backend, now
      std::vector<kir::Kernel> ks;
      for (const auto& k : store->kernels(id, c.compileId)) ks.push_back(kir::parseKernel(k.kernelIr));
      if (ks.empty()) continue;
      std::cout << "# [" << c.compileId << "] CUDA C++\n" << codegen::cuda::cudaSource(ks);
      std::string why;
      if (auto nvrtc = codegen::makeCudaCompiler(&why)) {
        auto m = nvrtc->compile(ks, "graph_" + c.compileId);
        size_t bytes = 0;
        for (const auto& k : m->kernels) bytes += k.assembly.size();
        std::cout << "// NVRTC: " << m->kernels.size() << " kernels compiled to PTX (" << bytes << " bytes)\n";
      } else {
        std::cout << "// not compiled: " << why << "\n";
      }
      found = true;
      continue;
    }
    if (stage == "ptx" || stage == "sass") {
      // Recorded when the kernels ran on a GPU; else made now from the stored kernel IR, as the
      // GPU would run them (no GPU needed: NVRTC, and nvdisasm for SASS).
      auto rows = store->kernels(id, c.compileId);
      if (rows.empty()) continue;
      bool recorded = true;
      for (const auto& k : rows) recorded = recorded && !k.gpu.ptx.empty();
      std::vector<session::KernelGpuInfo> infos;
      std::string how = "recorded when it ran";
      if (recorded) {
        for (const auto& k : rows) infos.push_back(k.gpu);
      } else {
        try {
          std::vector<kir::Kernel> ks;
          for (const auto& k : rows) ks.push_back(kir::parseKernel(k.kernelIr));  // imported kernels have none: throws
          const codegen::cuda::CudaViews v = codegen::cuda::cudaViews(ks);
          for (size_t i = 0; i < v.kernels.size(); ++i) infos.push_back(codegen::cuda::gpuInfo(v, i));
          how = "made now from the kernel IR for " + v.arch;
        } catch (const std::exception& e) {
          std::cerr << "kiln show: [" << c.compileId << "] no " << stage << ": " << e.what() << "\n";
          explained = true;
          continue;
        }
      }
      for (size_t i = 0; i < rows.size() && i < infos.size(); ++i) {
        const auto& g = infos[i];
        const std::string& text = stage == "ptx" ? g.ptx : g.sass;
        std::cout << "# [" << c.compileId << "] " << rows[i].name << " (" << how << ")\n// " << session::gpuSummary(g) << "\n";
        if (!text.empty()) {
          std::cout << text << "\n";
          found = true;
        } else {
          explained = true;
          std::cerr << "kiln show: no " << stage << " for " << rows[i].name << (g.notes.empty() ? "\n" : ": " + g.notes);
        }
      }
      continue;
    }
    if (stage == "wrapper") {
      std::string w = store->wrapperText(id, c.compileId);
      if (!w.empty()) {
        std::cout << "# [" << c.compileId << "] wrapper\n" << w;
        found = true;
      }
      continue;
    }
    if (stage == "transformed") {
      std::cout << "# [" << c.compileId << "] transformed code\n" << c.transformedCode;
      found = true;
      continue;
    }
    const std::vector<storage::StageRow> stages = store->stages(id, c.compileId);
    for (size_t i = 0; i < stages.size(); ++i) {
      const storage::StageRow& st = stages[i];
      if (st.stage != stage && st.stage != "pass:" + stage) continue;
      if (o.flags.count("rules")) {
        printRuleApplications(*store, st, i ? &stages[i - 1] : nullptr);
        found = true;
        continue;
      }
      std::cout << "# [" << c.compileId << "] " << st.stage;
      if (!st.rules.empty()) {
        std::cout << "  rules:";
        for (const auto& r : st.rules) std::cout << " " << r.rule << " (x" << r.count << ")";
      }
      std::cout << "\n" << store->stageText(st.id);
      found = true;
    }
  }
  if (!found && explained) return 1;  // why is said above (no NVRTC, no nvdisasm, no kernel IR)
  if (!found) {
    std::cerr << "kiln show: session " << id << " has no stage '" << stage << "'";
    std::cerr << " (stages: captured, aten, pass:<name>, fused, kernels, llvm, asm, cuda, ptx, sass, wrapper, transformed, artifacts,"
                 " artifact:<name>, collectives; imported: aot_joint, aot_forward, aot_backward, aot_inference, pre_grad, post_grad...)\n";
    return 1;
  }
  return 0;
}

}  // namespace kiln::cli
