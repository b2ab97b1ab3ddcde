// The pass pipeline: one short ordered list, run by the pass manager (pass_manager.h). It is a
// registry: Kiln's built-in passes join it through registerPass exactly as plugins' passes do
// (built-ins in order at the end, a plugin's at a named point such as "before fuse").
#pragma once

#include "engine/passes/pass.h"

#include <set>
#include <string>
#include <vector>

namespace kiln::passes {

// Where a registered pass goes: right before or after a named pass, or at the end.
struct InsertPoint {
  enum class Where { Before, After, End };
  Where where = Where::End;
  std::string pass;

  static InsertPoint before(std::string p) { return {Where::Before, std::move(p)}; }
  static InsertPoint after(std::string p) { return {Where::After, std::move(p)}; }
  static InsertPoint end() { return {}; }
  // "before fuse", "after simplify", "at the end"
  std::string str() const;
};

// The passes in the order they run (a copy: registration may change the list meanwhile).
std::vector<PassInfo> pipeline();
// Their names, in order.
std::vector<std::string> passNames();

// Adds `pass` to the pipeline at `at`. Throws std::invalid_argument for an empty or taken name, a
// missing function, an unknown pass named by `at`, or a point after "fuse" (fuse groups the graph
// into kernels and stays last). Register before compiling: a compile in progress keeps its list.
void registerPass(PassInfo pass, const InsertPoint& at = InsertPoint::before("fuse"));
// The same, before the pass named `before` (InsertPoint::before).
void registerPass(PassInfo pass, const std::string& before);
// Removes a registered pass; false when there is none of that name.
bool unregisterPass(const std::string& name);

// Throws std::invalid_argument naming the first of `names` that is no pass, with the valid names
// ("no pass named 'nosuch' (passes: decompose, constant_fold, ...)"): options naming passes are
// checked with it before anything runs.
void checkPassNames(const std::set<std::string>& names);

}  // namespace kiln::passes
