// The on-disk kernel cache: entries round-trip; a damaged, truncated, altered or forged entry is
// never loaded (it is removed with a warning and the kernels are recompiled, giving the right
// result); a directory others can write is refused; a module compiled once is loaded the second
// time (same machine code behaviour, same texts).
#include "engine/codegen/kernel_cache.h"
#include "tests/codegen/jit_test_util.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

namespace kiln::codegen {
namespace {

namespace fs = std::filesystem;

std::string tempDir(const std::string& name) {
  std::string d = std::string(KILN_BINARY_DIR) + "/tests/codegen/" + name;
  fs::remove_all(d);
  return d;
}

std::unique_ptr<KernelCache> openCache(const std::string& dir) {
  std::string why;
  std::unique_ptr<KernelCache> c = KernelCache::open(dir, &why);
  EXPECT_TRUE(c) << why;
  return c;
}

std::string readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void writeAll(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

mode_t modeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Makes the process's cache `c` for one scope.
struct UseCache {
  explicit UseCache(KernelCache* c) : before(KernelCache::use(c)) {}
  ~UseCache() { KernelCache::use(before); }
  KernelCache* before;
};

const char* kKernel = R"(kernel cached_twice pointwise
  in x: f32[64]
  out y: f32[64]
  loop i0 in 0..64
  %0 = load x[i0]
  %1 = exp %0
  %2 = const 3.0 : f32
  %3 = mul %1, %2
  store y[i0], %3
end
)";

std::shared_ptr<CompiledModule> compileKernel() { return makeLlvmCpuCompiler()->compile(kir::parseKernels(kKernel), "cached"); }

// Runs the kernel and checks y = 3 exp(x) everywhere.
void expectRightResult(const CompiledModule& m) {
  ASSERT_EQ(m.kernels.size(), 1u);
  std::vector<float> x = testing::ramp(64, -2, 2), y(64);
  std::vector<void*> b = {x.data(), y.data()};
  m.kernels[0].fn(b.data(), 0, 64);
  for (size_t i = 0; i < 64; ++i) EXPECT_FLOAT_EQ(y[i], std::exp(x[i]) * 3.0f) << i;
}

// The only entry in `dir` (the tests' caches hold one module).
std::string onlyEntry(const std::string& dir) {
  std::vector<std::string> entries;
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".kc") entries.push_back(f.path().string());
  EXPECT_EQ(entries.size(), 1u);
  return entries.empty() ? "" : entries[0];
}

// Where the object file's executable code lies in an entry: the first SHF_EXECINSTR section of
// the ELF64 object, which is the entry's last field.
std::pair<size_t, size_t> machineCode(const std::string& entry) {
  const size_t elf = entry.rfind(
      "\x7f"
      "ELF");
  if (elf == std::string::npos) return {0, 0};
  auto u16 = [&](size_t at) {
    uint16_t v;
    std::memcpy(&v, entry.data() + elf + at, 2);
    return v;
  };
  auto u64 = [&](size_t at) {
    uint64_t v;
    std::memcpy(&v, entry.data() + elf + at, 8);
    return v;
  };
  const uint64_t shoff = u64(0x28);
  const uint16_t shentsize = u16(0x3a), shnum = u16(0x3c);
  for (uint16_t i = 0; i < shnum; ++i) {
    const size_t sh = shoff + size_t{i} * shentsize;
    const uint64_t flags = u64(sh + 0x08), offset = u64(sh + 0x18), size = u64(sh + 0x20);
    if ((flags & 0x4) && size > 0) return {elf + offset, size};
  }
  return {0, 0};
}

TEST(KernelCache, EntriesRoundTripAndDamageIsAMiss) {
  auto cache = openCache(tempDir("cache_roundtrip"));
  CachedModule m{"key one",
                 {"k0", "k1"},
                 {"ir0", ""},
                 {"asm0", "asm1"},
                 std::string("\x7f"
                             "ELF\0\1binary",
                             12)};
  EXPECT_FALSE(cache->load("key one"));
  cache->store(m);
  auto back = cache->load("key one");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->names, m.names);
  EXPECT_EQ(back->llvmIr, m.llvmIr);
  EXPECT_EQ(back->assembly, m.assembly);
  EXPECT_EQ(back->object, m.object);
  EXPECT_FALSE(cache->load("key two"));
  // Damage: truncated at every length, garbage; each is discarded (removed) with a warning.
  const std::string path = cache->pathOf("key one");
  const std::string bytes = readAll(path);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    writeAll(path, bytes.substr(0, cut));
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(cache->load("key one")) << cut;
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("kiln: warning: kernel cache: discarded " + path), std::string::npos) << cut << ": " << err;
    EXPECT_FALSE(fs::exists(path)) << cut;
  }
  writeAll(path, "kiln-kernel-cache 2\nhmac-sha256 99999999999999999999\nx");
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache->load("key one"));
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("discarded"), std::string::npos);
  // An older Kiln's entry (no MAC) is a silent miss, replaced by the next store.
  writeAll(path, "kiln-kernel-cache 1\n7\nkey one");
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache->load("key one"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  cache->store(m);
  EXPECT_TRUE(cache->load("key one"));
}

