// What real PyTorch 2.11 did with a program (the oracle's NAME.json / NAME.outs.json) against
// what Kiln does with it, in the three modes the conformance suite and the corpus test count:
//  - eager:    Kiln's eager run (torch.compile as the identity) gives the oracle's eager outputs;
//  - compiled: Kiln's compiled run gives real torch.compile's outputs (an "error: Class" string
//              where the compiled run raised);
//  - counts:   the compiled run also has Dynamo's numbers of graphs, graph breaks and
//              recompiles, and the same recompile reasons.
#pragma once

#include "engine/driver/explain.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kiln::test {

// The outputs a compiled run must give: the eager outputs, except where the oracle's compiled
// run gave another value it recorded — a scalar or string in NAME.json, a tensor in
// `compiledOuts` (NAME.compiled_outs.json, the oracle's compiled_outs.npz as JSON, where it was
// brought back). `unrecorded` receives the outputs whose compiled value differs from eager's
// but is in neither (only their shape is known): they are compared with the eager value.
nlohmann::json expectedCompiledOuts(const nlohmann::json& oracle, const nlohmann::json& eagerOuts,
                                    std::vector<std::string>* unrecorded = nullptr, const nlohmann::json& compiledOuts = nlohmann::json());

// A guard failure with the parts no two processes share made wildcards: the id in
// `___check_obj_id(x, 140100930934096)` / `___check_type_id(x, 10729632)` becomes `<id>`, a
// repr's `at 0x7f6bca389550` becomes `at 0x<address>`.
std::string normaliseIds(const std::string& guardText);

// Differences in graph / break / recompile counts and recompile reasons ("" entries never).
// Reasons are compared after normaliseIds.
std::vector<std::string> countDifferences(const driver::ExplainReport& report, const nlohmann::json& oracle);

struct ParityResult {
  std::string eager, compiled, counts;  // "" when the mode matches, else what differs
  std::vector<std::string> unrecorded;
  // The compiled run's outputs against eager PyTorch's (not torch.compile's), and the counts'
  // differences without the outputs: what a program is judged by where torch.compile's own value
  // was reviewed as wrong (tests/conformance/torch_compile_wrong.txt).
  std::string compiledVsEager, countsWithoutOutputs;
};

// Runs `script` eagerly and compiled (in process) and compares both with the oracle's files.
ParityResult checkParity(const std::string& script, const nlohmann::json& oracle, const nlohmann::json& eagerOuts,
                         const nlohmann::json& compiledOuts = nlohmann::json());

}  // namespace kiln::test
