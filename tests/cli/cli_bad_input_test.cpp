// Every kiln command with bad input, through the built executable: each case is a command line,
// the exit code it must give and text its stderr must hold (usage errors exit 2 and name the
// command; a script, file or session that cannot be used exits 1). A few good inputs next to
// the bad ones check that validation refuses only what it should. One ctest per case.
#include "tests/cli/run_kiln.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <filesystem>
#include <map>
#include <tuple>

namespace kiln {
namespace {

namespace fs = std::filesystem;

using test::KilnRun;
using test::runKiln;

// Each case runs in its own directory (ctest runs cases in parallel), holding a script that
// compiles (good.py), a cache directory anyone can write (open_cache) and, when the case names
// {store}, a store whose session 1 is a run of good.py.
fs::path workDir(const std::string& name) { return fs::path(KILN_BINARY_DIR) / "tests/cli/work" / name; }

struct Case {
  const char* name;
  // {work}: the case's directory; {db}: a store there (absent until a command makes it);
  // {store}: a store there holding session 1.
  std::vector<std::string> args;
  int exitCode;
  std::vector<std::string> err;  // each must appear in stderr
  std::string out = "";          // must appear in stdout
  std::map<std::string, std::string> env = {};
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string expand(std::string s, const fs::path& dir) {
  const std::string work = dir.string();
  for (auto [from, to] : {std::pair<std::string, std::string>{"{work}", work}, {"{db}", work + "/s.db"}, {"{store}", work + "/s.db"}})
    for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
  return s;
}

const std::string kPasses = "(passes: decompose, constant_fold, simplify, fold_conv_bn, addmm, cse, dce, fuse)";
const std::string kLogs = "(logs: graph_breaks, recompiles, recompiles_verbose, guards, graph_code)";

const std::vector<Case> kCases = {
    // kiln itself
    {"no_arguments", {}, 2, {}, "usage:"},
    {"unknown_command", {"frobnicate"}, 2, {"kiln: unknown command 'frobnicate'"}},
    // kiln cuda-views: kiln run's views child (engine/driver/kernel_views_child.h); stdin is empty here
    {"cuda_views_arguments", {"cuda-views", "x"}, 2, {"kiln cuda-views: takes no arguments"}},
    {"cuda_views_no_request", {"cuda-views"}, 1, {"kiln: not a kernel views request", "nothing"}},
    // kiln run: the script
    {"run_directory", {"run", "{work}/", "--db", "{db}"}, 1, {"kiln: can't open file '{work}/': Is a directory"}},
    {"run_missing_script",
     {"run", "{work}/nosuch.py", "--db", "{db}"},
     1,
     {"can't open file '{work}/nosuch.py': No such file or directory"}},
    {"run_endless_file", {"run", "/dev/zero", "--db", "{db}"}, 1, {"can't open file '/dev/zero': larger than 64 MiB, not a script"}},
    {"run_no_script", {"run"}, 2, {"kiln run: expected exactly one SCRIPT", "(see kiln run --help)"}},
    {"run_two_scripts", {"run", "{work}/good.py", "{work}/good.py"}, 2, {"expected exactly one SCRIPT"}},
    // kiln run: options
    {"run_unknown_option", {"run", "{work}/good.py", "--frobnicate"}, 2, {"kiln run: unknown option '--frobnicate'"}},
    {"run_option_typo",
     {"run", "{work}/good.py", "--disable-passes", "cse"},
     2,
     {"unknown option '--disable-passes'; did you mean '--disable-pass'?"}},
    {"run_flag_given_a_value", {"run", "{work}/good.py", "--eager=1"}, 2, {"--eager takes no value"}},
    {"run_value_missing", {"run", "{work}/good.py", "--db"}, 2, {"--db needs a value"}},
    {"run_db_empty", {"run", "{work}/good.py", "--db="}, 2, {"--db needs a value"}},
    {"run_disable_unknown_pass",
     {"run", "{work}/good.py", "--disable-pass", "nosuch"},
     2,
     {"kiln run: --disable-pass: no pass named 'nosuch' " + kPasses}},
    {"run_unknown_backend",
     {"run", "{work}/good.py", "--backend", "inductr"},
     2,
     {"kiln run: --backend: no backend named 'inductr'; did you mean 'inductor'? (backends: aot_eager, eager, inductor; a plugin's "
      "backend needs --plugin)"}},
    {"run_disable_pass_typo",
     {"run", "{work}/good.py", "--disable-pass", "csee"},
     2,
     {"no pass named 'csee'; did you mean 'cse'? " + kPasses}},
    {"run_disable_pass_not_utf8", {"run", "{work}/good.py", "--disable-pass", "\xff\xfe"}, 2, {"no pass named '\xff\xfe'"}},
    {"run_logs_unknown", {"run", "{work}/good.py", "--logs", "nosuch"}, 2, {"--logs: 'nosuch' is not a log Kiln supports " + kLogs}},
    {"run_logs_typo",
     {"run", "{work}/good.py", "--logs", "graph_code,graph_break"},
     2,
     {"'graph_break' is not a log Kiln supports; did you mean 'graph_breaks'?"}},
    {"run_logs_empty", {"run", "{work}/good.py", "--logs", ","}, 2, {"--logs needs one or more of: graph_breaks"}},
    {"run_stop_after_negative",
     {"run", "{work}/good.py", "--stop-after", "-1"},
     2,
     {"--stop-after takes a pass index from 0 to 7, not -1 (passes: 0 decompose, 1 constant_fold"}},
    {"run_stop_after_past_the_end", {"run", "{work}/good.py", "--stop-after", "8"}, 2, {"from 0 to 7, not 8"}},
    {"run_stop_after_not_a_number", {"run", "{work}/good.py", "--stop-after", "1x"}, 2, {"from 0 to 7, not '1x'"}},
    {"run_stop_after_huge", {"run", "{work}/good.py", "--stop-after", "99999999999999999999999"}, 2, {"not '99999999999999999999999'"}},
    {"run_stop_after_pass_typo",
     {"run", "{work}/good.py", "--stop-after", "simplfy"},
     2,
     {"--stop-after: no pass named 'simplfy'; did you mean 'simplify'?"}},
    {"run_profile_zero", {"run", "{work}/good.py", "--profile", "0"}, 2, {"--profile takes a number of runs from 1 to 1000, not 0"}},
    {"run_verify_with_eager", {"run", "{work}/good.py", "--verify", "--eager"}, 2, {"cannot be used with --eager"}},
    {"run_dump_outputs_to_a_file",
     {"run", "{work}/good.py", "--dump-outputs", "{work}/good.py"},
     2,
     {"--dump-outputs: '{work}/good.py' exists and is not a directory"}},
    // kiln run: good input the checks must let through
    {"run_stop_after_by_name_ok", {"run", "{work}/good.py", "--db", "{db}", "--stop-after", "simplify"}, 0, {}, "session "},
    {"run_logs_with_spaces_ok",
     {"run", "{work}/good.py", "--db", "{db}", "--logs", "graph_code, guards"},
     0,
     {"[__graph_code] TRACED GRAPH", "[__guards] GUARDS:"}},
    {"run_cache_dir_writable_by_others",
     {"run", "{work}/good.py", "--db", "{db}"},
     0,
     {"kiln: warning: kernel cache: {work}/open_cache is writable by group or others (mode 0777; chmod go-w it, or remove it); "
      "compiling without the disk cache"},
     "session ",
     {{"KILN_CACHE_DIR", "{work}/open_cache"}}},
    // kiln explain
    {"explain_directory", {"explain", "{work}", "--db", "{db}"}, 1, {"can't open file '{work}': Is a directory"}},
    {"explain_no_script", {"explain"}, 2, {"kiln explain: expected exactly one SCRIPT"}},
    {"explain_stored_session_ok", {"explain", "1", "--json", "--db", "{store}"}, 0, {}, "\"graph_count\": 1"},
    {"explain_missing_session", {"explain", "99", "--db", "{store}"}, 1, {"kiln: no session 99 in {work}/s.db"}},
    {"explain_unknown_option", {"explain", "{work}/good.py", "--jsn"}, 2, {"unknown option '--jsn'; did you mean '--json'?"}},
    // kiln bench
    {"bench_no_script", {"bench"}, 2, {"kiln bench: expected a SCRIPT or a directory of scripts"}},
    {"bench_repeat_not_a_number",
     {"bench", "{work}/good.py", "--repeat", "abc"},
     2,
     {"--repeat takes a number of runs from 1 to 1000, not 'abc'"}},
    {"bench_threads_zero", {"bench", "{work}/good.py", "--threads", "0"}, 2, {"--threads takes a number of threads from 1 to 1024, not 0"}},
    // kiln diff
    {"diff_one_session", {"diff", "1", "--db", "{db}"}, 2, {"kiln diff: expected two SESSION ids"}},
    {"diff_not_ids", {"diff", "one", "two", "--db", "{db}"}, 2, {"'one' is not a SESSION id"}},
    {"diff_missing_session", {"diff", "1", "99", "--db", "{store}"}, 1, {"no session 99"}},
    // kiln sessions
    {"sessions_extra_argument", {"sessions", "extra", "--db", "{db}"}, 2, {"kiln sessions: takes no arguments, not 'extra'"}},
    {"sessions_store_is_a_directory", {"sessions", "--db", "{work}"}, 1, {"{work}"}},
    {"sessions_store_is_not_a_store", {"sessions", "--db", "{work}/good.py"}, 1, {"good.py"}},
    // kiln search
    {"search_no_text", {"search", "--db", "{db}"}, 2, {"kiln search: expected TEXT to search for"}},
    {"search_limit_zero",
     {"search", "x", "--limit", "0", "--db", "{db}"},
     2,
     {"--limit takes a number of matches from 1 to 100000, not 0"}},
    {"search_limit_not_a_number", {"search", "x", "--limit", "ten", "--db", "{db}"}, 2, {"not 'ten'"}},
    {"search_text_after_double_dash_ok", {"search", "--db", "{store}", "--", "--nosuchtext"}, 1, {}, "no matches for '--nosuchtext'"},
    // kiln rename
    {"rename_empty_name", {"rename", "1", "", "--db", "{db}"}, 2, {"kiln rename: a session NAME cannot be empty"}},
    {"rename_blank_name", {"rename", "1", "   ", "--db", "{db}"}, 2, {"a session NAME cannot be empty"}},
    {"rename_name_with_newline", {"rename", "1", "two\nlines", "--db", "{db}"}, 2, {"a session NAME cannot hold control characters"}},
    {"rename_name_not_utf8", {"rename", "1", "caf\xe9", "--db", "{db}"}, 2, {"a session NAME must be UTF-8 text"}},
    {"rename_name_too_long",
     {"rename", "1", std::string(201, 'n'), "--db", "{db}"},
     2,
     {"a session NAME is at most 200 bytes (this one has 201)"}},
    {"rename_no_name", {"rename", "1", "--db", "{db}"}, 2, {"expected SESSION and NAME"}},
    {"rename_bad_id", {"rename", "first", "x", "--db", "{db}"}, 2, {"'first' is not a SESSION id"}},
    {"rename_missing_session", {"rename", "99", "x", "--db", "{store}"}, 1, {"99"}},
    {"rename_unicode_name_ok", {"rename", "1", "café ✓ baseline", "--db", "{store}"}, 0, {}, "session 1 is now 'café ✓ baseline'"},
    // kiln rm
    {"rm_no_ids", {"rm", "--db", "{db}"}, 2, {"kiln rm: expected one or more SESSION ids"}},
    {"rm_zero", {"rm", "0", "--db", "{db}"}, 2, {"'0' is not a SESSION id"}},
    {"rm_negative", {"rm", "-3", "--db", "{db}"}, 2, {"'-3' is not a SESSION id"}},
    // kiln show
    {"show_no_id", {"show", "--db", "{db}"}, 2, {"kiln show: expected exactly one SESSION id"}},
    {"show_bad_id", {"show", "1.5", "--db", "{db}"}, 2, {"'1.5' is not a SESSION id"}},
    {"show_missing_session", {"show", "99", "--db", "{store}"}, 1, {"kiln show: no session 99"}},
    {"show_unknown_stage", {"show", "1", "--stage", "nosuch", "--db", "{store}"}, 1, {"has no stage 'nosuch'"}},
    {"show_empty_stage", {"show", "1", "--stage", "", "--db", "{db}"}, 2, {"--stage needs a value"}},
    {"show_no_artifacts", {"show", "1", "--stage", "artifacts", "--db", "{store}"}, 1, {"kiln show: session 1 has no artifacts"}},
    // kiln import
    {"import_nothing", {"import", "--db", "{db}"}, 2, {"kiln import: expected a TORCH_TRACE log file or a folder of them"}},
    {"import_missing_path", {"import", "{work}/nosuch.log", "--db", "{db}"}, 1, {"kiln: '{work}/nosuch.log' does not exist"}},
    {"import_folder_without_logs", {"import", "{work}/open_cache", "--db", "{db}"}, 1, {"holds no TORCH_TRACE log (*.log or *.log.gz)"}},
    {"import_source_root_not_a_folder",
     {"import", "{work}/good.py", "--source-root", "{work}/good.py"},
     2,
     {"--source-root '{work}/good.py' is not a folder"}},
    {"import_empty_name", {"import", "{work}/good.py", "--name", "", "--db", "{db}"}, 2, {"--name needs a value"}},
    {"import_option_typo", {"import", "{work}/good.py", "--source-roots", "x"}, 2, {"did you mean '--source-root'?"}},
    // A file that is not a log imports as a session holding its problems, and says so (exit 4).
    {"import_not_a_log",
     {"import", "{work}/good.py", "--db", "{db}"},
     4,
     {"kiln import: line 1 of {work}/good.py: not a TORCH_TRACE record"},
     "session 1: "},
    {"import_real_log_ok",
     {"import", std::string(KILN_SHARED_DIR) + "/fixtures/torch_trace/cpu/gb_explicit_graph_break", "--db", "{db}"},
     0,
     {},
     "1 graph breaks, 0 recompiles"},
};

class CliBadInput : public ::testing::TestWithParam<Case> {};

TEST_P(CliBadInput, ExitCodeAndMessage) {
  const Case& c = GetParam();
  const fs::path dir = workDir(c.name);
  fs::remove_all(dir);
  fs::create_directories(dir / "open_cache");
  fs::permissions(dir / "open_cache", fs::perms::all);
  test::writeFile((dir / "good.py").string(),
                  "import torch\n\n@torch.compile\ndef f(x):\n    return x.sin() + 1\n\nout = f(torch.ones(8))\n");
  bool wantsStore = false;
  for (const auto& a : c.args) wantsStore |= a.find("{store}") != std::string::npos;
  if (wantsStore) {
    KilnRun setup = runKiln({"run", (dir / "good.py").string(), "--db", (dir / "s.db").string()}, dir);
    ASSERT_EQ(setup.exitCode, 0) << "making the store failed:\n" << setup.err;
  }
  std::vector<std::string> args;
  for (const auto& a : c.args) args.push_back(expand(a, dir));
  std::map<std::string, std::string> env;
  for (const auto& [k, v] : c.env) env[k] = expand(v, dir);
  KilnRun r = runKiln(args, dir, env);
  EXPECT_EQ(r.exitCode, c.exitCode) << "stderr:\n" << r.err << "stdout:\n" << r.out;
  for (const auto& e : c.err)
    EXPECT_NE(r.err.find(expand(e, dir)), std::string::npos) << "stderr:\n" << r.err << "\nexpected to contain:\n" << expand(e, dir);
  if (!c.out.empty()) { EXPECT_NE(r.out.find(expand(c.out, dir)), std::string::npos) << "stdout:\n" << r.out; }
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Cases, CliBadInput, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// raise SystemExit(code) ends the script as Python does: no traceback; None is status 0 (the
// session ends ok), an int is the status, anything else is printed on stderr with status 1.
TEST(CliOutputs, SystemExitSetsTheExitStatus) {
  const fs::path dir = fs::path(KILN_BINARY_DIR) / "tests/cli/work_system_exit";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (auto [code, status, err] : {std::tuple<const char*, int, const char*>{"", 0, ""},
                                   {"None", 0, ""},
                                   {"0", 0, ""},
                                   {"3", 3, ""},
                                   {"'bad input'", 1, "bad input\n"}}) {
    test::writeFile((dir / "exit.py").string(), std::string("print('before')\nraise SystemExit(") + code + ")\nprint('after')\n");
    KilnRun r = runKiln({"run", (dir / "exit.py").string(), "--db", (dir / "s.db").string()}, dir);
    EXPECT_EQ(r.exitCode, status) << code << "\n" << r.err;
    EXPECT_NE(r.out.find("before"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("after"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
    if (*err) { EXPECT_NE(r.err.find(err), std::string::npos) << r.err; }
  }
}

// --dump-outputs with strings that are not valid UTF-8 (a lone surrogate, which Kiln holds as
// its 3-byte encoding, and a raw byte from a Latin-1 source file): the run succeeds and outs.json
// is valid JSON, each byte that is not valid UTF-8 written as U+FFFD.
TEST(CliOutputs, DumpOutputsWithInvalidUtf8) {
  const fs::path dir = fs::path(KILN_BINARY_DIR) / "tests/cli/work_dump";
  fs::remove_all(dir);
  fs::create_directories(dir);
  test::writeFile((dir / "strings.py").string(),
                  "import torch\nout = 'a' + chr(0xdcff) + 'b'\nout_1 = ['x\xffy', 'ok']\nout_2 = 'caf\xc3\xa9'\n");
  KilnRun r =
      runKiln({"run", (dir / "strings.py").string(), "--db", (dir / "s.db").string(), "--dump-outputs", (dir / "outs").string()}, dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string text = test::readFile((dir / "outs/outs.json").string());
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(text)) << text;
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(j["out"], "a" + fffd + fffd + fffd + "b");
  EXPECT_EQ(j["out_1.0"], "x" + fffd + "y");
  EXPECT_EQ(j["out_1.1"], "ok");
  EXPECT_EQ(j["out_2"], "caf\xc3\xa9");
}

// kiln explain --json where a guard holds a string that is not UTF-8: it used to fail with
// "json.exception.type_error.316"; now the report is valid JSON with U+FFFD for those bytes.
TEST(CliOutputs, ExplainJsonWithInvalidUtf8) {
  const fs::path dir = fs::path(KILN_BINARY_DIR) / "tests/cli/work_explain";
  fs::remove_all(dir);
  fs::create_directories(dir);
  test::writeFile((dir / "guards.py").string(),
                  "import torch\n@torch.compile\ndef f(x, s):\n    if s == 'a\xff"
                  "b':\n        x = x + 1\n    return x * 2\n"
                  "out = f(torch.ones(2), 'a\xff"
                  "b')\nout_1 = f(torch.ones(2), chr(0xdcff))\n");
  KilnRun r = runKiln({"explain", (dir / "guards.py").string(), "--json", "--db", (dir / "s.db").string()}, dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  EXPECT_EQ(j["recompile_count"], 1) << r.out;
  EXPECT_NE(r.out.find("a\xef\xbf\xbd"
                       "b"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace kiln