TEST(KernelCache, ASoundEntryOfAnotherKeyIsAMiss) {
  // What a collision of the file names looks like: a valid entry (same directory, same secret)
  // holding another key.
  auto cache = openCache(tempDir("cache_collision"));
  CachedModule foreign{"another key", {"k"}, {"ir"}, {"asm"}, "object"};
  cache->store(foreign);
  fs::rename(cache->pathOf("another key"), cache->pathOf("key one"));
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache->load("key one"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(fs::exists(cache->pathOf("key one")));  // not damaged: left in place
}

TEST(KernelCache, SecondCompileLoadsTheFirstOnesCode) {
  auto cache = openCache(tempDir("cache_jit"));
  UseCache use(cache.get());
  std::shared_ptr<CompiledModule> first = compileKernel();
  onlyEntry(cache->dir());
  std::shared_ptr<CompiledModule> second = compileKernel();
  ASSERT_EQ(second->kernels.size(), 1u);
  EXPECT_EQ(second->kernels[0].llvmIr, first->kernels[0].llvmIr);
  EXPECT_EQ(second->kernels[0].assembly, first->kernels[0].assembly);
  expectRightResult(*first);
  expectRightResult(*second);
}

// The key is the kernels' distinct bodies (kernel_bodies.h): a graph whose kernels are named and
// numbered otherwise loads the code compiled for the first one, runs right, and its texts name
// its own nodes and say whose code they are.
TEST(KernelCache, KernelsNamedOtherwiseLoadTheSameBodysCode) {
  auto cache = openCache(tempDir("cache_bodies"));
  UseCache use(cache.get());
  std::string renamed = kKernel;
  renamed.replace(renamed.find("cached_twice"), 12, "layer_7_exp");
  for (const char* from : {" x", " y"}) {
    for (size_t at = renamed.find(std::string(from) + "["); at != std::string::npos; at = renamed.find(std::string(from) + "[", at + 1))
      renamed.replace(at + 1, 1, std::string(from + 1) + "_7");
    size_t decl = renamed.find(std::string(from) + ":");
    renamed.replace(decl + 1, 1, std::string(from + 1) + "_7");
  }
  auto withNodes = [](std::string text, int node) {
    for (size_t at = text.find("\n  %"); at != std::string::npos; at = text.find("\n  %", at + 1)) {
      size_t eol = text.find('\n', at + 1);
      text.insert(eol, " @" + std::to_string(node++));
    }
    return text;
  };
  std::shared_ptr<CompiledModule> first = makeLlvmCpuCompiler()->compile(kir::parseKernels(withNodes(kKernel, 1)), "cached");
  EXPECT_EQ(first->bodiesCompiled, 1u);
  onlyEntry(cache->dir());
  std::shared_ptr<CompiledModule> second = makeLlvmCpuCompiler()->compile(kir::parseKernels(withNodes(renamed, 101)), "renamed");
  onlyEntry(cache->dir());
  EXPECT_EQ(second->bodiesCompiled, 0u);
  expectRightResult(*first);
  expectRightResult(*second);
  const CompiledKernel& k = second->kernels[0];
  EXPECT_EQ(k.sharesCodeOf, "cached_twice");
  EXPECT_EQ(k.llvmIr.rfind("; layer_7_exp runs the code compiled for kernel cached_twice (kernel cache): ", 0), 0u) << k.llvmIr;
  EXPECT_NE(first->kernels[0].llvmIr.find("; @2\n"), std::string::npos) << first->kernels[0].llvmIr;
  EXPECT_NE(k.llvmIr.find("; @102\n"), std::string::npos) << k.llvmIr;
  EXPECT_EQ(k.llvmIr.find("; @2\n"), std::string::npos) << k.llvmIr;
}

// The attack of issue 13: altered machine code in an entry. Before entries were checked, a
// flipped byte here gave wrong results or a signal.
TEST(KernelCache, FlippedByteInMachineCodeIsNotLoaded) {
  auto cache = openCache(tempDir("cache_flip"));
  UseCache use(cache.get());
  compileKernel();
  const std::string path = onlyEntry(cache->dir());
  std::string bytes = readAll(path);
  auto [code, size] = machineCode(bytes);
  ASSERT_GT(size, 16u) << "no executable section found in the entry's object";
  for (size_t at : {code, code + size / 2, code + size - 1}) {
    SCOPED_TRACE(at);
    std::string altered = bytes;
    altered[at] = static_cast<char>(altered[at] ^ 0x40);
    writeAll(path, altered);
    ::testing::internal::CaptureStderr();
    std::shared_ptr<CompiledModule> again = compileKernel();
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("discarded " + path + " (checksum mismatch); recompiling"), std::string::npos) << err;
    expectRightResult(*again);
    // The recompile stored a sound entry again.
    EXPECT_EQ(readAll(path).size(), bytes.size());
  }
}

