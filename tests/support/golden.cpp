#include "tests/support/golden.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace kiln::test {

std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

std::string compareGolden(const std::string& expectedPath, const std::string& actual) {
  std::string expected = readFile(expectedPath);
  std::string actualPath = expectedPath + ".actual";
  if (expected == actual) {
    std::remove(actualPath.c_str());
    return "";
  }
  writeFile(actualPath, actual);
  std::string cmd = "diff -u '" + expectedPath + "' '" + actualPath + "' 2>&1";
  std::string diff;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) diff.append(buf, n);
    pclose(p);
  }
  return "golden mismatch: " + expectedPath + " (actual written to " + actualPath + ")\n" + diff;
}

}  // namespace kiln::test
