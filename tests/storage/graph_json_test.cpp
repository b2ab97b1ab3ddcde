// The JSON forms of IR values round-trip exactly; malformed JSON is a StoreError.
#include "storage/graph_json.h"
#include "storage/store.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

namespace kiln::storage {
namespace {

ir::Arg roundTrip(const ir::Arg& a) { return argFromJson(nlohmann::json::parse(argToJson(a).dump())); }

TEST(StorageGraphJson, EveryArgKindRoundTrips) {
  std::vector<ir::Arg> args = {
      ir::Arg::ref(7),
      ir::Arg::none(),
      ir::Arg::boolean(false),
      ir::Arg::integer(std::numeric_limits<int64_t>::min()),
      ir::Arg::integer(std::numeric_limits<int64_t>::max()),
      ir::Arg::real(0.1),
      ir::Arg::real(2.0),  // integral floats stay floats
      ir::Arg::real(1e-300),
      ir::Arg::real(-std::numeric_limits<double>::infinity()),
      ir::Arg::real(std::numeric_limits<double>::infinity()),
      ir::Arg::string(""),
      ir::Arg::string("{\"node\": 1}"),  // a string that looks like a tagged form
      ir::Arg::dtypeArg(ir::DType::BFloat16),
      ir::Arg::listOf({}),
      ir::Arg::listOf({ir::Arg::ref(1), ir::Arg::listOf({ir::Arg::real(1.5), ir::Arg::none()})}),
  };
  for (const auto& a : args) EXPECT_EQ(roundTrip(a), a) << argToJson(a).dump();
  EXPECT_EQ(argsFromJson(argsToJson(args)), args);
  EXPECT_EQ(roundTrip(ir::Arg::real(2.0)).kind, ir::Arg::Kind::Float);
  EXPECT_EQ(roundTrip(ir::Arg::integer(2)).kind, ir::Arg::Kind::Int);
}

// argsToJson / kwargsToJson write most arguments without building nlohmann values; what they write
// is byte for byte what nlohmann dumps (stored rows and their digests stay as they were).
TEST(StorageGraphJson, ArgumentsAreSpelledAsNlohmannDumpsThem) {
  auto slow = [](const std::vector<ir::Arg>& args) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& x : args) a.push_back(argToJson(x));
    return a.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  std::mt19937 rng(7);
  const std::vector<std::string> strings = {"",      "x",    "aten.add.Tensor", "s0*s1 + 2",     "quote\"d",   "back\\slash",
                                            "tab\t", "\x01", "caf\xC3\xA9",     "bad \xFF utf8", "~ ok {}[]:,"};
  std::function<ir::Arg(int)> random = [&](int depth) -> ir::Arg {
    switch (rng() % (depth > 2 ? 9 : 10)) {
      case 0: return ir::Arg::ref(static_cast<int>(rng() % 100000));
      case 1: return ir::Arg::none();
      case 2: return ir::Arg::boolean(rng() % 2);
      case 3: return ir::Arg::integer(static_cast<int64_t>(rng()) * (rng() % 2 ? 1 : -977));
      case 4: {
        const double pick[] = {0.1, 2.0, -0.0, 1e-5, 1e300, 3.14159, std::nan(""), -std::numeric_limits<double>::infinity()};
        return ir::Arg::real(pick[rng() % 8]);
      }
      case 5: return ir::Arg::string(strings[rng() % strings.size()]);
      case 6: return ir::Arg::dtypeArg(rng() % 2 ? ir::DType::Float32 : ir::DType::Int64);
      case 7: return ir::Arg::expr(strings[rng() % strings.size()]);
      case 8: return ir::Arg::integer(static_cast<int64_t>(rng() % 10));
      default: {
        std::vector<ir::Arg> l;
        for (int i = 0, n = static_cast<int>(rng() % 4); i < n; ++i) l.push_back(random(depth + 1));
        return ir::Arg::listOf(std::move(l));
      }
    }
  };
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<ir::Arg> args;
    std::vector<std::pair<std::string, ir::Arg>> kwargs;
    for (int i = 0, n = static_cast<int>(rng() % 5); i < n; ++i) args.push_back(random(0));
    for (int i = 0, n = static_cast<int>(rng() % 3); i < n; ++i) kwargs.emplace_back(strings[rng() % strings.size()], random(0));
    ASSERT_EQ(argsToJson(args), slow(args)) << trial;
    nlohmann::json k = nlohmann::json::array();
    for (const auto& [name, v] : kwargs) k.push_back(nlohmann::json::array({name, argToJson(v)}));
    ASSERT_EQ(kwargsToJson(kwargs), k.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) << trial;
  }
}

TEST(StorageGraphJson, NanRoundTripsAsNan) {
  ir::Arg a = roundTrip(ir::Arg::real(std::nan("")));
  EXPECT_EQ(a.kind, ir::Arg::Kind::Float);
  EXPECT_TRUE(std::isnan(a.f));
}

TEST(StorageGraphJson, KwargsKeepTheirOrder) {
  std::vector<std::pair<std::string, ir::Arg>> kw = {{"z", ir::Arg::integer(1)}, {"a", ir::Arg::none()}};
  EXPECT_EQ(kwargsFromJson(kwargsToJson(kw)), kw);
}

