// Graph::add / uniqueName through the name index give the names the old scan of every node gave
// (FX's: hint, hint_1, hint_2, a numeric suffix stripped before counting, builtins avoided):
// after adds, rename(), remove(), and direct edits of `nodes` (append, insert, erase, a rename of
// the last node), with suffix collisions (x_01 and x_1, 18- and 19-digit suffixes, `_5`).
#include "engine/ir/graph.h"
#include "tests/ir/named_node.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <unordered_set>

using namespace kiln::ir;

namespace {

using kiln::ir_test::named;

bool digits(const std::string& s, size_t from) {
  return from < s.size() && std::all_of(s.begin() + static_cast<long>(from), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// uniqueName as it was before the index: one scan of every node per call.
std::string scanUniqueName(const Graph& g, const std::string& hint) {
  static const std::set<std::string> kReserved = {
      "input",  "list",  "dict", "tuple", "set",  "int",    "float", "bool",  "str",    "type",  "len",    "min",
      "max",    "sum",   "abs",  "range", "map",  "filter", "id",    "print", "object", "slice", "None",   "True",
      "False",  "and",   "or",   "not",   "if",   "else",   "for",   "in",    "is",     "def",   "return", "class",
      "lambda", "while", "with", "as",    "from", "import", "pass",  "self",  "torch",  "inf",   "nan"};
  std::string base = hint.empty() ? "node" : hint;
  auto us = base.rfind('_');
  if (us != std::string::npos && digits(base, us + 1)) base = base.substr(0, us);
  bool hintTaken = false;
  std::unordered_set<long long> suffixes;
  for (const auto& n : g.nodes) {
    const std::string& nm = n.name;
    if (nm == hint) hintTaken = true;
    if (nm.size() > base.size() + 1 && nm[base.size()] == '_' && nm.compare(0, base.size(), base) == 0 &&
        nm.size() - base.size() - 1 <= 18 && digits(nm, base.size() + 1))
      suffixes.insert(std::stoll(nm.substr(base.size() + 1)));
  }
  if (!hintTaken && !kReserved.count(hint)) return hint;
  for (long long i = 1;; ++i)
    if (!suffixes.count(i)) return base + "_" + std::to_string(i);
}

// The name add() must give `name` in g.
std::string scanAddName(const Graph& g, std::string name) {
  if (name.empty()) name = "node";
  for (const auto& n : g.nodes)
    if (n.name == name) return scanUniqueName(g, name);
  return name;
}

std::string addChecked(Graph& g, const std::string& name) {
  const std::string expected = scanAddName(g, name);
  const std::string got = g.add(named(name)).name;
  EXPECT_EQ(got, expected) << "adding '" << name << "'";
  return got;
}

void expectUniqueNamesAgree(const Graph& g, const std::vector<std::string>& hints) {
  for (const auto& h : hints) EXPECT_EQ(g.uniqueName(h), scanUniqueName(g, h)) << "hint '" << h << "'";
}

const std::vector<std::string> kHints = {"x",
                                         "x_1",
                                         "x_2",
                                         "x_01",
                                         "x_0",
                                         "y",
                                         "node",
                                         "",
                                         "input",
                                         "input_1",
                                         "_5",
                                         "a_b_3",
                                         "a_b",
                                         "x_123456789012345678",
                                         "x_1234567890123456789",
                                         "mul",
                                         "mul_7",
                                         "x__1"};

TEST(GraphNames, CountsUpFromTheStrippedBase) {
  Graph g;
  EXPECT_EQ(addChecked(g, "x"), "x");
  EXPECT_EQ(addChecked(g, "x"), "x_1");
  EXPECT_EQ(addChecked(g, "x"), "x_2");
  EXPECT_EQ(addChecked(g, "x_1"), "x_3");  // x_1 is taken: count up from x, not x_1_1
  EXPECT_EQ(addChecked(g, "x_7"), "x_7");  // free: kept
  EXPECT_EQ(addChecked(g, "x"), "x_4");
  EXPECT_EQ(addChecked(g, ""), "node");
  EXPECT_EQ(addChecked(g, ""), "node_1");
  EXPECT_EQ(g.uniqueName("input"), "input_1");  // a builtin, even when free
  EXPECT_EQ(addChecked(g, "input"), "input");   // add() keeps a free name as given
  expectUniqueNamesAgree(g, kHints);
}

TEST(GraphNames, SuffixCollisions) {
  Graph g;
  addChecked(g, "x");
  addChecked(g, "x_01");  // counts as suffix 1: the next free one is 2
  EXPECT_EQ(g.uniqueName("x"), "x_2");
  addChecked(g, "x_123456789012345678");   // 18 digits: a suffix
  addChecked(g, "x_1234567890123456789");  // 19 digits: not one
  addChecked(g, "_5");                     // base "" with suffix 5
  addChecked(g, "_5");
  addChecked(g, "a_b_1");
  addChecked(g, "a_b");
  addChecked(g, "a_b");
  addChecked(g, "x__1");
  expectUniqueNamesAgree(g, kHints);
}

TEST(GraphNames, RenamesAndRemovalsFreeNames) {
  Graph g;
  std::vector<int> ids;
  for (int i = 0; i < 6; ++i) ids.push_back(g.add(named("x")).id);  // x, x_1 .. x_5
  g.rename(ids[2], "y");                                            // frees x_2
  EXPECT_EQ(addChecked(g, "x"), "x_2");
  EXPECT_EQ(addChecked(g, "y"), "y_1");
  g.remove(ids[1]);  // frees x_1
  EXPECT_EQ(addChecked(g, "x"), "x_1");
  g.rename(ids[4], "");  // capture's nameHint frees the old name before choosing
  EXPECT_EQ(g.uniqueName("x"), "x_4");
  g.rename(ids[4], g.uniqueName("x"));
  EXPECT_EQ(g.find(ids[4])->name, "x_4");
  expectUniqueNamesAgree(g, kHints);
}

TEST(GraphNames, DirectEditsOfNodesAreSeen) {
  Graph g;
  for (int i = 0; i < 10; ++i) addChecked(g, "x");
  g.nodes.push_back(named("x_10"));  // appended directly
  EXPECT_EQ(addChecked(g, "x"), "x_11");
  g.nodes.erase(g.nodes.begin() + 3);  // x_3 erased directly
  EXPECT_EQ(addChecked(g, "x"), "x_3");
  g.nodes.insert(g.nodes.begin(), named("x_12"));  // inserted directly
  EXPECT_EQ(addChecked(g, "x"), "x_13");
  g.nodes.back().name = "z";  // the node add() returned, renamed in place
  EXPECT_EQ(addChecked(g, "z"), "z_1");
  EXPECT_EQ(addChecked(g, "x"), "x_13");
  g.nodes.pop_back();  // x_13
  g.nodes.pop_back();  // z_1
  EXPECT_EQ(addChecked(g, "z"), "z_1");
  g.insert(1, named("x"));  // insert() names as add() does
  EXPECT_EQ(g.nodes[1].name, "x_13");
  g.nodes.clear();
  EXPECT_EQ(addChecked(g, "x"), "x");
  expectUniqueNamesAgree(g, kHints);
}

TEST(GraphNames, CopiesAndMovesKeepTheirOwnNames) {
  Graph g;
  for (int i = 0; i < 4; ++i) addChecked(g, "x");
  Graph c = g;
  EXPECT_EQ(addChecked(c, "x"), "x_4");
  EXPECT_EQ(addChecked(g, "x"), "x_4");  // the copy's add did not touch g
  Graph m = std::move(c);
  EXPECT_EQ(addChecked(m, "x"), "x_5");
  c = Graph{};
  EXPECT_EQ(addChecked(c, "x"), "x");
}

// Random adds, inserts, renames, removals and direct appends and erasures, checked against the
// scan. (A direct erasure and a direct insertion before the last node with no add() or
// uniqueName() between them keep the node count and the last node: the index would not notice.
// Capture inserts its inputs through insert().)
TEST(GraphNames, AgreesWithAScanUnderRandomEdits) {
  std::mt19937 rng(17);
  const std::vector<std::string> pool = {"x", "x_1", "x_2", "x_3", "x_01", "y", "y_2", "", "input", "a_b_1", "a_b", "_1", "mul", "mul_1"};
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  Graph g;
  for (int step = 0; step < 3000; ++step) {
    const std::string& name = pool[pick(pool.size())];
    switch (g.nodes.empty() ? 0 : pick(8)) {
      case 0:
      case 1:
      case 2: addChecked(g, name); break;
      case 3: g.rename(g.nodes[pick(g.nodes.size())].id, g.uniqueName(name)); break;
      case 4: g.remove(g.nodes[pick(g.nodes.size())].id); break;
      case 5: g.nodes.erase(g.nodes.begin() + static_cast<long>(pick(g.nodes.size()))); break;
      case 6: g.insert(pick(g.nodes.size() + 1), named(name)); break;
      case 7: {
        Node n = named(scanUniqueName(g, name));
        n.id = g.nextId();
        g.reserveIds(n.id + 1);
        g.nodes.push_back(n);
        break;
      }
    }
    if (step % 50 == 0) expectUniqueNamesAgree(g, kHints);
  }
  std::set<std::string> names;
  for (const auto& n : g.nodes) EXPECT_TRUE(names.insert(n.name).second) << "duplicate " << n.name;
}

}  // namespace
