// The difference between two stored sessions (two runs of a script, two option sets, ...):
// frames matched by name, graph/break/recompile counts, per-compile captured-graph and kernel
// text differences, the captured graphs paired node by node, guards and timings. `kiln diff A B` prints it; the studio's Diff tab shows it.
#pragma once

#include "storage/store.h"

#include <string>
#include <vector>

namespace kiln::storage {

struct CompileDiff {
  std::string compileId;  // present in A, B or both
  std::string frame;      // frame name
  bool inA = false, inB = false;
  int opsA = 0, opsB = 0;  // captured-graph call nodes
  int kernelsA = 0, kernelsB = 0;
  bool capturedTextDiffers = false;
  bool kernelTextDiffers = false;
  std::vector<std::string> guardsOnlyA, guardsOnlyB;
  std::string capturedUnifiedDiff;  // line diff of the captured graphs ("" when equal)
  std::string kernelUnifiedDiff;    // line diff of the kernels' IR ("" when equal)
  // The captured graphs node by node (ir::pairGraphs: op and source line, order breaking
  // ties), when both sides have one: names do not count, so an imported PyTorch graph pairs with
  // Kiln's capture of the same script wherever the two agree.
  struct NodePair {
    std::string a, b;                      // ir::describeNode of each side's node
    std::vector<std::string> differences;  // empty when they agree
  };
  bool nodesPaired = false;
  std::vector<NodePair> nodePairs;                  // in A's order
  std::vector<std::string> nodesOnlyA, nodesOnlyB;  // ir::describeNode
  int nodePairsDiffering() const;
  // Both sides captured a graph and it is the same node by node.
  bool pairsCompletely() const { return nodesPaired && nodesOnlyA.empty() && nodesOnlyB.empty() && nodePairsDiffering() == 0; }
  // Run time from the sessions' profiles (kiln run --profile), when both sides have one.
  bool profiled = false;
  double eagerMsA = 0, eagerMsB = 0, compiledMsA = 0, compiledMsB = 0;
  // Compile time per phase (capture, lower, passes, schedule, codegen) in A and in B, in
  // pipeline order; a phase one side lacks counts 0 there.
  std::vector<std::pair<std::string, std::pair<double, double>>> phaseMs;
};

struct SessionDiff {
  int64_t a = 0, b = 0;
  std::string scriptA, scriptB;
  bool sameScript = false;
  int graphsA = 0, graphsB = 0, breaksA = 0, breaksB = 0, recompilesA = 0, recompilesB = 0;
  std::vector<std::string> breaksOnlyA, breaksOnlyB;  // "file:line title"
  std::vector<CompileDiff> compiles;
  double totalMsA = 0, totalMsB = 0;

  std::string text() const;
  std::string json() const;
};

// Throws StoreError when a session does not exist.
SessionDiff diffSessions(Store& store, int64_t a, int64_t b);

// A minimal line diff ("- line" / "+ line" / "  line"), longest-common-subsequence based; ""
// when equal. Lines of `a` are compared with `renameA` replaced by `renameB` (a script's file
// name) but shown as they are.
std::string unifiedLineDiff(const std::string& a, const std::string& b, const std::string& renameA = {}, const std::string& renameB = {});

}  // namespace kiln::storage
