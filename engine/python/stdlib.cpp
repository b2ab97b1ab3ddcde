#include "engine/python/stdlib.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kiln::py {

bool stdlibSource(const std::string& name, std::string& source, std::string& fileName) {
  if (const char* dir = std::getenv("KILN_PYLIB_DIR"); dir && *dir) {
    std::ifstream f(std::string(dir) + "/" + name + ".py");
    if (!f) return false;
    std::stringstream ss;
    ss << f.rdbuf();
    source = ss.str();
    fileName = name + ".py";
    return true;
  }
  for (const auto& f : embeddedLibFiles())
    if (name == f.module) {
      source = f.source;
      fileName = f.fileName;
      return true;
    }
  return false;
}

}  // namespace kiln::py
