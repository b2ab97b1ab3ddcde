#include "engine/codegen/kernel_cache.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace kiln::codegen {

namespace {

constexpr const char* kMagic = "kiln-kernel-cache 1\n";

// FNV-1a, 64 bits: names the entry; the stored key decides a hit.
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

void put(std::string& out, const std::string& field) {
  out += std::to_string(field.size());
  out += '\n';
  out += field;
}

// Reads one length-prefixed field; false on anything malformed.
bool get(const std::string& in, size_t& pos, std::string& field) {
  size_t nl = in.find('\n', pos);
  if (nl == std::string::npos || nl == pos || nl - pos > 19) return false;
  uint64_t n = 0;
  for (size_t i = pos; i < nl; ++i) {
    if (in[i] < '0' || in[i] > '9') return false;
    n = n * 10 + static_cast<uint64_t>(in[i] - '0');
  }
  if (n > in.size() - nl - 1) return false;
  field = in.substr(nl + 1, n);
  pos = nl + 1 + n;
  return true;
}

std::string defaultDir() {
  if (const char* d = std::getenv("KILN_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/kiln/kernels";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/kiln/kernels";
  return "";
}

}  // namespace

namespace {
KernelCache*& current() {
  static KernelCache* cache = [] () -> KernelCache* {
    if (const char* off = std::getenv("KILN_CACHE"); off && std::string(off) == "0") return nullptr;
    std::string dir = defaultDir();
    // Without a way to tell this build from another, cached code could be a stale generator's.
    if (dir.empty() || KernelCache::buildId().empty()) return nullptr;
    return new KernelCache(dir);  // lives for the process
  }();
  return cache;
}
}  // namespace

KernelCache* KernelCache::instance() { return current(); }

KernelCache* KernelCache::use(KernelCache* cache) {
  KernelCache* before = current();
  current() = cache;
  return before;
}

const std::string& KernelCache::buildId() {
  static const std::string id = [] {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return std::string();
    const auto size = std::filesystem::file_size(exe, ec);
    if (ec) return std::string();
    const auto time = std::filesystem::last_write_time(exe, ec).time_since_epoch().count();
    if (ec) return std::string();
    return exe.string() + " " + std::to_string(size) + " " + std::to_string(time);
  }();
  return id;
}

std::string KernelCache::pathOf(const std::string& key) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.kc", static_cast<unsigned long long>(fnv1a(key)));
  return dir_ + "/" + name;
}

std::optional<CachedModule> KernelCache::load(const std::string& key) const {
  std::error_code ec;
  const auto size = std::filesystem::file_size(pathOf(key), ec);
  if (ec || size > (uint64_t{1} << 30)) return std::nullopt;  // absent, or not an entry of ours
  std::ifstream f(pathOf(key), std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string in = ss.str();
  if (in.rfind(kMagic, 0) != 0) return std::nullopt;
  size_t pos = std::string(kMagic).size();
  CachedModule m;
  std::string count;
  if (!get(in, pos, m.key) || m.key != key || !get(in, pos, count)) return std::nullopt;
  const size_t n = static_cast<size_t>(std::strtoull(count.c_str(), nullptr, 10));
  if (n > 100000) return std::nullopt;
  m.names.resize(n), m.llvmIr.resize(n), m.assembly.resize(n);
  for (size_t i = 0; i < n; ++i)
    if (!get(in, pos, m.names[i]) || !get(in, pos, m.llvmIr[i]) || !get(in, pos, m.assembly[i])) return std::nullopt;
  if (!get(in, pos, m.object) || pos != in.size() || m.object.empty()) return std::nullopt;
  return m;
}

void KernelCache::store(const CachedModule& m) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return;
  std::string out = kMagic;
  put(out, m.key);
  put(out, std::to_string(m.names.size()));
  for (size_t i = 0; i < m.names.size(); ++i) {
    put(out, m.names[i]);
    put(out, i < m.llvmIr.size() ? m.llvmIr[i] : "");
    put(out, i < m.assembly.size() ? m.assembly[i] : "");
  }
  put(out, m.object);
  const std::string path = pathOf(m.key);
  static std::atomic<unsigned> serial{0};
  const std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(serial++);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return;
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!f) {
      f.close();
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace kiln::codegen
