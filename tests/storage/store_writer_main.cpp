// The process the kill test kills: `kiln_store_writer DB hold|busy`.
// Writes one complete session, then starts a second and records five whole compiles. Then
//   hold: reports half of a sixth compile (its transaction left open), prints "ready", sleeps;
//   busy: prints "ready" and keeps recording compiles until killed.
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

#include <sys/prctl.h>

#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstring>

using namespace kiln::storage;

namespace {
void ready() {
  // write(2), not stdio: the line must reach the pipe before we are killed.
  const char msg[] = "ready\n";
  if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0) _exit(3);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[2], "hold") != 0 && std::strcmp(argv[2], "busy") != 0)) {
    std::fprintf(stderr, "usage: %s DB hold|busy\n", argv[0]);
    return 2;
  }
  // Never outlive the test that started us, even if it fails before killing us.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  alarm(120);
  try {
    auto store = Store::open(argv[1]);
    testing::writeSample(*store->beginSession(), testing::sampleSession("first.py"));

    auto sink = store->beginSession();
    auto start = testing::sampleSession("second.py").start;
    start.startedAtMs += 1000;
    sink->sessionStart(start);
    for (int i = 0; i < 5; ++i) testing::writeCompile(*sink, i, /*done=*/true);
    if (std::strcmp(argv[2], "hold") == 0) {
      testing::writeCompile(*sink, 5, /*done=*/false);
      ready();
      for (;;) pause();
    }
    ready();
    for (int i = 5;; ++i) testing::writeCompile(*sink, i, /*done=*/true);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln_store_writer: %s\n", e.what());
    return 1;
  }
}