TEST(StorageGraphJson, TensorTypesRoundTrip) {
  ir::TensorType a;
  a.dtype = ir::DType::Int64;
  a.sizes = {ir::Dim::sym("s0"), 3, 0};
  a.strides = {3, 1, 1};
  a.device = "cuda:1";
  a.requiresGrad = true;
  ir::TensorType b;  // scalar, contiguous, cpu
  ir::Dim hinted = ir::Dim::sym("s1");
  hinted.value = 8;
  ir::TensorType c;
  c.sizes = {hinted};
  std::vector<ir::TensorType> types = {a, b, c};
  EXPECT_EQ(typesFromJson(typesToJson(types)), types);
}

TEST(StorageGraphJson, ListsGuardsAndRulesRoundTrip) {
  std::vector<int> ints = {3, -1, 0};
  EXPECT_EQ(intsFromJson(intsToJson(ints)), ints);
  std::vector<std::string> strs = {"a", "", "line\nbreak"};
  EXPECT_EQ(stringsFromJson(stringsToJson(strs)), strs);
  auto guards = guardsFromJson(guardsToJson({{"ID_MATCH", "G['m']", "___check_obj_id(G['m'], 1)", 9}}));
  ASSERT_EQ(guards.size(), 1u);
  EXPECT_EQ(guards[0].kind, "ID_MATCH");
  EXPECT_EQ(guards[0].line, 9);
  auto rules = rulesFromJson(rulesToJson({{"x + 0 -> x", 3, {1, 2}}}));
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].nodes, (std::vector<int>{1, 2}));
}

TEST(StorageGraphJson, NodeKindNames) {
  for (auto k :
       {ir::NodeKind::Placeholder, ir::NodeKind::CallFunction, ir::NodeKind::CallMethod, ir::NodeKind::GetAttr, ir::NodeKind::Output})
    EXPECT_EQ(nodeKindFromName(nodeKindName(k)), k);
  EXPECT_THROW(nodeKindFromName("call_everything"), StoreError);
}

TEST(StorageGraphJson, InvalidUtf8IsWrittenNotThrown) {
  std::string bad = "caf\xe9";
  std::string text;
  EXPECT_NO_THROW(text = argsToJson({ir::Arg::string(bad)}));
  EXPECT_EQ(argsFromJson(text).size(), 1u);
}

TEST(StorageGraphJson, MalformedJsonIsAStoreError) {
  EXPECT_THROW(argsFromJson("[1, "), StoreError);
  EXPECT_THROW(argsFromJson("[{\"what\": 1}]"), StoreError);
  EXPECT_THROW(typesFromJson("[{\"dtype\": \"f99\", \"sizes\": []}]"), StoreError);
  EXPECT_THROW(typesFromJson("[{\"dtype\": 3}]"), StoreError);
  EXPECT_THROW(intsFromJson("[\"x\"]"), StoreError);
  EXPECT_THROW(kwargsFromJson("[[1]]"), StoreError);
}

// Found by tests/fuzz (graph_json_fuzzer): an integer column holding a number too large for its
// field was converted with undefined behaviour (a float such as 77777777777777777777711 into an
// int) or wrapped silently (2^31 into an int, 2^64-1 into an int64). Each is now a StoreError.
TEST(StorageGraphJson, IntegersOutOfRangeAreAStoreError) {
  EXPECT_THROW(intsFromJson("[77777777777777777777711,121,1]"), StoreError);
  EXPECT_THROW(intsFromJson("[2147483648]"), StoreError);
  EXPECT_THROW(intsFromJson("[1.5]"), StoreError);
  EXPECT_THROW(intsFromJson("{\"a\": 1}"), StoreError);
  EXPECT_EQ(intsFromJson("[-2147483648, 2147483647]"), (std::vector<int>{-2147483648, 2147483647}));
  EXPECT_THROW(argsFromJson("[18446744073709551615]"), StoreError);
  EXPECT_EQ(argsFromJson("[9223372036854775807]"), std::vector<ir::Arg>{ir::Arg::integer(9223372036854775807)});
  EXPECT_THROW(argsFromJson("[{\"node\": 1e30}]"), StoreError);
  EXPECT_THROW(typesFromJson("[{\"dtype\": \"f32\", \"sizes\": [1e30]}]"), StoreError);
  EXPECT_THROW(typesFromJson("[{\"dtype\": \"f32\", \"sizes\": [{\"sym\": \"s0\", \"value\": 1e300}]}]"), StoreError);
  EXPECT_THROW(sourceLocsFromJson("[{\"line\": 1e20}]"), StoreError);
  EXPECT_THROW(guardsFromJson("[{\"line\": 4294967296}]"), StoreError);
  EXPECT_THROW(rulesFromJson("[{\"count\": 1, \"nodes\": [1e10]}]"), StoreError);
  EXPECT_THROW(rulesFromJson("[{\"count\": -1e10}]"), StoreError);
  EXPECT_EQ(rulesFromJson("[{\"rule\": \"r\", \"count\": 2, \"nodes\": [3]}]").at(0).nodes, std::vector<int>{3});
}

}  // namespace
}  // namespace kiln::storage
