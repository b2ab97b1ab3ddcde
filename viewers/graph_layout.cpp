#include "viewers/graph_layout.h"
#include "viewers/layered_layout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

namespace kiln::viewers {
namespace {

constexpr int kMaxLabelChars = 40;               // wider labels are elided so one node cannot dominate
constexpr qsizetype kBigGraphNodes = 300;        // above this, Graphviz's iterations are bounded
constexpr qsizetype kLayeredLayoutNodes = 1000;  // above this, our own layered layout (layered_layout.h)

QString elide(const QString& s) { return s.size() <= kMaxLabelChars ? s : s.left(kMaxLabelChars - 1) + QChar(0x2026); }

// Graphviz keeps global state (the context, its string pool, the layout engines' statics).
std::mutex& graphvizMutex() {
  static std::mutex m;
  return m;
}

// One context for the whole process: creating it loads the plugins, which is slow.
GVC_t* graphvizContext() {
  static GVC_t* gvc = gvContext();
  return gvc;
}

// Graphviz 2.43 takes char* everywhere but copies what it is given.
char* cstr(const std::string& s) { return const_cast<char*>(s.c_str()); }

std::string inches(double points) { return std::to_string(points / 72.0); }

}  // namespace

QStringList nodeLabelLines(const ir::Node& node) {
  QStringList lines{elide(QString::fromStdString(node.name))};
  switch (node.kind) {
    case ir::NodeKind::Placeholder: lines << QStringLiteral("input"); break;
    case ir::NodeKind::Output: lines << QStringLiteral("output"); break;
    default: lines << elide(QString::fromStdString(node.target)); break;
  }
  QStringList types;
  for (const auto& t : node.types) types << QString::fromStdString(t.str());
  if (!types.isEmpty()) lines << elide(types.join(QStringLiteral(", ")));
  return lines;
}

LayoutNode layoutNodeFor(const ir::Node& n, const LabelMetrics& metrics) {
  LayoutNode ln;
  ln.id = n.id;
  ln.name = QString::fromStdString(n.name);
  ln.lines = nodeLabelLines(n);
  ln.kernel = QString::fromStdString(n.kernel);
  ln.sourceLine = n.prov.loc.line;
  qsizetype chars = 0;
  for (const auto& l : ln.lines) chars = std::max(chars, l.size());
  ln.box.setSize({chars * metrics.charWidth + 2 * metrics.padding, ln.lines.size() * metrics.lineHeight + 2 * metrics.padding * 0.75});
  return ln;
}

QString graphToDot(const ir::Graph& graph) {
  auto quote = [](QString t) {
    t.replace(QLatin1Char('\\'), QStringLiteral("\\\\")).replace(QLatin1Char('"'), QStringLiteral("\\\""));
    return QLatin1Char('"') + t + QLatin1Char('"');
  };
  QString out = QStringLiteral("digraph kiln {\n  rankdir=TB;\n  node [shape=box, style=rounded, fontname=monospace, fontsize=10];\n");
  std::map<QString, QStringList> clusters;
  for (const auto& n : graph.nodes) {
    QString line = QStringLiteral("n%1 [label=%2];").arg(n.id).arg(quote(nodeLabelLines(n).join(QLatin1Char('\n'))));
    if (n.kernel.empty()) out += QStringLiteral("  ") + line + QLatin1Char('\n');
    else clusters[QString::fromStdString(n.kernel)] << line;
  }
  for (const auto& [kernel, lines] : clusters) {
    out += QStringLiteral("  subgraph %1 {\n    label=%2;\n    style=filled;\n    fillcolor=\"#fbe3ef\";\n")
               .arg(quote(QStringLiteral("cluster_") + kernel), quote(kernel));
    for (const auto& l : lines) out += QStringLiteral("    ") + l + QLatin1Char('\n');
    out += QStringLiteral("  }\n");
  }
  std::set<std::pair<int, int>> seen;
  for (const auto& n : graph.nodes)
    ir::forEachNodeArg(n, [&](int src) {
      if (seen.insert({src, n.id}).second) out += QStringLiteral("  n%1 -> n%2;\n").arg(src).arg(n.id);
    });
  return out + QStringLiteral("}\n");
}

GraphLayout computeGraphLayout(const ir::Graph& graph, const LabelMetrics& metrics) {
  GraphLayout out;
  if (graph.nodes.empty()) return out;

  // Sizes and labels do not need Graphviz: compute them before taking the lock.
  for (const auto& n : graph.nodes) out.nodes << layoutNodeFor(n, metrics);
  // dot's crossing minimisation on thousands of nodes with long edges runs for minutes (an
  // imported GPT-2 joint graph: 2,405 nodes, still running after 100 s).
  if (out.nodes.size() > kLayeredLayoutNodes) return layeredLayout(graph, std::move(out.nodes));

  std::lock_guard lock(graphvizMutex());
  GVC_t* gvc = graphvizContext();
  Agraph_t* g = agopen(cstr("kiln"), Agdirected, nullptr);
  agattr(g, AGRAPH, cstr("rankdir"), cstr("TB"));
  agattr(g, AGRAPH, cstr("nodesep"), cstr("0.25"));
  agattr(g, AGRAPH, cstr("ranksep"), cstr("0.35"));
  agattr(g, AGRAPH, cstr("labeljust"), cstr("l"));
  agattr(g, AGRAPH, cstr("fontsize"), cstr("11"));
  agattr(g, AGNODE, cstr("shape"), cstr("box"));
  agattr(g, AGNODE, cstr("fixedsize"), cstr("true"));
  agattr(g, AGNODE, cstr("label"), cstr(""));  // the view draws labels; Graphviz only needs sizes
  Agsym_t* widthSym = agattr(g, AGNODE, cstr("width"), cstr("1"));
  Agsym_t* heightSym = agattr(g, AGNODE, cstr("height"), cstr("0.5"));
  Agsym_t* labelSym = agattr(g, AGRAPH, cstr("label"), cstr(""));
  if (out.nodes.size() > kBigGraphNodes) {
    // dot's network simplex and crossing minimisation grow far faster than the graph: on a
    // real model's flat graph (an imported GPT-2 joint graph: 2,405 nodes, long edges from
    // every parameter) they ran for minutes. Bounded iterations keep it to seconds; the
    // layout is slightly less tidy.
    agattr(g, AGRAPH, cstr("nslimit"), cstr("2"));
    agattr(g, AGRAPH, cstr("nslimit1"), cstr("2"));
    agattr(g, AGRAPH, cstr("mclimit"), cstr("0.2"));
    agattr(g, AGRAPH, cstr("searchsize"), cstr("10"));
  }

  std::map<QString, Agraph_t*> clusters;
  std::unordered_map<int, Agnode_t*> gvNodes;
  std::unordered_map<Agnode_t*, int> indexOf;
  for (int i = 0; i < out.nodes.size(); ++i) {
    const LayoutNode& ln = out.nodes[i];
    Agraph_t* parent = g;
    if (!ln.kernel.isEmpty()) {
      auto& sg = clusters[ln.kernel];
      if (!sg) {
        sg = agsubg(g, cstr("cluster_" + ln.kernel.toStdString()), 1);
        agxset(sg, labelSym, cstr(ln.kernel.toStdString()));
      }
      parent = sg;
    }
    Agnode_t* an = agnode(parent, cstr("n" + std::to_string(ln.id)), 1);
    agxset(an, widthSym, cstr(inches(ln.box.width())));
    agxset(an, heightSym, cstr(inches(ln.box.height())));
    gvNodes[ln.id] = an;
    indexOf[an] = i;
  }
  std::set<std::pair<int, int>> seen;  // a node used twice by one consumer gets one edge
  for (const auto& n : graph.nodes) {
    ir::forEachNodeArg(n, [&](int src) {
      auto from = gvNodes.find(src);
      if (from == gvNodes.end() || !seen.insert({src, n.id}).second) return;
      agedge(g, from->second, gvNodes.at(n.id), nullptr, 1);
    });
  }

  if (gvLayout(gvc, g, "dot") != 0) {
    agclose(g);
    out.nodes.clear();
    out.error = QStringLiteral("Graphviz could not lay this graph out (is the dot plugin installed?)");
    return out;
  }

  const boxf bb = GD_bb(g);
  auto flip = [&](pointf p) { return QPointF(p.x, bb.UR.y - p.y); };
  out.bounds = QRectF(flip({bb.LL.x, bb.UR.y}), flip({bb.UR.x, bb.LL.y}));
  for (Agnode_t* an = agfstnode(g); an; an = agnxtnode(g, an)) {
    LayoutNode& ln = out.nodes[indexOf.at(an)];
    ln.box.moveCenter(flip(ND_coord(an)));
    for (Agedge_t* e = agfstout(g, an); e; e = agnxtout(g, e)) {
      const splines* spl = ED_spl(e);
      if (!spl || spl->size == 0) continue;
      LayoutEdge le;
      le.from = ln.id;
      le.to = out.nodes[indexOf.at(aghead(e))].id;
      for (int b = 0; b < spl->size; ++b) {
        const bezier& bz = spl->list[b];
        // Later pieces start where the previous one ended; keep one start point in total.
        for (int k = (b == 0 ? 0 : 1); k < bz.size; ++k) le.spline << flip(bz.list[k]);
        le.arrowTip = bz.eflag ? flip(bz.ep) : le.spline.last();
      }
      out.edges << le;
    }
  }
  for (int c = 1; c <= GD_n_cluster(g); ++c) {
    Agraph_t* sg = GD_clust(g)[c];
    const boxf cb = GD_bb(sg);
    LayoutCluster lc;
    lc.kernel = QString::fromUtf8(agnameof(sg)).mid(int(sizeof("cluster_")) - 1);
    lc.box = QRectF(flip({cb.LL.x, cb.UR.y}), flip({cb.UR.x, cb.LL.y}));
    out.clusters << lc;
  }
  gvFreeLayout(gvc, g);
  agclose(g);
  return out;
}

}  // namespace kiln::viewers
