#include "engine/codegen/cuda/cuda_views.h"

#include "engine/codegen/cuda/cuda_toolchain.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace kiln::codegen::cuda {

namespace {

constexpr const char* kUnitName = "kiln_kernels.cu";

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// The graph node a CUDA line names (`// @N` at its end), or -1.
int nodeOf(const std::string& line) {
  const size_t at = line.rfind("// @");
  if (at == std::string::npos) return -1;
  char* end = nullptr;
  const long n = std::strtol(line.c_str() + at + 4, &end, 10);
  return end == line.c_str() + at + 4 ? -1 : static_cast<int>(n);
}

// `line` (of the unit) mapped into the kernel: "  // cuda line K @N" (N when the line names a node).
std::string note(const std::vector<std::string>& unitLines, int first, int line) {
  std::string s = "  // cuda line " + std::to_string(line - first + 1);
  if (line >= 1 && static_cast<size_t>(line) <= unitLines.size())
    if (int n = nodeOf(unitLines[static_cast<size_t>(line - 1)]); n >= 0) s += " @" + std::to_string(n);
  return s;
}

// Runs `command` (its stderr joined to stdout); false when it could not run or exited non-zero.
bool runTool(const std::string& command, std::string& out) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return false;
  std::array<char, 4096> buf{};
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
  return pclose(p) == 0;
}

std::string quoted(const std::string& path) {
  std::string q = "'";
  for (char c : path) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A cubin in a file of its own for the tools, removed with this object.
struct TempCubin {
  std::string path;
  explicit TempCubin(const std::string& bytes) {
    const char* dir = std::getenv("TMPDIR");
    std::string templ = std::string(dir && *dir ? dir : "/tmp") + "/kiln-XXXXXX.cubin";
    const int fd = mkstemps(templ.data(), 6);
    if (fd < 0) return;
    const bool ok = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    close(fd);
    if (ok) path = templ;
    else unlink(templ.c_str());
  }
  ~TempCubin() {
    if (!path.empty()) unlink(path.c_str());
  }
  TempCubin(const TempCubin&) = delete;
  TempCubin& operator=(const TempCubin&) = delete;
};

// (nvdisasm --print-line-info-inline: an instruction group's //## File lines name the inlined
// frames innermost first, each with its call site, `inlined at "...", line N`.)
// `cuobjdump -res-usage`'s figures for `symbol` ("REG:12 STACK:0 SHARED:0 LOCAL:0 ..."): what
// it has when ptxas's report is missing (it does not split spills from other local memory).
CudaResources parseResUsage(const std::string& out, const std::string& symbol) {
  CudaResources r;
  const size_t at = out.find("Function " + symbol + ":");
  if (at == std::string::npos) return r;
  const std::string line = out.substr(out.find('\n', at) + 1, out.find('\n', out.find('\n', at) + 1) - out.find('\n', at) - 1);
  std::smatch m;
  if (std::regex_search(line, m, std::regex(R"(REG:(\d+))"))) r.registers = std::stoi(m[1]);
  if (std::regex_search(line, m, std::regex(R"(STACK:(\d+))"))) r.stackBytes = std::stoll(m[1]);
  if (std::regex_search(line, m, std::regex(R"(SHARED:(\d+))"))) r.sharedBytes = std::stoll(m[1]);
  return r;
}

// From the line starting `from` to the line after the first "}" alone at a line's start.
std::string entryOf(const std::string& ptx, const std::string& symbol) {
  size_t at = ptx.find(".entry " + symbol + "(");
  if (at == std::string::npos) return "";
  at = ptx.rfind('\n', at);
  at = at == std::string::npos ? 0 : at + 1;
  const size_t close = ptx.find("\n}\n", at);
  return ptx.substr(at, close == std::string::npos ? std::string::npos : close + 3 - at);
}

// nvdisasm's text of `symbol`'s code section, from its `.section .text.SYM` line to the next section.
std::string functionOf(const std::string& sass, const std::string& symbol) {
  size_t at = sass.find(".text." + symbol + ",");
  if (at == std::string::npos) at = sass.find(".text." + symbol + ":");
  if (at == std::string::npos) return "";
  at = sass.rfind('\n', at);
  at = at == std::string::npos ? 0 : at + 1;
  const size_t next = sass.find(".section", sass.find('\n', at));
  const size_t end = next == std::string::npos ? std::string::npos : sass.rfind('\n', next);
  return sass.substr(at, end == std::string::npos ? std::string::npos : end + 1 - at);
}

}  // namespace

