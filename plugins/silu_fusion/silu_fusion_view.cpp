// silu_fusion's studio view: the studio plugin (plugin_host/kiln_studio_plugin.h) of the
// silu_fusion pass plugin. Its stage `pass:silu_fusion` gets a "SiLU fusion" tab: one row per
// rewrite, the product x * sigmoid(x) it replaced (named in the pass's input graph), x, the
// sigmoid and whether it went (nothing else read it) or stayed, the silu node that replaced the
// product in the stage's graph, its type and source line. Everything comes from what the store
// holds for the stage (the rules the pass recorded and the graphs before and after it); the
// engine is not needed, which is why this is a library of its own (silu_fusion.studio.so) and
// not part of silu_fusion.so.
#include "plugin_host/kiln_studio_plugin.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QWidget>

namespace {

using kiln::ir::Arg;
using kiln::ir::Graph;
using kiln::ir::Node;

QString qs(const std::string& s) { return QString::fromStdString(s); }

const Node* argNode(const Graph& g, const Arg& a) { return a.kind == Arg::Kind::Node ? g.find(a.node) : nullptr; }

struct Rewrite {
  QString rule;
  const Node* product = nullptr;  // in the pass's input graph
  const Node* x = nullptr;
  const Node* sigmoid = nullptr;
  const Node* silu = nullptr;  // in the stage's graph
  bool sigmoidStayed = false;
};

// The rewrites the pass recorded (rule hits name the products, in its input graph), matched to
// the silu(x) each became in its output.
std::vector<Rewrite> rewrites(const kiln::viewers::StageViewInput& in) {
  std::vector<Rewrite> out;
  for (const auto& hit : in.stage.rules)
    for (int id : hit.nodes) {
      Rewrite r;
      r.rule = qs(hit.rule);
      r.product = in.previous ? in.previous->find(id) : nullptr;
      if (r.product && r.product->args.size() == 2)
        for (size_t i = 0; i < 2; ++i) {
          const Node* s = argNode(*in.previous, r.product->args[i]);
          const Node* x = argNode(*in.previous, r.product->args[1 - i]);
          if (s && x && s->target == "aten.sigmoid.default" && !s->args.empty() && s->args[0].kind == Arg::Kind::Node &&
              s->args[0].node == x->id) {
            r.sigmoid = s;
            r.x = x;
          }
        }
      if (r.x)
        for (const Node& n : in.graph.nodes)
          if (n.target == "aten.silu.default" && !n.args.empty() && n.args[0].kind == Arg::Kind::Node && n.args[0].node == r.x->id)
            r.silu = &n;
      r.sigmoidStayed = r.sigmoid && in.graph.find(r.sigmoid->id);
      out.push_back(r);
    }
  return out;
}

QWidget* makeView(const kiln::viewers::StageViewInput& in) {
  const std::vector<Rewrite> list = rewrites(in);
  auto* view = new QWidget;
  view->setObjectName(QStringLiteral("siluFusionView"));
  auto* layout = new QVBoxLayout(view);
  int stayed = 0;
  for (const auto& r : list) stayed += r.sigmoidStayed ? 1 : 0;
  auto* summary =
      new QLabel(list.empty() ? QObject::tr("[%1] silu_fusion found no x * sigmoid(x): the graph is unchanged.").arg(qs(in.stage.compileId))
                              : QObject::tr("[%1] silu_fusion rewrote %2 product(s) x * sigmoid(x) into silu(x); %3 sigmoid(s) "
                                            "removed, %4 kept because something else reads them. Each silu is one pointwise "
                                            "op of the fused kernel (its body is x * sigmoid(x): the numbers do not change).")
                                    .arg(qs(in.stage.compileId))
                                    .arg(list.size())
                                    .arg(static_cast<int>(list.size()) - stayed)
                                    .arg(stayed));
  summary->setWordWrap(true);
  layout->addWidget(summary);
  auto* table = new QTableWidget(static_cast<int>(list.size()), 7, view);
  table->setObjectName(QStringLiteral("siluFusionRewrites"));
  table->setHorizontalHeaderLabels({QObject::tr("Rule"), QObject::tr("Product (before)"), QObject::tr("x"), QObject::tr("sigmoid(x)"),
                                    QObject::tr("Became"), QObject::tr("Type"), QObject::tr("Line")});
  auto name = [](const Node* n) { return n ? qs(n->name) : QObject::tr("?"); };
  for (int row = 0; row < table->rowCount(); ++row) {
    const Rewrite& r = list[static_cast<size_t>(row)];
    const Node* typed = r.silu ? r.silu : r.product;
    const int line = r.product ? r.product->prov.loc.line : 0;
    const QStringList cells = {
        r.rule,
        name(r.product),
        name(r.x),
        r.sigmoid ? name(r.sigmoid) + (r.sigmoidStayed ? QObject::tr(" (kept: read elsewhere)") : QObject::tr(" (removed)"))
                  : QObject::tr("?"),
        r.silu ? name(r.silu) + QStringLiteral(" = silu(") + name(r.x) + QStringLiteral(")") : QObject::tr("? (not in this stage)"),
        typed && !typed->types.empty() ? qs(typed->types[0].str()) : QString(),
        line > 0 ? QString::number(line) : QString()};
    for (int c = 0; c < static_cast<int>(cells.size()); ++c) table->setItem(row, c, new QTableWidgetItem(cells[c]));
  }
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->verticalHeader()->hide();
  table->horizontalHeader()->setStretchLastSection(true);
  table->resizeColumnsToContents();
  layout->addWidget(table, 1);
  return view;
}

void registerAll(kiln::plugin::StudioRegistrar& r) { r.addStageView({"silu_fusion", "SiLU fusion", {"pass:silu_fusion"}, makeView}); }

}  // namespace

KILN_STUDIO_PLUGIN("silu_fusion_view", "the silu_fusion pass's rewrites as a table (the studio view of plugins/silu_fusion)", registerAll)
