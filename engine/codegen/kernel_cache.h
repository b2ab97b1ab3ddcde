// The on-disk cache of compiled kernel modules (Inductor keeps one too): a graph whose kernels
// were compiled before — by this run or an earlier one — loads their machine code instead of
// running LLVM again (code generation is ~95 % of a cold compile). An entry holds the object
// file and the LLVM IR and assembly texts the session shows.
//
// The key is the module's distinct kernel bodies (kernel_bodies.h: the kernel IR with names and
// provenance made canonical, so kernels named and numbered otherwise hit) plus everything else
// the code depends on (LLVM version, host CPU and features, the build of Kiln itself); it is
// stored in the entry and compared on load, so a hash collision is a miss. An entry holds one
// function per distinct body, named after the kernel it was compiled for. Entries are written
// to a temporary file and renamed, so concurrent runs never see half an entry.
//
// Entries are native code that Kiln runs, so they are checked before use:
// * every entry carries an HMAC-SHA-256 of its contents under a per-user secret (`key`, 32
//   random bytes, mode 0600, in the cache directory). An entry whose MAC does not match — a
//   flipped byte, a truncation, garbage, or one written by someone without the key — is never
//   loaded: it is removed with a one-line warning on stderr and the kernels are recompiled.
// * the directory is created with mode 0700; an existing one must be owned by the user and
//   writable by no one else (nor may the key file be readable by anyone else). Otherwise the
//   cache is refused with a warning and kernels are compiled without it.
// The MAC makes a forged entry need the key, not just write access to one file; it does not
// protect against someone who can read the key (that is the user, who can run code anyway).
//
// NVRTC's compiles are kept here too (cuda/cuda_toolchain.cpp): their key is the CUDA source, file
// name, architecture, options and NVRTC version; the entry holds the PTX (as `assembly`), the log
// (as `llvmIr`) and the cubin (as `object`).
//
// Where: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln/kernels, else ~/.cache/kiln/kernels.
// KILN_CACHE=0 turns it off.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::codegen {

struct CachedModule {
  std::string key;
  std::vector<std::string> names, llvmIr, assembly;  // per distinct body: the kernel compiled for, its texts
  std::string object;                                // the relocatable object file
};

class KernelCache {
 public:
  // The process's cache, or nullptr when it is turned off, has no directory or was refused
  // (the warning is printed once).
  static KernelCache* instance();
  // Replaces the process's cache (tests; nullptr turns it off). Returns the previous one.
  static KernelCache* use(KernelCache* cache);
  // The build of the running program (its path, size and modification time): part of every key,
  // since a rebuilt code generator may turn the same kernel IR into other code.
  static const std::string& buildId();

  // Opens (creating it with mode 0700 and its key when absent) the cache in `dir`. nullptr when
  // the directory or its key cannot be trusted or made; `why` then says why, in one line.
  static std::unique_ptr<KernelCache> open(const std::string& dir, std::string* why = nullptr);

  // The entry of `key`, verified. A damaged or altered entry is removed, with a warning.
  std::optional<CachedModule> load(const std::string& key) const;
  // Best effort: a full disk or a read-only directory leaves the cache as it was.
  void store(const CachedModule& m) const;
  const std::string& dir() const { return dir_; }
  // The file an entry of `key` lives in (tests damage it).
  std::string pathOf(const std::string& key) const;

 private:
  KernelCache(std::string dir, std::string secret) : dir_(std::move(dir)), secret_(std::move(secret)) {}
  std::string mac(const std::string& payload) const;
  std::string dir_;
  std::string secret_;  // the HMAC key
};

}  // namespace kiln::codegen
