// JSON forms of the IR and event values the store keeps in JSON columns. Every function pair
// round-trips exactly (a value read back compares == to the one written). Malformed JSON
// throws StoreError, so a hand-edited or damaged row is reported instead of misread.
//
// Arg forms: node {"node": 3}; None null; bool true/false; int 3; float 3.0 (non-finite as
// {"float": "inf" | "-inf" | "nan"}); string "s"; dtype {"dtype": "f32"}; list [ ... ].
#pragma once

#include "engine/ir/graph.h"
#include "engine/session/events.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <utility>
#include <vector>

namespace kiln::storage {

// FX's spelling of node kinds: placeholder, call_function, call_method, get_attr, output.
std::string nodeKindName(ir::NodeKind k);
ir::NodeKind nodeKindFromName(const std::string& s);

nlohmann::json argToJson(const ir::Arg& a);
ir::Arg argFromJson(const nlohmann::json& j);

// args as a JSON array; kwargs as an array of [key, arg] pairs (keeps their order).
std::string argsToJson(const std::vector<ir::Arg>& args);
std::vector<ir::Arg> argsFromJson(const std::string& text);
std::string kwargsToJson(const std::vector<std::pair<std::string, ir::Arg>>& kwargs);
std::vector<std::pair<std::string, ir::Arg>> kwargsFromJson(const std::string& text);

// Dims are integers, or the symbol's name for symbolic dims.
std::string typesToJson(const std::vector<ir::TensorType>& types);
std::vector<ir::TensorType> typesFromJson(const std::string& text);

std::string sourceLocsToJson(const std::vector<ir::SourceLoc>& locs);
std::vector<ir::SourceLoc> sourceLocsFromJson(const std::string& text);

std::string intsToJson(const std::vector<int>& v);
std::vector<int> intsFromJson(const std::string& text);
std::string int64sToJson(const std::vector<int64_t>& v);  // a tensor's shape
std::vector<int64_t> int64sFromJson(const std::string& text);
// A GPU kernel's figures (schema 10's kernels.gpu_json): arch, launch, registers, shared memory,
// stack, spills, notes; its PTX and SASS have columns of their own. "" for a CPU kernel.
std::string gpuInfoToJson(const session::KernelGpuInfo& g);
session::KernelGpuInfo gpuInfoFromJson(const std::string& text);  // "" gives the empty one
std::string stringsToJson(const std::vector<std::string>& v);
std::vector<std::string> stringsFromJson(const std::string& text);

std::string guardsToJson(const std::vector<session::Guard>& guards);
std::vector<session::Guard> guardsFromJson(const std::string& text);
std::string rulesToJson(const std::vector<session::RuleHit>& rules);
std::vector<session::RuleHit> rulesFromJson(const std::string& text);
// A stage's rule applications (schema 11): "" for none, so passes without a rule table cost nothing.
std::string applicationsToJson(const std::vector<session::RuleApplication>& apps);
std::vector<session::RuleApplication> applicationsFromJson(const std::string& text);

}  // namespace kiln::storage