TEST(KernelCache, TruncatedEntryIsNotLoaded) {
  auto cache = openCache(tempDir("cache_truncate"));
  UseCache use(cache.get());
  compileKernel();
  const std::string path = onlyEntry(cache->dir());
  const std::string bytes = readAll(path);
  for (size_t cut : {bytes.size() - 1, bytes.size() - 100, bytes.size() / 2, size_t{30}, size_t{0}}) {
    SCOPED_TRACE(cut);
    writeAll(path, bytes.substr(0, cut));
    ::testing::internal::CaptureStderr();
    std::shared_ptr<CompiledModule> again = compileKernel();
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("discarded " + path), std::string::npos) << err;
    expectRightResult(*again);
  }
  // Garbage of the right size.
  writeAll(path, std::string(bytes.size(), '\x90'));
  ::testing::internal::CaptureStderr();
  expectRightResult(*compileKernel());
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("not a cache entry"), std::string::npos);
}

// Someone who can write entries but cannot read the key: an entry they make (a valid format,
// its MAC computed under their own key) is refused.
TEST(KernelCache, EntryMadeWithoutTheKeyIsNotLoaded) {
  auto cache = openCache(tempDir("cache_forged"));
  auto attacker = openCache(tempDir("cache_attacker"));  // another directory: another random key
  CachedModule forged{"the key", {"k"}, {"ir"}, {"asm"}, "\xcc\xcc\xcc\xcc"};
  attacker->store(forged);
  fs::copy_file(attacker->pathOf("the key"), cache->pathOf("the key"));
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache->load("the key"));
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("checksum mismatch"), std::string::npos);
  EXPECT_TRUE(attacker->load("the key"));  // sound under its own key
}

