#include "viewers/layout_wrap.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <vector>

namespace kiln::viewers {
namespace {

constexpr double kColumnGap = 90.0;  // points between columns: room for the wrap edges' lanes
constexpr double kLaneStep = 6.0;    // wrap edges through one gap are spread over lanes this far apart
constexpr int kLanes = 10;
constexpr double kDetour = 18.0;  // how far below / above its columns a wrap edge runs

// A straight cubic from `a` to `b`, as the view draws splines.
void lineTo(QList<QPointF>& spline, QPointF b) {
  const QPointF a = spline.last();
  spline << a + (b - a) / 3 << a + (b - a) * 2 / 3 << b;
}

}  // namespace

int wrapLongLayout(GraphLayout& layout, double wrapAbove, double target) {
  if (layout.nodes.size() < 2) return 1;
  QRectF all;
  for (const auto& n : layout.nodes) all |= n.box;
  if (all.height() <= wrapAbove * all.width() || all.height() <= kWrapMinHeight) return 1;

  // What a cut must not go through: every box, every kernel group drawn, and the rows every
  // kernel's members span (a group is drawn around its members wherever they end up).
  std::vector<std::pair<double, double>> spans;
  std::map<QString, std::pair<double, double>> kernelRows;
  for (const auto& n : layout.nodes) {
    spans.emplace_back(n.box.top(), n.box.bottom());
    if (n.kernel.isEmpty()) continue;
    auto [it, fresh] = kernelRows.try_emplace(n.kernel, n.box.top(), n.box.bottom());
    if (!fresh) it->second = {std::min(it->second.first, n.box.top()), std::max(it->second.second, n.box.bottom())};
  }
  for (const auto& c : layout.clusters) spans.emplace_back(c.box.top(), c.box.bottom());
  for (const auto& [kernel, rows] : kernelRows) spans.push_back(rows);
  std::sort(spans.begin(), spans.end());
  std::vector<double> free;  // y of the middle of each gap no span crosses
  double reach = spans.front().second;
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first > reach) free.push_back((reach + spans[i].first) / 2);
    reach = std::max(reach, spans[i].second);
  }
  if (free.empty()) return 1;

  // k columns of height H / k and width W + gap each: H / k = target * k * (W + gap).
  const double width = all.width() + kColumnGap;
  int columns = int(std::lround(std::sqrt(all.height() / (target * width))));
  columns = std::clamp(columns, 2, int(free.size()) + 1);
  std::vector<double> cuts;  // increasing
  for (int j = 1; j < columns; ++j) {
    const double want = all.top() + all.height() * j / columns;
    auto it = std::lower_bound(free.begin(), free.end(), want);
    if (it == free.end() || (it != free.begin() && want - *(it - 1) < *it - want)) --it;
    if (cuts.empty() || *it > cuts.back()) cuts.push_back(*it);
  }
  columns = int(cuts.size()) + 1;
  if (columns < 2) return 1;
  auto columnOf = [&](double y) { return int(std::upper_bound(cuts.begin(), cuts.end(), y) - cuts.begin()); };

  // Each column: the x extent and top of its boxes; placed left to right, tops aligned.
  const size_t ncol = size_t(columns);
  std::vector<double> left(ncol, 1e300), right(ncol, -1e300), top(ncol, 1e300), bottom(ncol, -1e300);
  std::unordered_map<int, int> colOfNode;
  for (const auto& n : layout.nodes) {
    const size_t c = size_t(columnOf(n.box.center().y()));
    colOfNode[n.id] = int(c);
    left[c] = std::min(left[c], n.box.left());
    right[c] = std::max(right[c], n.box.right());
    top[c] = std::min(top[c], n.box.top());
    bottom[c] = std::max(bottom[c], n.box.bottom());
  }
  for (const auto& c : layout.clusters) {
    const size_t col = size_t(columnOf(c.box.center().y()));
    left[col] = std::min(left[col], c.box.left());
    right[col] = std::max(right[col], c.box.right());
    top[col] = std::min(top[col], c.box.top());
  }
  std::vector<QPointF> shift(ncol);
  double x = all.left();
  for (size_t c = 0; c < ncol; ++c) {
    if (left[c] > right[c]) continue;  // no box fell in it (cannot happen: cuts lie between boxes)
    shift[c] = QPointF(x - left[c], all.top() - top[c]);
    x += right[c] - left[c] + kColumnGap;
  }
  for (auto& n : layout.nodes) n.box.translate(shift[size_t(colOfNode[n.id])]);
  for (auto& c : layout.clusters) c.box.translate(shift[size_t(columnOf(c.box.center().y()))]);

  // Edges: inside a column they move with it; between columns they wrap.
  std::unordered_map<int, QRectF> boxOf;
  for (const auto& n : layout.nodes) boxOf[n.id] = n.box;
  double lowest = all.top();
  for (size_t c = 0; c < ncol; ++c) lowest = std::max(lowest, bottom[c] + shift[c].y());
  std::vector<int> lanes(ncol, 0);
  for (auto& e : layout.edges) {
    auto from = colOfNode.find(e.from), to = colOfNode.find(e.to);
    if (from == colOfNode.end() || to == colOfNode.end()) continue;
    if (from->second == to->second) {
      const QPointF d = shift[size_t(from->second)];
      for (QPointF& p : e.spline) p += d;
      e.arrowTip += d;
      continue;
    }
    const QRectF& a = boxOf[e.from];
    const QRectF& b = boxOf[e.to];
    const size_t gapAfter = size_t(std::min(from->second, to->second));
    const double laneOffset = (lanes[gapAfter]++ % kLanes - kLanes / 2) * kLaneStep;
    const double gapX = right[gapAfter] + shift[gapAfter].x() + kColumnGap / 2 + laneOffset;
    const double below = lowest + kDetour + laneOffset / 2, above = all.top() - kDetour + laneOffset / 2;
    e.wrap = true;
    e.spline = {QPointF(a.center().x(), a.bottom())};
    // Down out of its column, through the gap after it, over the top, down into the target.
    lineTo(e.spline, QPointF(a.center().x(), below));
    lineTo(e.spline, QPointF(gapX, below));
    lineTo(e.spline, QPointF(gapX, above));
    lineTo(e.spline, QPointF(b.center().x(), above));
    lineTo(e.spline, QPointF(b.center().x(), b.top() - 4));
    e.arrowTip = QPointF(b.center().x(), b.top());
  }

  QRectF bounds;
  for (const auto& n : layout.nodes) bounds |= n.box;
  for (const auto& c : layout.clusters) bounds |= c.box;
  for (const auto& e : layout.edges)
    for (const QPointF& p : e.spline) bounds |= QRectF(p, QSizeF(1, 1));
  layout.bounds = bounds.adjusted(-18, -18, 18, 18);
  return columns;
}

}  // namespace kiln::viewers
