// Runs the built kiln executable (KILN_CLI) as a child process for the CLI tests: no shell, so
// empty, non-UTF-8 and multi-line arguments pass unchanged; stdout and stderr go to files in
// `dir` and are read back; `env` entries are added to (or replace those of) the environment.
#pragma once

#include "tests/support/golden.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace kiln::test {

struct KilnRun {
  int exitCode = -1;  // 128 + N after signal N; -1 if it could not start
  std::string out, err;
};

// A fresh folder under /tmp (named PREFIX-XXXXXX), removed with everything in it at scope end.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "/tmp/kiln-test") {
    std::string t = prefix + "-XXXXXX";
    path = mkdtemp(t.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

inline KilnRun runKiln(const std::vector<std::string>& args, const std::filesystem::path& dir,
                       const std::map<std::string, std::string>& env = {}) {
  const std::string outFile = (dir / "stdout.txt").string(), errFile = (dir / "stderr.txt").string();
  // KILN_CLI_PATH names another kiln executable (a bundle's on the GPU machine, where the build
  // folder the tests were compiled against does not exist).
  const char* cli = std::getenv("KILN_CLI_PATH");
  std::vector<std::string> argv = {cli && *cli ? cli : KILN_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (!env.count(kv.substr(0, kv.find('=')))) envs.push_back(kv);
  }
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> cenv;
  for (auto& e : envs) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, outFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, 2, errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  KilnRun r;
  const int spawned = posix_spawn(&pid, argv[0].c_str(), &files, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) return r;
  int status = 0;
  waitpid(pid, &status, 0);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = readFile(outFile);
  r.err = readFile(errFile);
  return r;
}

// A command's output split into lines (without their '\n').
inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace kiln::test