TEST(KernelCache, DirectoryIsPrivateAndOthersWritableOnesAreRefused) {
  const std::string dir = tempDir("cache_perms") + "/nested/kernels/";
  auto cache = openCache(dir);
  ASSERT_TRUE(cache);
  const std::string made = dir.substr(0, dir.size() - 1);
  EXPECT_EQ(modeOf(made), 0700u);
  EXPECT_EQ(modeOf(made + "/key"), 0600u);
  EXPECT_EQ(fs::file_size(made + "/key"), 32u);
  cache->store({"k", {"n"}, {""}, {""}, "obj"});

  std::string why;
  for (mode_t bad : {0777, 0770, 0722, 0702}) {
    SCOPED_TRACE(bad);
    ASSERT_EQ(::chmod(made.c_str(), bad), 0);
    EXPECT_FALSE(KernelCache::open(made, &why));
    EXPECT_NE(why.find("writable by group or others"), std::string::npos) << why;
  }
  // Readable by others but writable only by its owner: accepted (the key stays 0600).
  ASSERT_EQ(::chmod(made.c_str(), 0755), 0);
  auto readable = KernelCache::open(made, &why);
  ASSERT_TRUE(readable) << why;
  EXPECT_TRUE(readable->load("k"));  // the same key as before
  ASSERT_EQ(::chmod(made.c_str(), 0700), 0);

  // A key others can read could have been used to forge entries.
  ASSERT_EQ(::chmod((made + "/key").c_str(), 0644), 0);
  EXPECT_FALSE(KernelCache::open(made, &why));
  EXPECT_NE(why.find("readable or writable by others"), std::string::npos) << why;
  ASSERT_EQ(::chmod((made + "/key").c_str(), 0600), 0);
  // A key of the wrong size (damaged) is refused, not silently replaced.
  writeAll(made + "/key", "short");
  ::chmod((made + "/key").c_str(), 0600);
  EXPECT_FALSE(KernelCache::open(made, &why));
  EXPECT_NE(why.find("not a key of 32 bytes"), std::string::npos) << why;

  // A path that is a file, not a directory.
  writeAll(made + "/file", "x");
  EXPECT_FALSE(KernelCache::open(made + "/file", &why));
  EXPECT_NE(why.find("not a directory"), std::string::npos) << why;
}

TEST(KernelCache, DirectoryOfAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
  const std::string dir = tempDir("cache_other_owner");
  fs::create_directories(dir);
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
  std::string why;
  EXPECT_FALSE(KernelCache::open(dir, &why));
  EXPECT_NE(why.find("owned by uid 65534, not by you"), std::string::npos) << why;
  // Through a symlink it is still someone else's.
  const std::string link = tempDir("cache_link_to_other");
  fs::create_directory_symlink(dir, link);
  EXPECT_FALSE(KernelCache::open(link, &why));
  EXPECT_NE(why.find("not by you"), std::string::npos) << why;
}

// Processes starting together on a fresh directory agree on one key.
TEST(KernelCache, ConcurrentFirstOpensShareOneKey) {
  const std::string dir = tempDir("cache_race");
  std::vector<std::unique_ptr<KernelCache>> caches(8);
  std::vector<std::thread> threads;
  for (auto& c : caches) threads.emplace_back([&c, &dir] { c = KernelCache::open(dir); });
  for (auto& t : threads) t.join();
  for (auto& c : caches) ASSERT_TRUE(c);
  caches[0]->store({"shared", {"n"}, {""}, {""}, "obj"});
  for (auto& c : caches) EXPECT_TRUE(c->load("shared"));
  size_t files = 0;
  for (const auto& f : fs::directory_iterator(dir)) files += f.path().filename() != "key" && f.path().extension() != ".kc";
  EXPECT_EQ(files, 0u) << "temporary key files left behind";
}

}  // namespace
}  // namespace kiln::codegen
