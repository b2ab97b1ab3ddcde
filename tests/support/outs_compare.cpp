#include "tests/support/outs_compare.h"

#include <cmath>

namespace kiln::test {

namespace {
double num(const nlohmann::json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s == "nan") return NAN;
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  return v.get<double>();
}
nlohmann::json asList(const nlohmann::json& d) { return d.is_array() ? d : nlohmann::json::array({d}); }

// The oracle's files store a string as {"dtype": "str", "shape": [], "data": [s]}; runs and
// compiled values give the plain string.
nlohmann::json plainString(const nlohmann::json& v) {
  if (v.is_object() && v.value("dtype", "") == "str" && v.contains("data") && v["data"].size() == 1) return v["data"][0];
  return v;
}

}  // namespace

std::string compareOuts(const nlohmann::json& actual, const nlohmann::json& expected) { return compareOuts(actual, expected, 1e-3); }

std::string compareOuts(const nlohmann::json& actual, const nlohmann::json& expected, double rel) {
  for (auto it = expected.begin(); it != expected.end(); ++it) {
    const std::string& key = it.key();
    if (!actual.contains(key)) return key + ": missing";
    const auto e = plainString(it.value());
    const auto a = plainString(actual[key]);
    if (e.is_string() || a.is_string()) {
      if (a != e) return key + ": expected " + e.dump() + ", got " + a.dump();
      continue;
    }
    if (a["shape"] != e["shape"]) return key + ": shape " + a["shape"].dump() + " vs expected " + e["shape"].dump();
    if (a["dtype"] != e["dtype"]) return key + ": dtype " + a["dtype"].dump() + " vs expected " + e["dtype"].dump();
    auto ad = asList(a["data"]), ed = asList(e["data"]);
    if (ad.size() != ed.size()) return key + ": " + std::to_string(ad.size()) + " values vs " + std::to_string(ed.size());
    double maxAbs = 0;
    for (const auto& v : ed) {
      double x = num(v);
      if (std::isfinite(x)) maxAbs = std::max(maxAbs, std::fabs(x));
    }
    for (size_t i = 0; i < ed.size(); ++i) {
      double x = num(ad[i]), y = num(ed[i]);
      if (std::isnan(y) || std::isnan(x)) {
        if (std::isnan(x) != std::isnan(y)) return key + "[" + std::to_string(i) + "]: NaN mismatch";
        continue;
      }
      if (std::isinf(y) || std::isinf(x)) {
        if (x != y) return key + "[" + std::to_string(i) + "]: " + std::to_string(x) + " vs " + std::to_string(y);
        continue;
      }
      if (std::fabs(x - y) > 1e-4 * std::max(1.0, maxAbs) + rel * std::fabs(y))
        return key + "[" + std::to_string(i) + "]: " + std::to_string(x) + " vs expected " + std::to_string(y);
    }
  }
  return "";
}

}  // namespace kiln::test
