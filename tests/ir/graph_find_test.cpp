// Graph::find / indexOf through the id index: nodes appended after a lookup are found without
// rebuilding it (capture names each node it adds), and direct edits of `nodes` (erase, insert,
// reorder, a duplicate id) still give what a linear scan would: the first node with that id.
#include "engine/ir/graph.h"
#include "tests/ir/named_node.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace kiln::ir;

namespace {

using kiln::ir_test::named;

// What find() must agree with.
int scan(const Graph& g, int id) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].id == id) return static_cast<int>(i);
  return -1;
}

void expectAgreesWithScan(const Graph& g, int maxId) {
  for (int id = -1; id <= maxId + 1; ++id) {
    EXPECT_EQ(g.indexOf(id), scan(g, id)) << "id " << id;
    const Node* n = g.find(id);
    EXPECT_EQ(n == nullptr, scan(g, id) < 0) << "id " << id;
    if (n) { EXPECT_EQ(n, &g.nodes[static_cast<size_t>(scan(g, id))]) << "id " << id; }
  }
}

TEST(GraphFind, NodesAddedAfterALookupAreFound) {
  Graph g;
  for (int i = 0; i < 100; ++i) {
    int id = g.add(named("n" + std::to_string(i))).id;
    ASSERT_NE(g.find(id), nullptr);  // the node just added, as capture's nameHint looks it up
    EXPECT_EQ(g.find(id)->name, "n" + std::to_string(i));
    EXPECT_EQ(g.indexOf(id), i);
  }
  expectAgreesWithScan(g, 100);
}

TEST(GraphFind, DirectEditsOfNodesAreSeen) {
  Graph g;
  for (int i = 0; i < 20; ++i) g.add(named("n" + std::to_string(i)));
  expectAgreesWithScan(g, 20);

  g.nodes.erase(g.nodes.begin() + 5);  // positions after it shift
  g.add(named("late"));
  expectAgreesWithScan(g, 21);

  g.nodes.insert(g.nodes.begin() + 2, named("inserted"));
  g.nodes[2].id = 40;
  expectAgreesWithScan(g, 41);

  std::reverse(g.nodes.begin(), g.nodes.end());
  expectAgreesWithScan(g, 41);

  // A duplicate id appended at the back: the first one still wins, as with a scan.
  Node dup = named("dup");
  dup.id = g.nodes[3].id;
  g.nodes.push_back(dup);
  expectAgreesWithScan(g, 41);
  EXPECT_NE(g.find(dup.id)->name, "dup");

  g.nodes.pop_back();
  g.nodes.pop_back();
  expectAgreesWithScan(g, 41);
}

}  // namespace
