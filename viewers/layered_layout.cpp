#include "viewers/layered_layout.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <vector>

namespace kiln::viewers {

namespace {

constexpr double kNodeGap = 18.0;   // points between boxes of a layer
constexpr double kLayerGap = 36.0;  // points between layers
constexpr int kSweeps = 4;          // barycenter passes (down, up, down, up)

}  // namespace

GraphLayout layeredLayout(const ir::Graph& graph, QList<LayoutNode> nodes) {
  GraphLayout out;
  const int n = int(nodes.size());
  std::unordered_map<int, int> indexOf;  // node id -> index
  for (int i = 0; i < n; ++i) indexOf[nodes[i].id] = i;
  const size_t count = static_cast<size_t>(n);
  std::vector<std::vector<int>> preds(count), succs(count);
  for (const auto& node : graph.nodes) {
    auto to = indexOf.find(node.id);
    if (to == indexOf.end()) continue;
    ir::forEachNodeArg(node, [&](int src) {
      auto from = indexOf.find(src);
      if (from == indexOf.end() || from->second == to->second) return;
      auto& p = preds[size_t(to->second)];
      if (std::find(p.begin(), p.end(), from->second) != p.end()) return;  // one edge per pair
      p.push_back(from->second);
      succs[size_t(from->second)].push_back(to->second);
    });
  }
  // Layers: the longest path from a source (graph order is topological). Nodes are then
  // pulled down to the layer above their first user, so 150 parameters do not all sit in
  // layer 0 with edges hundreds of layers long.
  std::vector<int> layer(size_t(n), 0);
  for (int i = 0; i < n; ++i)
    for (int p : preds[size_t(i)]) layer[size_t(i)] = std::max(layer[size_t(i)], layer[size_t(p)] + 1);
  // Not only sources: every node moves down to just above its first user (as late as possible,
  // from the bottom up), so what reads only parameters -- a model's 1,200 weight transposes --
  // sits beside the matmul that uses it instead of in one row 250,000 points wide at the top.
  for (int i = n - 1; i >= 0; --i) {
    if (succs[size_t(i)].empty()) continue;
    int first = INT32_MAX;
    for (int s : succs[size_t(i)]) first = std::min(first, layer[size_t(s)]);
    layer[size_t(i)] = std::max(layer[size_t(i)], first - 1);
  }
  const int layers = n ? *std::max_element(layer.begin(), layer.end()) + 1 : 0;
  std::vector<std::vector<int>> rows(static_cast<size_t>(layers));
  for (int i = 0; i < n; ++i) rows[size_t(layer[size_t(i)])].push_back(i);
  // Order within layers: barycenters of the neighbours in the layer above (down sweeps) or
  // below (up sweeps); nodes without such neighbours keep their place.
  std::vector<double> pos(size_t(n), 0.0);
  auto number = [&](const std::vector<int>& row) {
    for (size_t k = 0; k < row.size(); ++k) pos[size_t(row[k])] = double(k);
  };
  for (const auto& row : rows) number(row);
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    const bool down = sweep % 2 == 0;
    for (int li = 0; li < layers; ++li) {
      auto& row = rows[size_t(down ? li : layers - 1 - li)];
      std::vector<std::pair<double, int>> keyed;
      keyed.reserve(row.size());
      for (int v : row) {
        const auto& nb = down ? preds[size_t(v)] : succs[size_t(v)];
        double key = pos[size_t(v)];
        if (!nb.empty()) {
          double sum = 0;
          for (int u : nb) sum += pos[size_t(u)];
          key = sum / double(nb.size());
        }
        keyed.emplace_back(key, v);
      }
      std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t k = 0; k < keyed.size(); ++k) row[k] = keyed[k].second;
      number(row);
    }
  }
  // Coordinates: each layer packed left to right and centred on x = 0.
  double y = 0;
  for (const auto& row : rows) {
    double width = 0, height = 0;
    for (int v : row) {
      width += nodes[v].box.width() + kNodeGap;
      height = std::max(height, nodes[v].box.height());
    }
    double x = -width / 2;
    for (int v : row) {
      QRectF& box = nodes[v].box;
      box.moveTopLeft(QPointF(x, y + (height - box.height()) / 2));
      x += box.width() + kNodeGap;
    }
    y += height + kLayerGap;
  }
  for (int v = 0; v < n; ++v)
    for (int s : succs[size_t(v)]) {
      LayoutEdge e;
      e.from = nodes[v].id;
      e.to = nodes[s].id;
      const QPointF a(nodes[v].box.center().x(), nodes[v].box.bottom());
      const QPointF b(nodes[s].box.center().x(), nodes[s].box.top());
      // A straight cubic (controls on the line), as the view draws splines.
      e.spline = {a, a + (b - a) / 3, a + 2 * (b - a) / 3, b - QPointF(0, 4)};
      e.arrowTip = b;
      out.edges << e;
    }
  QRectF bounds;
  for (const auto& node : nodes) bounds = bounds.united(node.box);
  out.bounds = bounds.adjusted(-kNodeGap, -kNodeGap, kNodeGap, kNodeGap);
  out.nodes = std::move(nodes);
  return out;
}

}  // namespace kiln::viewers
