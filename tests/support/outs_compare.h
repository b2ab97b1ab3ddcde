// Compares out* values in the oracle's outs.json form, with the corpus tolerance:
// |a - b| <= 1e-4 * max(1, max|b|) + 1e-3 * |b| elementwise; NaN must match NaN.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kiln::test {

// "" when equal within tolerance, else a description of the first difference.
std::string compareOuts(const nlohmann::json& actual, const nlohmann::json& expected);
// The same with another relative term: |a - b| <= 1e-4 * max(1, max|b|) + rel * |b| (a GPU's
// TF32 convolutions against a CPU oracle).
std::string compareOuts(const nlohmann::json& actual, const nlohmann::json& expected, double rel);

}  // namespace kiln::test
