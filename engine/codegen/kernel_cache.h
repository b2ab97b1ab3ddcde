// The on-disk cache of compiled kernel modules (Inductor keeps one too): a graph whose kernels
// were compiled before — by this run or an earlier one — loads their machine code instead of
// running LLVM again (code generation is ~95 % of a cold compile). An entry holds the object
// file and the LLVM IR and assembly texts the session shows.
//
// The key is the whole kernel IR of the module plus everything else the code depends on (LLVM
// version, host CPU and features, the build of Kiln itself); it is stored in the entry and compared on
// load, so a hash collision is a miss. Entries are written to a temporary file and renamed, so
// concurrent runs never see half an entry; an unreadable or damaged entry is a miss.
//
// Where: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln/kernels, else ~/.cache/kiln/kernels.
// KILN_CACHE=0 turns it off.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kiln::codegen {

struct CachedModule {
  std::string key;
  std::vector<std::string> names, llvmIr, assembly;  // per kernel
  std::string object;                                 // the relocatable object file
};

class KernelCache {
 public:
  // The process's cache, or nullptr when it is turned off or has no directory.
  static KernelCache* instance();
  // Replaces the process's cache (tests; nullptr turns it off). Returns the previous one.
  static KernelCache* use(KernelCache* cache);
  // The build of the running program (its path, size and modification time): part of every key,
  // since a rebuilt code generator may turn the same kernel IR into other code.
  static const std::string& buildId();
  explicit KernelCache(std::string dir) : dir_(std::move(dir)) {}

  std::optional<CachedModule> load(const std::string& key) const;
  // Best effort: a full disk or a read-only directory leaves the cache as it was.
  void store(const CachedModule& m) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string pathOf(const std::string& key) const;
  std::string dir_;
};

}  // namespace kiln::codegen
