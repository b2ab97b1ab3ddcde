#include "engine/codegen/kernel_cache.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::codegen {

namespace {

// Version 2: "kiln-kernel-cache 2\n" "hmac-sha256 <64 hex digits>\n" then the fields. The MAC
// covers everything but its own line. Version 1 entries (no MAC) are stale: a silent miss.
constexpr const char* kMagic = "kiln-kernel-cache 2\n";
constexpr const char* kOldMagic = "kiln-kernel-cache 1\n";
constexpr const char* kMacTag = "hmac-sha256 ";
constexpr size_t kMacHex = 64;
constexpr size_t kSecretBytes = 32;

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

std::string octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

void warn(const std::string& what) { std::cerr << "kiln: warning: kernel cache: " << what << "\n"; }

// Sets `why` and returns "": the failure of a step that yields the secret.
std::string fail(std::string* why, const std::string& what) {
  *why = what;
  return "";
}

// Reads the 32-byte secret from an open key file that only the user may read; "" and `why` else.
std::string readSecret(int fd, const std::string& path, std::string* why) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return fail(why, path + " is not a regular file");
  if (st.st_uid != geteuid()) return fail(why, path + " is owned by uid " + std::to_string(st.st_uid) + ", not by you");
  if (st.st_mode & 077) return fail(why, path + " is readable or writable by others (mode " + octal(st.st_mode) + ")");
  std::string secret(kSecretBytes, '\0');
  ssize_t n = ::read(fd, secret.data(), secret.size());
  char extra;
  if (n != static_cast<ssize_t>(kSecretBytes) || ::read(fd, &extra, 1) != 0)
    return fail(why, path + " is not a key of " + std::to_string(kSecretBytes) + " bytes");
  return secret;
}

// The directory's secret, made on first use: written to a private temporary file and linked
// into place, so concurrent first runs agree on one key.
std::string loadOrMakeSecret(const std::string& dir, std::string* why) {
  const std::string path = dir + "/key";
  for (int attempt = 0; attempt < 2; ++attempt) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      std::string secret = readSecret(fd, path, why);
      ::close(fd);
      return secret;
    }
    if (errno != ENOENT) return fail(why, "cannot read " + path + ": " + std::strerror(errno));
    unsigned char bytes[kSecretBytes];
    if (RAND_bytes(bytes, sizeof bytes) != 1) return fail(why, "no random bytes for a new key");
    static std::atomic<unsigned> serial{0};
    const std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(serial++);
    int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) return fail(why, "cannot create " + tmp + ": " + std::strerror(errno));
    const bool written = ::write(out, bytes, sizeof bytes) == static_cast<ssize_t>(sizeof bytes) && ::fsync(out) == 0;
    ::close(out);
    const bool linked = written && ::link(tmp.c_str(), path.c_str()) == 0;
    const int linkErrno = errno;
    ::unlink(tmp.c_str());
    if (!written) return fail(why, "cannot write " + tmp);
    if (!linked && linkErrno != EEXIST) return fail(why, "cannot create " + path + ": " + std::strerror(linkErrno));
    // Linked, or another process linked its key first: read whichever is in place.
  }
  return fail(why, "cannot create " + path);
}

}  // namespace

