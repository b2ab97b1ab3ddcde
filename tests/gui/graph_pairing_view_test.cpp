// The studio's graph diff paired by provenance (GraphDiffView::Match::ByProvenance, used for the
// captured graphs of an imported PyTorch run against Kiln's): nodes with other names but the
// same op and source line are partners, coloured only where they differ, and selecting one
// selects its partner on the other side.
#include "engine/ir/text.h"
#include "viewers/graph_diff_view.h"
#include "viewers/graph_node_item.h"
#include "viewers/graph_view.h"

#include <QtTest>

#include <map>
#include <string>

using namespace kiln;
using namespace kiln::viewers;

namespace {

// PyTorch's names and Kiln's differ (relu_1 / relu, mul_3 / mul); Kiln multiplies by 3, not 2,
// and adds a neg on line 22 that the sum then reads.
const char* kTorch = R"G(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4][1]cpu"):
        l_x_ = L_x_
        # File: /home/user/p.py:20 in f, code: y = x.relu()
        relu_1: "f32[4][1]cpu" = l_x_.relu()
        # File: /home/user/p.py:21 in f, code: y = y * 2
        mul_3: "f32[4][1]cpu" = relu_1 * 2;  relu_1 = None
        # File: /home/user/p.py:22 in f, code: return y - x
        add: "f32[4][1]cpu" = mul_3 + l_x_;  mul_3 = l_x_ = None
        return (add,)
)G";

const char* kKiln = R"G(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4]"):
        l_x_ = L_x_
        # File: /work/p.py:20 in f, code: y = x.relu()
        relu: "f32[4]" = l_x_.relu()
        # File: /work/p.py:21 in f, code: y = y * 2
        mul: "f32[4]" = relu * 3;  relu = None
        # File: /work/p.py:22 in f, code: return y - x
        neg: "f32[4]" = -l_x_
        add: "f32[4]" = mul + neg;  mul = neg = None
        return (add,)
)G";

std::map<std::string, GraphNodeItem::Change> marks(GraphView* v) {
  std::map<std::string, GraphNodeItem::Change> m;
  for (GraphNodeItem* n : v->nodeItems())
    if (n->change() != GraphNodeItem::Change::None) m[n->name().toStdString()] = n->change();
  return m;
}

QString selectedName(GraphView* v) {
  for (GraphNodeItem* n : v->nodeItems())
    if (n->isSelected()) return n->name();
  return {};
}

}  // namespace

class GraphPairingViewTest : public QObject {
  Q_OBJECT

 private slots:
  void pairsByProvenanceAndSelectsPartners() {
    GraphDiffView pair;
    pair.resize(1000, 500);
    pair.show();
    const ir::Graph a = ir::parseGraph(kTorch), b = ir::parseGraph(kKiln);
    pair.showPair(a, QStringLiteral("PyTorch"), b, QStringLiteral("Kiln"), GraphDiffView::Match::ByProvenance);
    QTRY_VERIFY_WITH_TIMEOUT(!pair.before()->nodeItems().isEmpty() && !pair.after()->nodeItems().isEmpty(), 20000);
    QCOMPARE(pair.pairingSummary(), QStringLiteral("5 paired by op and source line (2 differ), 0 only in A, 1 only in B"));
    // Renamed nodes are no change (a name diff would mark relu_1 gone and relu new).
    using C = GraphNodeItem::Change;
    QCOMPARE(marks(pair.before()), (std::map<std::string, C>{{"mul_3", C::Changed}, {"add", C::Changed}}));
    QCOMPARE(marks(pair.after()), (std::map<std::string, C>{{"mul", C::Changed}, {"add", C::Changed}, {"neg", C::Added}}));
    const QString report = pair.pairingReport();
    QVERIFY2(report.contains(QStringLiteral("~ mul_3 (_operator.mul) at p.py:21 <-> mul (_operator.mul) at p.py:21: argument 1 2 vs 3")),
             qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("+ only in B: neg (_operator.neg) at p.py:22")), qPrintable(report));
    // Selecting a node selects its partner on the other side, either way round.
    auto idOf = [](const ir::Graph& g, const char* name) {
      for (const auto& n : g.nodes)
        if (n.name == name) return n.id;
      return -1;
    };
    pair.before()->selectNode(idOf(a, "relu_1"));
    QCOMPARE(selectedName(pair.after()), QStringLiteral("relu"));
    pair.after()->selectNode(idOf(b, "mul"));
    QCOMPARE(selectedName(pair.before()), QStringLiteral("mul_3"));
    // A node without a partner clears the other side's selection.
    pair.after()->selectNode(idOf(b, "neg"));
    QCOMPARE(selectedName(pair.before()), QString());
    // By name (two runs of one compiler), the same graphs: the renamed nodes differ.
    pair.showPair(a, QStringLiteral("A"), b, QStringLiteral("B"));
    QTRY_VERIFY_WITH_TIMEOUT(!pair.after()->nodeItems().isEmpty() && pair.after()->changes().added.size() == 3, 20000);
    QCOMPARE(pair.match(), GraphDiffView::Match::ByName);
  }
};

QTEST_MAIN(GraphPairingViewTest)
#include "graph_pairing_view_test.moc"
