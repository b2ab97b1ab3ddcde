#include "engine/runtime/nvidia_libs.h"

#include <dlfcn.h>
#include <glob.h>

#include <cstdlib>

namespace kiln::runtime {

std::vector<std::string> nvidiaLibraryCandidates(const std::vector<std::string>& sonames, const std::string& wheel) {
  std::vector<std::string> out = sonames;
  std::vector<std::string> dirs;
  if (const char* h = std::getenv("CUDA_HOME")) dirs.push_back(std::string(h) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  for (const auto& d : dirs)
    for (const auto& so : sonames) out.push_back(d + "/" + so);
  std::vector<std::string> sitePackages = {"/usr/local/lib/python3*/dist-packages", "/usr/lib/python3*/dist-packages",
                                           "/usr/local/lib/python3*/site-packages", "/opt/conda/lib/python3*/site-packages"};
  if (const char* home = std::getenv("HOME")) sitePackages.push_back(std::string(home) + "/.local/lib/python3*/site-packages");
  if (const char* venv = std::getenv("VIRTUAL_ENV")) sitePackages.push_back(std::string(venv) + "/lib/python3*/site-packages");
  for (const auto& sp : sitePackages)
    for (const std::string& sub : {wheel, std::string("cu13"), std::string("cu12")})
      for (const auto& so : sonames) {
        glob_t g{};
        if (glob((sp + "/nvidia/" + sub + "/lib/" + so).c_str(), 0, nullptr, &g) == 0)
          for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
        globfree(&g);
      }
  return out;
}

void* openNvidiaLibrary(const std::vector<std::string>& sonames, const std::string& wheel) {
  for (const auto& c : nvidiaLibraryCandidates(sonames, wheel))
    if (void* lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
  return nullptr;
}

}  // namespace kiln::runtime