namespace {
KernelCache*& current() {
  static KernelCache* cache = []() -> KernelCache* {
    if (const char* off = std::getenv("KILN_CACHE"); off && std::string(off) == "0") return nullptr;
    std::string dir = defaultDir();
    // Without a way to tell this build from another, cached code could be a stale generator's.
    if (dir.empty() || KernelCache::buildId().empty()) return nullptr;
    std::string why;
    std::unique_ptr<KernelCache> c = KernelCache::open(dir, &why);
    if (!c) warn(why + "; compiling without the disk cache");
    return c.release();  // lives for the process
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

std::unique_ptr<KernelCache> KernelCache::open(const std::string& dir, std::string* whyOut) {
  std::string ignored;
  std::string* why = whyOut ? whyOut : &ignored;
  auto refuse = [&](const std::string& what) {
    *why = what;
    return nullptr;
  };
  if (dir.empty()) return refuse("no cache directory");
  // The parents are made as any directory is; the cache directory itself private.
  std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();  // "a/b/" names b
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  if (::mkdir(p.c_str(), 0700) != 0 && errno != EEXIST) return refuse("cannot create " + dir + ": " + std::strerror(errno));
  // stat, not lstat: a symlink is judged by what it points to (someone else's directory is refused).
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return refuse(dir + " is not a directory");
  if (st.st_uid != geteuid())
    return refuse(dir + " is owned by uid " + std::to_string(st.st_uid) + ", not by you (uid " + std::to_string(geteuid()) + ")");
  if (st.st_mode & 022)
    return refuse(dir + " is writable by group or others (mode " + octal(st.st_mode) + "; chmod go-w it, or remove it)");
  std::string secret = loadOrMakeSecret(p.string(), why);
  if (secret.empty()) return nullptr;
  return std::unique_ptr<KernelCache>(new KernelCache(p.string(), std::move(secret)));
}

std::string KernelCache::mac(const std::string& payload) const {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()), reinterpret_cast<const unsigned char*>(payload.data()),
       payload.size(), out, &n);
  static const char* kHex = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < n; ++i) hex += kHex[out[i] >> 4], hex += kHex[out[i] & 15];
  return hex;
}

std::string KernelCache::pathOf(const std::string& key) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.kc", static_cast<unsigned long long>(fnv1a(key)));
  return dir_ + "/" + name;
}

std::optional<CachedModule> KernelCache::load(const std::string& key) const {
  const std::string path = pathOf(key);
  auto discard = [&](const std::string& why) -> std::optional<CachedModule> {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    warn("discarded " + path + " (" + why + "); recompiling");
    return std::nullopt;
  };
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;  // absent
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return std::nullopt;
  if (size > (uint64_t{1} << 30)) return discard("larger than 1 GiB");
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  std::string in = ss.str();
  if (in.rfind(kOldMagic, 0) == 0) return std::nullopt;  // an older Kiln's entry: replaced on store
  const size_t magic = std::strlen(kMagic), tag = std::strlen(kMacTag), header = magic + tag + kMacHex + 1;
  if (in.size() < header || in.compare(0, magic, kMagic) != 0 || in.compare(magic, tag, kMacTag) != 0 || in[header - 1] != '\n')
    return discard("not a cache entry, or truncated");
  const std::string stored = in.substr(magic + tag, kMacHex);
  in.erase(magic, tag + kMacHex + 1);  // what the MAC covers: the magic line and the fields
  const std::string expected = mac(in);
  if (expected.size() != kMacHex || CRYPTO_memcmp(expected.data(), stored.data(), kMacHex) != 0) return discard("checksum mismatch");
  size_t pos = magic;
  CachedModule m;
  std::string count;
  if (!get(in, pos, m.key)) return discard("malformed");
  if (m.key != key) return std::nullopt;  // a sound entry of another key (names collide)
  if (!get(in, pos, count)) return discard("malformed");
  const size_t n = static_cast<size_t>(std::strtoull(count.c_str(), nullptr, 10));
  if (n > 100000) return discard("malformed");
  m.names.resize(n), m.llvmIr.resize(n), m.assembly.resize(n);
  for (size_t i = 0; i < n; ++i)
    if (!get(in, pos, m.names[i]) || !get(in, pos, m.llvmIr[i]) || !get(in, pos, m.assembly[i])) return discard("malformed");
  if (!get(in, pos, m.object) || pos != in.size() || m.object.empty()) return discard("malformed");
  return m;
}

void KernelCache::store(const CachedModule& m) const {
  std::string out = kMagic;
  put(out, m.key);
  put(out, std::to_string(m.names.size()));
  for (size_t i = 0; i < m.names.size(); ++i) {
    put(out, m.names[i]);
    put(out, i < m.llvmIr.size() ? m.llvmIr[i] : "");
    put(out, i < m.assembly.size() ? m.assembly[i] : "");
  }
  put(out, m.object);
  out.insert(std::strlen(kMagic), kMacTag + mac(out) + "\n");
  const std::string path = pathOf(m.key);
  static std::atomic<unsigned> serial{0};
  const std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(serial++);
  std::error_code ec;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return;
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    f.close();
    if (!f) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace kiln::codegen