session::KernelGpuInfo gpuInfo(const CudaViews& views, size_t i) {
  const CudaKernelView& kv = views.kernels.at(i);
  session::KernelGpuInfo g;
  g.arch = views.arch;
  g.ptx = kv.ptx;
  g.sass = kv.sass;
  g.launch = kv.launch;
  g.registers = kv.resources.registers;
  g.sharedBytes = kv.resources.sharedBytes;
  g.stackBytes = kv.resources.stackBytes;
  g.spillStores = kv.resources.spillStores;
  g.spillLoads = kv.resources.spillLoads;
  g.notes = views.notes;
  return g;
}

std::string findCudaTool(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/bin");
  if (const char* home = std::getenv("CUDA_PATH"); home && *home) dirs.push_back(std::string(home) + "/bin");
  dirs.push_back("/usr/local/cuda/bin");
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    for (std::string d; std::getline(in, d, ':');)
      if (!d.empty()) dirs.push_back(d);
  }
  for (const auto& d : dirs)
    if (std::string p = d + "/" + name; access(p.c_str(), X_OK) == 0) return p;
  return "";
}

CudaResources parsePtxasReport(const std::string& log, const std::string& symbol) {
  // ptxas info    : Compiling entry function 'SYM' for 'sm_90'
  // ptxas info    : Function properties for SYM
  //     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  // ptxas info    : Used 12 registers, used 0 barriers, 1024 bytes smem, 380 bytes cmem[0]
  CudaResources r;
  const size_t at = log.find("Compiling entry function '" + symbol + "'");
  if (at == std::string::npos) return r;
  size_t end = log.find("Compiling entry function '", at + 1);
  const std::string part = log.substr(at, end == std::string::npos ? std::string::npos : end - at);
  std::smatch m;
  if (std::regex_search(part, m, std::regex(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)"))) {
    r.stackBytes = std::stoll(m[1]);
    r.spillStores = std::stoll(m[2]);
    r.spillLoads = std::stoll(m[3]);
  }
  if (std::regex_search(part, m, std::regex(R"(Used (\d+) registers)"))) {
    r.registers = std::stoi(m[1]);
    r.sharedBytes = 0;  // ptxas names smem only when there is some
  }
  if (std::regex_search(part, m, std::regex(R"((\d+) bytes smem)"))) r.sharedBytes = std::stoll(m[1]);
  return r;
}

std::string annotatePtx(const std::string& ptx, const std::vector<std::string>& unitLines, int first, int last, int fileIndex) {
  // .loc 1 57 5                      (file line column)
  // .loc 1 7 3, function_name $L__info_string0, inlined_at 1 57 5
  static const std::regex loc(R"(^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(?:.*inlined_at\s+(\d+)\s+(\d+)\s+\d+)?)");
  std::string out;
  std::istringstream in(ptx);
  for (std::string l; std::getline(in, l);) {
    out += l;
    std::smatch m;
    if (std::regex_search(l, m, loc)) {
      int line = 0;
      if (std::stoi(m[1]) == fileIndex && std::stoi(m[2]) >= first && std::stoi(m[2]) <= last) line = std::stoi(m[2]);
      else if (m[3].matched && std::stoi(m[3]) == fileIndex && std::stoi(m[4]) >= first && std::stoi(m[4]) <= last) line = std::stoi(m[4]);
      if (line > 0) out += note(unitLines, first, line);
    }
    out += '\n';
  }
  return out;
}

std::string annotateSass(const std::string& sass, const std::vector<std::string>& unitLines, int first, int last,
                         const std::string& unitName) {
  // 	//## File "kiln_kernels.cu", line 57
  // 	//## File "/usr/local/cuda/include/crt/math_functions.hpp", line 12 inlined at "kiln_kernels.cu", line 57
  static const std::regex place(R"re("([^"]*)", line (\d+))re");
  std::string out;
  std::istringstream in(sass);
  for (std::string l; std::getline(in, l);) {
    out += l;
    if (l.find("//## File") != std::string::npos) {
      for (auto it = std::sregex_iterator(l.begin(), l.end(), place); it != std::sregex_iterator(); ++it) {
        const std::string file = (*it)[1];
        const int line = std::stoi((*it)[2]);
        const bool ours = file.size() >= unitName.size() && file.compare(file.size() - unitName.size(), unitName.size(), unitName) == 0;
        if (ours && line >= first && line <= last) {
          out += note(unitLines, first, line);
          break;
        }
      }
    }
    out += '\n';
  }
  return out;
}

CudaViewOptions resolvedViewOptions(CudaViewOptions options) {
  if (!options.arch.empty() && options.smCount > 0) return options;
  CudaDevice* device = CudaDevice::instance(nullptr);
  if (options.arch.empty()) options.arch = device ? "sm_" + device->arch().substr(device->arch().find('_') + 1) : "sm_90";
  if (options.smCount <= 0) options.smCount = device ? device->multiprocessors() : 132;
  return options;
}

CudaViews cudaViews(const std::vector<kir::Kernel>& kernels, const CudaViewOptions& given) {
  std::string why;
  Nvrtc* nvrtc = Nvrtc::instance(&why);
  if (!nvrtc) throw std::runtime_error(why);
  const CudaViewOptions options = resolvedViewOptions(given);
  CudaViews v;
  v.arch = options.arch;
  const int sms = options.smCount;

  const std::string unit = cudaSource(kernels);
  const std::vector<std::string> unitLines = splitLines(unit);
  // -lineinfo: .loc lines in the PTX and line tables in the cubin; -v: ptxas's resource report.
  const Nvrtc::Output out = nvrtc->compile(unit, kUnitName, v.arch, {"--generate-line-info", "--ptxas-options=-v"});
  int fileIndex = 0;
  {
    std::smatch m;
    const std::regex file(R"(\.file\s+(\d+)\s+"([^"]*)\")");
    for (auto it = std::sregex_iterator(out.ptx.begin(), out.ptx.end(), file); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[2];
      if (name.size() >= std::string(kUnitName).size() &&
          name.compare(name.size() - std::string(kUnitName).size(), std::string::npos, kUnitName) == 0)
        fileIndex = std::stoi((*it)[1]);
    }
  }

  std::string sassAll, resUsage;
  const std::string nvdisasm = findCudaTool("nvdisasm");
  const std::string cuobjdump = findCudaTool("cuobjdump");
  if (out.cubin.empty()) {
    v.notes += "SASS and resources: NVRTC made no cubin for " + v.arch + "\n";
  } else {
    TempCubin file(out.cubin);
    if (file.path.empty()) {
      v.notes += "SASS: could not write the cubin to a temporary file\n";
    } else if (nvdisasm.empty()) {
      v.notes += "SASS: nvdisasm not found (CUDA_HOME/bin, /usr/local/cuda/bin, PATH); install the CUDA toolkit's nvdisasm\n";
    } else if (std::string text; runTool(quoted(nvdisasm) + " --print-line-info-inline --print-code " + quoted(file.path), text)) {
      sassAll = std::move(text);
    } else {
      v.notes += "SASS: " + nvdisasm + " failed: " + text.substr(0, 300) + "\n";
    }
    // cuobjdump only where ptxas's report misses a kernel (it is the fallback; a process less on
    // a GPU graph's cold compile).
    bool reported = true;
    for (const auto& k : kernels) reported = reported && parsePtxasReport(out.log, cudaSymbol(k)).known();
    if (!reported && !file.path.empty() && !cuobjdump.empty()) runTool(quoted(cuobjdump) + " -res-usage " + quoted(file.path), resUsage);
  }

  for (size_t i = 0; i < kernels.size(); ++i) {
    const kir::Kernel& k = kernels[i];
    CudaKernelView kv;
    kv.name = k.name;
    kv.symbol = cudaSymbol(k);
    const std::string header = "// kernel " + k.name + " (";
    int first = 0, last = static_cast<int>(unitLines.size());
    for (size_t l = 0; l < unitLines.size(); ++l) {
      if (first == 0 && unitLines[l].rfind(header, 0) == 0) first = static_cast<int>(l) + 1;
      else if (first > 0 && unitLines[l].rfind("// kernel ", 0) == 0) {
        last = static_cast<int>(l);
        break;
      }
    }
    if (first > 0) {
      kv.firstLine = first;
      for (int l = first; l <= last; ++l) kv.source += unitLines[static_cast<size_t>(l - 1)] + "\n";
      kv.ptx = annotatePtx(entryOf(out.ptx, kv.symbol), unitLines, first, last, fileIndex);
      if (!sassAll.empty()) kv.sass = annotateSass(functionOf(sassAll, kv.symbol), unitLines, first, last, kUnitName);
    }
    kv.resources = parsePtxasReport(out.log, kv.symbol);
    if (!kv.resources.known() && !resUsage.empty()) kv.resources = parseResUsage(resUsage, kv.symbol);
    if (options.launches && i < options.launches->size()) kv.launch = (*options.launches)[i].str();
    else if (k.symbolic()) kv.launch = "grid depends on the size symbols (chosen at each call)";
    else kv.launch = cudaLaunch(k, {}, sms).str() + " (as the runtime would choose on " + std::to_string(sms) + " SMs)";
    v.kernels.push_back(std::move(kv));
  }
  if (v.kernels.size() && !v.kernels.front().resources.known()) v.notes += "resources: ptxas gave no report (and cuobjdump is absent)\n";
  return v;
}

}  // namespace kiln::codegen::cuda
