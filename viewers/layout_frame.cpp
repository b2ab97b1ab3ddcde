#include "viewers/layout_frame.h"

#include <list>
#include <map>
#include <set>
#include <unordered_map>

namespace kiln::viewers {

namespace {

// How a shown node is matched between the frame and a stage: module boxes by path (their ids
// depend on the graph folded), everything else by id.
QString keyOf(const CollapsedGraph& c, int id) {
  auto it = c.moduleOf.find(id);
  return it != c.moduleOf.end() ? QStringLiteral("m:") + QString::fromStdString(it->second) : QStringLiteral("n:%1").arg(id);
}

}  // namespace

ir::Graph unionOfStages(const std::vector<ir::Graph>& stages) {
  std::vector<const ir::Graph*> graphs;
  for (const auto& g : stages) graphs.push_back(&g);
  return unionOfStages(graphs);
}

ir::Graph unionOfStages(const std::vector<const ir::Graph*>& stages) {
  std::list<ir::Node> order;
  std::unordered_map<int, std::list<ir::Node>::iterator> at;
  std::unordered_map<int, std::set<int>> producers;  // every producer a node had, any stage
  int next = 0;
  for (const ir::Graph* g : stages) {
    next = std::max(next, g->nextId());
    auto after = order.begin();  // a new node goes right after this stage's node before it
    for (const auto& n : g->nodes) {
      ir::forEachNodeArg(n, [&](int a) { producers[n.id].insert(a); });
      auto it = at.find(n.id);
      if (it != at.end()) {
        *it->second = n;  // the latest version's label and kernel
        after = std::next(it->second);
        continue;
      }
      auto inserted = order.insert(after, n);
      at[n.id] = inserted;
      after = std::next(inserted);
    }
  }
  ir::Graph out;
  if (!stages.empty()) out.name = stages.back()->name;
  for (auto& n : order) {
    std::set<int> current;
    ir::forEachNodeArg(n, [&](int a) { current.insert(a); });
    std::vector<ir::Arg> older;
    for (int p : producers[n.id])
      if (!current.count(p) && at.count(p)) older.push_back(ir::Arg::ref(p));
    if (!older.empty()) n.args.push_back(ir::Arg::listOf(std::move(older)));
    out.nodes.push_back(std::move(n));
  }
  out.reserveIds(next);
  return out;
}

bool fitsFrame(const ir::Graph& stage, const ir::Graph& frame) {
  for (const auto& n : stage.nodes)
    if (!frame.find(n.id)) return false;
  return !stage.nodes.empty();
}

std::optional<GraphLayout> projectLayout(const GraphLayout& frameLayout, const CollapsedGraph& frameShown, const CollapsedGraph& stageShown,
                                         const LabelMetrics& metrics) {
  std::map<QString, const LayoutNode*> place;
  for (const auto& n : frameLayout.nodes) place[keyOf(frameShown, n.id)] = &n;
  std::map<std::pair<QString, QString>, const LayoutEdge*> routes;
  for (const auto& e : frameLayout.edges) routes[{keyOf(frameShown, e.from), keyOf(frameShown, e.to)}] = &e;

  GraphLayout out;
  out.bounds = frameLayout.bounds;
  std::map<int, QRectF> boxOf;
  for (const auto& n : stageShown.graph.nodes) {
    auto it = place.find(keyOf(stageShown, n.id));
    if (it == place.end()) return std::nullopt;
    LayoutNode ln = layoutNodeFor(n, metrics);
    const QRectF& at = it->second->box;
    ln.box.setSize({std::max(ln.box.width(), at.width()), std::max(ln.box.height(), at.height())});
    ln.box.moveCenter(at.center());
    boxOf[n.id] = ln.box;
    out.nodes << ln;
  }
  std::set<std::pair<int, int>> seen;
  for (const auto& n : stageShown.graph.nodes)
    ir::forEachNodeArg(n, [&](int src) {
      if (!boxOf.count(src) || !seen.insert({src, n.id}).second) return;
      auto r = routes.find({keyOf(stageShown, src), keyOf(stageShown, n.id)});
      if (r != routes.end()) {
        LayoutEdge e = *r->second;
        e.from = src;
        e.to = n.id;
        out.edges << e;
        return;
      }
      // No route kept for it (the frame folded differently): a straight arrow.
      LayoutEdge e;
      e.from = src;
      e.to = n.id;
      const QPointF a(boxOf[src].center().x(), boxOf[src].bottom()), b(boxOf[n.id].center().x(), boxOf[n.id].top());
      e.spline = {a, a + (b - a) / 3, a + (b - a) * 2 / 3, b - (b - a) * 0.02};
      e.arrowTip = b;
      out.edges << e;
    });
  // Kernel groups of this stage around their members.
  std::map<QString, QRectF> clusters;
  for (const auto& ln : out.nodes)
    if (!ln.kernel.isEmpty()) clusters[ln.kernel] = clusters[ln.kernel].isNull() ? ln.box : clusters[ln.kernel].united(ln.box);
  for (const auto& [kernel, box] : clusters)
    out.clusters << LayoutCluster{kernel,
                                  box.adjusted(-metrics.padding, -metrics.lineHeight - metrics.padding, metrics.padding, metrics.padding)};
  return out;
}

}  // namespace kiln::viewers
