#include "viewers/graph_view.h"

#include "viewers/graph_breadcrumbs.h"
#include "viewers/graph_cluster_item.h"
#include "viewers/graph_layout_worker.h"
#include "viewers/graph_legend.h"
#include "viewers/graph_minimap.h"
#include "viewers/graph_navigation.h"
#include "viewers/graph_node_item.h"
#include "viewers/layout_frame.h"

#include <QFileInfo>
#include <QFontDatabase>
#include <QFontMetricsF>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QImage>
#include <QKeyEvent>
#include <QLabel>
#include <QLineF>
#include <QMouseEvent>
#include <QPainter>
#include <QSaveFile>
#include <QScrollBar>
#include <QSvgGenerator>
#include <QWheelEvent>
#include <QtMath>

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

namespace kiln::viewers {
namespace {

constexpr double kMinZoom = 0.02;
constexpr double kMaxZoom = 4.0;

QPainterPath splinePath(const LayoutEdge& e) {
  QPainterPath path;
  if (e.spline.isEmpty()) return path;
  path.moveTo(e.spline[0]);
  for (qsizetype i = 1; i + 2 < e.spline.size(); i += 3) path.cubicTo(e.spline[i], e.spline[i + 1], e.spline[i + 2]);
  return path;
}

QPolygonF arrowHead(QPointF from, QPointF tip) {
  const QLineF line(from, tip);
  if (line.length() < 0.5) return {};
  const QLineF unit = line.unitVector();
  const QPointF dir(unit.dx(), unit.dy());
  const QPointF normal(-dir.y(), dir.x());
  const QPointF base = tip - dir * line.length();
  const double half = std::max(2.5, line.length() * 0.4);
  return QPolygonF({tip, base + normal * half, base - normal * half});
}

}  // namespace

void GraphView::setChanges(const ir::GraphChanges& changes, bool asBefore, std::vector<ir::Node> removed) {
  changes_ = changes;
  changesAsBefore_ = asBefore;
  removed_ = std::move(removed);
  applyChanges();
}

void GraphView::applyChanges() {
  const std::set<int> added(changes_.added.begin(), changes_.added.end());
  const std::set<int> changed(changes_.changed.begin(), changes_.changed.end());
  for (GraphNodeItem* item : nodeItems())
    item->setChange(added.count(item->nodeId())     ? (changesAsBefore_ ? GraphNodeItem::Change::Removed : GraphNodeItem::Change::Added)
                    : changed.count(item->nodeId()) ? GraphNodeItem::Change::Changed
                                                    : GraphNodeItem::Change::None);
  // Ghosts: removed nodes where the layout frame placed them (a frame keeps every node of the
  // compile's stages in its place); a removed node folded into a box is counted in its roll-up.
  for (GraphNodeItem* g : ghostItems()) delete g;
  if (framedOnScreen_ && frameLayout_ && !nodeItems().isEmpty()) {
    std::map<int, const LayoutNode*> at;
    for (const auto& n : frameLayout_->nodes) at[n.id] = &n;
    for (const auto& r : removed_) {
      auto it = at.find(r.id);
      // Only the same node (same id and name: another session's ids mean other nodes).
      const ir::Node* inFrame = frame_.find(r.id);
      if (it == at.end() || frameShown_.moduleOf.count(r.id) || graph_.find(r.id) || !inFrame || inFrame->name != r.name) continue;
      scene()->addItem(new GhostNodeItem(*it->second, labelFont_, metrics_.lineHeight));
    }
  }
  applyRollups();
}

void GraphView::applyRollups() {
  const auto rollups = rollUp(shown_, graph_, changes_, removed_, changesAsBefore_, line_);
  for (GraphNodeItem* item : nodeItems()) {
    auto it = rollups.find(item->nodeId());
    item->setRollup(it == rollups.end() ? ModuleRollup{} : it->second);
  }
}

void GraphView::setOverlayData(OverlayData data) {
  overlayData_ = std::move(data);
  applyOverlay();
}

void GraphView::setOverlay(Overlay mode) {
  const bool changed = mode != overlay_;
  overlay_ = mode;
  legend_->setOverlay(mode);  // the chooser shows it (its signal comes back here: no change then)
  applyOverlay();
  if (changed) emit overlayChanged(mode);
}

void GraphView::applyOverlay() {
  overlayPaint_ = paintOverlay(overlay_, shown_, graph_, overlayData_);
  for (GraphNodeItem* item : nodeItems()) {
    auto fill = overlayPaint_.fill.find(item->nodeId());
    auto note = overlayPaint_.note.find(item->nodeId());
    item->setOverlay(fill == overlayPaint_.fill.end() ? QColor() : fill->second,
                     note == overlayPaint_.note.end() ? QString() : note->second);
  }
  legend_->showPaint(overlayPaint_);
  minimap_->refreshThumbnail();
}

// The legend is a strip above the viewport: the viewport's top margin makes its room.
void GraphView::placeLegend() {
  const int width = std::max(0, this->width() - 2 * frameWidth());
  const int height = legend_->heightFor(width);
  legend_->setGeometry(frameWidth(), frameWidth(), width, height);
  if (viewportMargins().top() != height) setViewportMargins(0, height, 0, 0);
}

QList<GraphNodeItem*> GraphView::ghostItems() const {
  QList<GraphNodeItem*> out;
  for (QGraphicsItem* item : scene()->items(Qt::AscendingOrder))
    if (item->type() == GhostNodeItem::Type) out << static_cast<GraphNodeItem*>(item);
  return out;
}

bool GraphView::exportTo(const QString& path, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (graph_.nodes.empty()) return fail(tr("There is no graph to export"));
  if (suffix == QLatin1String("dot") || suffix == QLatin1String("gv")) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) return fail(f.errorString());
    f.write(graphToDot(graph_).toUtf8());
    return f.commit() ? true : fail(f.errorString());
  }
  if (isLayingOut() || nodeItems().isEmpty()) return fail(tr("The graph is still being laid out"));
  const QRectF area = scene()->sceneRect();
  if (suffix == QLatin1String("svg")) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(area.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), area.size()));
    svg.setTitle(QStringLiteral("Kiln graph"));
    QPainter p;
    if (!p.begin(&svg)) return fail(tr("Cannot write %1").arg(path));
    scene()->render(&p, QRectF(QPointF(0, 0), area.size()), area);
    p.end();
    return QFileInfo(path).size() > 0 ? true : fail(tr("Cannot write %1").arg(path));
  }
  if (suffix == QLatin1String("png")) {
    // Twice the scene's point size, capped so a huge graph stays a reasonable image.
    const double scale = std::min(2.0, 16000.0 / std::max(area.width(), area.height()));
    QImage image((area.size() * scale).toSize(), QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    scene()->render(&p, QRectF(QPointF(0, 0), image.size()), area);
    p.end();
    return image.save(path, "PNG") ? true : fail(tr("Cannot write %1").arg(path));
  }
  return fail(tr("Unknown export format '%1' (use .svg, .png or .dot)").arg(suffix));
}

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent), worker_(new GraphLayoutWorker(this)) {
  setScene(new QGraphicsScene(this));
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(ScrollHandDrag);
  setTransformationAnchor(AnchorUnderMouse);
  setBackgroundBrush(QColor(0xf4, 0xf5, 0xf7));
  labelFont_ = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  labelFont_.setPointSizeF(9);
  QFont bold = labelFont_;
  bold.setBold(true);
  // Measure once, here on the UI thread; the worker never touches fonts.
  const QFontMetricsF fm(bold);
  metrics_.charWidth = fm.horizontalAdvance(QStringLiteral("M"));
  metrics_.lineHeight = fm.lineSpacing();
  metrics_.padding = 8;
  connect(worker_, &GraphLayoutWorker::layoutReady, this, &GraphView::applyLayout);
  connect(scene(), &QGraphicsScene::selectionChanged, this, &GraphView::onSelectionChanged);
  minimap_ = new GraphMinimap(this);
  legend_ = new GraphLegend(this);
  breadcrumbs_ = new QLabel(this);
  breadcrumbs_->setTextFormat(Qt::RichText);
  breadcrumbs_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a deep path never widens the strip
  breadcrumbs_->setToolTip(tr("The selected node's module path: click a module to fold it into its box"));
  legend_->addToTopRow(breadcrumbs_);
  connect(breadcrumbs_, &QLabel::linkActivated, this, [this](const QString& path) { foldTo(path.toStdString()); });
  connect(legend_, &GraphLegend::resized, this, &GraphView::placeLegend);
  connect(legend_, &GraphLegend::overlayChosen, this, [this](Overlay mode) {
    if (mode == overlay_) return;
    overlay_ = mode;
    applyOverlay();
    emit overlayChanged(mode);
  });
  placeLegend();
  // Zooming changes the scroll ranges without always moving a bar: follow both.
  for (QScrollBar* bar : {horizontalScrollBar(), verticalScrollBar()})
    connect(bar, &QScrollBar::rangeChanged, minimap_, &GraphMinimap::viewMoved);
  showMessage(tr("No stage selected"));
}

GraphView::~GraphView() { scene()->disconnect(this); }

void GraphView::showGraph(const ir::Graph& graph) {
  graph_ = graph;
  changes_ = {};
  removed_.clear();
  const bool framed = !frameKey_.isEmpty() && fitsFrame(graph, frame_);
  // Stepping inside one frame keeps what the user expanded and where they were looking.
  keepView_ = framed && framedOnScreen_;
  if (!keepView_) {
    const ir::Graph& sized = framed ? frame_ : graph;
    expanded_ = sized.nodes.size() > kCollapseAbove ? std::set<std::string>{} : modulePaths(sized);
  }
  relayout();
}

void GraphView::setLayoutFrame(const QString& key, ir::Graph unionOfStages) {
  if (key == frameKey_) return;
  frameKey_ = key;
  frame_ = std::move(unionOfStages);
  frameLayout_.reset();
  framedOnScreen_ = false;
}

void GraphView::clearLayoutFrame() {
  frameKey_.clear();
  frame_ = {};
  frameShown_ = {};
  frameLayout_.reset();
  framedOnScreen_ = false;
}

// The frame's layout for the current expanded set (requested once), projected onto the graph.
void GraphView::drawInFrame() {
  if (frameLayout_ && frameLayoutExpanded_ == expanded_) {
    if (auto projected = projectLayout(*frameLayout_, frameShown_, shown_, metrics_)) {
      framedOnScreen_ = true;  // before render(): its ghosts are placed by the frame
      render(*projected);
      return;
    }
    // A node without a place in the frame: lay the graph out on its own.
    awaitingFrame_ = false;
    framedOnScreen_ = false;
    keepView_ = false;
    worker_->request(shown_.graph, metrics_);
    return;
  }
  frameShown_ = collapseByModule(frame_, expanded_);
  frameLayoutExpanded_ = expanded_;
  frameLayout_.reset();
  awaitingFrame_ = true;
  if (!keepView_) showMessage(tr("Laying out %1 nodes…").arg(frameShown_.graph.nodes.size()));
  worker_->request(frameShown_.graph, metrics_);
}

void GraphView::relayout() {
  if (graph_.nodes.empty()) {
    shown_ = {};
    worker_->cancel();
    showMessage(tr("This stage has no graph"));
    emit layoutFinished({});
    return;
  }
  shown_ = collapseByModule(graph_, expanded_);
  if (!frameKey_.isEmpty() && fitsFrame(graph_, frame_)) {
    drawInFrame();
    return;
  }
  awaitingFrame_ = false;
  framedOnScreen_ = false;
  keepView_ = false;
  showMessage(tr("Laying out %1 nodes…").arg(shown_.graph.nodes.size()));
  worker_->request(shown_.graph, metrics_);
}

void GraphView::expandModule(const std::string& path) {
  if (path.empty()) return;
  bool added = false;
  for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1))
    added = expanded_.insert(path.substr(0, dot)).second || added;
  added = expanded_.insert(path).second || added;
  if (added) relayout();
}

void GraphView::expandAll() {
  std::set<std::string> all = modulePaths(graph_);
  if (all == expanded_) return;
  expanded_ = std::move(all);
  relayout();
}

void GraphView::collapseModule(const std::string& path) {
  bool changed = false;
  for (auto it = expanded_.begin(); it != expanded_.end();) {
    if (*it == path || it->rfind(path + ".", 0) == 0) it = expanded_.erase(it), changed = true;
    else ++it;
  }
  if (changed) relayout();
}

std::string GraphView::moduleOfBox(int id) const {
  auto it = shown_.moduleOf.find(id);
  return it == shown_.moduleOf.end() ? std::string() : it->second;
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (auto* item = dynamic_cast<GraphNodeItem*>(itemAt(event->pos()))) {
    const std::string box = moduleOfBox(item->nodeId());
    if (!box.empty()) {
      expandModule(box);
      return;
    }
    if (const ir::Node* n = graph_.find(item->nodeId()); n && !n->prov.modulePath.empty()) {
      collapseModule(n->prov.modulePath);
      return;
    }
  }
  QGraphicsView::mouseDoubleClickEvent(event);
}

void GraphView::clearGraph(const QString& message) {
  worker_->cancel();
  graph_ = {};
  shown_ = {};
  changes_ = {};
  removed_.clear();
  showMessage(message);
  applyOverlay();  // the legend says there is no graph to paint
}

bool GraphView::isLayingOut() const { return worker_->busy(); }

void GraphView::showMessage(const QString& message) {
  fitted_ = false;
  itemsByLine_.clear();  // before the items go
  scene()->clear();
  resetTransform();
  minimap_->refresh();  // nothing to overview: hidden
  if (message.isEmpty()) return;
  auto* text = scene()->addSimpleText(message);
  text->setBrush(QColor(0x70, 0x75, 0x80));
  scene()->setSceneRect(text->boundingRect().adjusted(-20, -20, 20, 20));
}

void GraphView::applyLayout(const GraphLayout& layout) {
  if (!layout.error.isEmpty()) {
    showMessage(layout.error);
    emit layoutFinished(layout.error);
    return;
  }
  if (awaitingFrame_) {
    awaitingFrame_ = false;
    frameLayout_ = layout;
    drawInFrame();
    return;
  }
  framedOnScreen_ = false;
  render(layout);
}

void GraphView::render(const GraphLayout& layout) {
  // Stepping in a frame: the same zoom and the same point of the scene in the middle.
  const bool keep = keepView_ && !scene()->items().isEmpty();
  const QTransform zoom = transform();
  const QPointF centre = mapToScene(viewport()->rect().center());
  const bool wasFitted = fitted_;
  keepView_ = false;
  QGraphicsScene* s = scene();
  QSignalBlocker block(s);  // clearing the scene must not report a deselection
  itemsByLine_.clear();     // before the items go
  s->clear();
  // ...but the new scene rect must reach the view, or its scroll ranges stay those of the last
  // graph (a tall graph at 100% could not be scrolled, nor a found node centred).
  block.unblock();
  resetTransform();
  QFont clusterFont = labelFont_;
  clusterFont.setBold(true);
  for (const auto& c : layout.clusters) s->addItem(new GraphClusterItem(c.kernel, c.box, clusterFont));
  const QPen edgePen(QColor(0x5c, 0x63, 0x70), 1.2);
  const QPen wrapPen(QColor(0x5c, 0x63, 0x70), 1.2, Qt::DashLine);  // into the next column of a wrapped chain
  for (const auto& e : layout.edges) {
    auto* path = s->addPath(splinePath(e), e.wrap ? wrapPen : edgePen);
    path->setZValue(1);
    if (!e.spline.isEmpty()) {
      auto* head = s->addPolygon(arrowHead(e.spline.last(), e.arrowTip), edgePen, edgePen.color());
      head->setZValue(1);
    }
  }
  for (const auto& n : layout.nodes) s->addItem(new GraphNodeItem(n, labelFont_, metrics_.lineHeight));
  indexItemsByLine();
  for (GraphNodeItem* item : itemsOfLine(hoverLine_)) item->setHoverLine(hoverLine_);
  // A graph bigger than the view gets room around it, half a view at 100%, so that a node at its
  // edge (the top of a wrapped chain's first column) can still be centred when found or clicked.
  const double mx = layout.bounds.width() > viewport()->width() ? viewport()->width() / 2.0 : 30.0;
  const double my = layout.bounds.height() > viewport()->height() ? viewport()->height() / 2.0 : 30.0;
  s->setSceneRect(layout.bounds.adjusted(-mx, -my, mx, my));
  if (keep) {  // the frame's bounds are the same: the old zoom fits as well as it did
    setTransform(zoom);
    centerOn(centre);
    fitted_ = wasFitted;
  } else {
    zoomToFit();
  }
  highlightLine(line_);
  applyChanges();
  applyOverlay();
  minimap_->refresh();
  if (!selectBoxAfterLayout_.empty()) {
    const std::string path = std::exchange(selectBoxAfterLayout_, std::string());
    for (const auto& [box, module] : shown_.moduleOf)
      if (module == path) {
        selectNode(box);
        zoomToSelection();
      }
  }
  if (revealAfterLayout_ >= 0 && shown_.graph.find(revealAfterLayout_)) {
    const int id = std::exchange(revealAfterLayout_, -1);
    selectNode(id);
    zoomToSelection();
  }
  emit layoutFinished({});
}

void GraphView::zoomToFit() {
  // What is drawn, not the scene rect: a stage shown in a layout frame covers part of the
  // frame's area, and fitting the whole frame would draw it small.
  const QRectF r = scene()->itemsBoundingRect().adjusted(-20, -20, 20, 20);
  if (r.isEmpty()) return;
  fitted_ = true;
  // A graph of thousands of nodes fitted whole is a grey speck: below kReadableZoom the view
  // fits the graph's width instead (never below that zoom, where labels stay readable) and
  // shows its start, where the inputs are; the minimap shows the rest. When even the width does
  // not fit, the start is the topmost node's column.
  const double fit = std::min(viewport()->width() / r.width(), viewport()->height() / r.height());
  if (fit < kReadableZoom) {
    const double zoom = std::max(kReadableZoom, std::min(1.0, viewport()->width() / r.width()));
    resetTransform();
    scale(zoom, zoom);
    double x = r.center().x();
    if (r.width() * zoom > viewport()->width()) {
      // The leftmost of the top row: a wrapped chain's columns all start at the top, and the
      // first column is the graph's start (layout_wrap.h).
      double top = r.bottom();
      for (GraphNodeItem* n : nodeItems()) top = std::min(top, n->sceneBoundingRect().top());
      double left = r.right();
      for (GraphNodeItem* n : nodeItems())
        if (const QRectF b = n->sceneBoundingRect(); b.top() < top + 60 && b.left() < left) left = b.left(), x = b.center().x();
      x = std::max(x, r.left() + viewport()->width() / (2 * zoom));
    }
    centerOn(QPointF(x, r.top() + viewport()->height() / (2 * zoom)));
    return;
  }
  fitInView(r, Qt::KeepAspectRatio);
  // Small graphs stay at 100%: blowing them up only makes the text huge.
  if (transform().m11() > 1.0) {
    resetTransform();
    centerOn(r.center());
  }
}

void GraphView::wheelEvent(QWheelEvent* event) {
  const double factor = qPow(1.0015, event->angleDelta().y());
  const double zoom = transform().m11() * factor;
  if (zoom < kMinZoom || zoom > kMaxZoom) return;
  scale(factor, factor);
  fitted_ = false;
  event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  int at = -1;
  for (QGraphicsItem* item : scene()->selectedItems())
    if (auto* n = qgraphicsitem_cast<GraphNodeItem*>(item)) at = n->nodeId();
  const int key = event->key();
  if (at < 0 || (event->modifiers() & ~Qt::KeypadModifier) != Qt::NoModifier ||
      (key != Qt::Key_Up && key != Qt::Key_Down && key != Qt::Key_Left && key != Qt::Key_Right))
    return QGraphicsView::keyPressEvent(event);
  event->accept();
  if (key == Qt::Key_Up || key == Qt::Key_Down) {
    std::vector<int> next = key == Qt::Key_Up ? producersOf(shown_.graph, at) : consumersOf(shown_.graph, at);
    if (next.empty()) return;  // an input has no producer, the output no consumer
    navChoices_ = std::move(next);
    navAt_ = 0;
  } else {
    // Left / Right: the other producers or consumers of the last move, when this is one of them.
    auto it = std::find(navChoices_.begin(), navChoices_.end(), at);
    if (it == navChoices_.end() || navChoices_.size() < 2) return;
    const size_t n = navChoices_.size(), here = size_t(it - navChoices_.begin());
    navAt_ = key == Qt::Key_Right ? (here + 1) % n : (here + n - 1) % n;
  }
  selectNode(navChoices_[navAt_]);
  minimap_->viewMoved();
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (fitted_) zoomToFit();
  minimap_->viewMoved();
  placeLegend();
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  minimap_->viewMoved();
}

bool GraphView::zoomToSelection() {
  QRectF area;
  for (QGraphicsItem* item : scene()->selectedItems()) area |= item->sceneBoundingRect();
  if (area.isEmpty()) return false;
  fitted_ = false;
  const double zoom = transform().m11();
  // Readable: at least 100% (unless the selection is bigger than the view there), and never
  // zoomed out from where the user already was.
  double want = std::max(zoom, 1.0);
  want = std::min(want, std::min(viewport()->width() / (area.width() + 40), viewport()->height() / (area.height() + 40)));
  want = std::clamp(std::max(want, std::min(zoom, 1.0)), kMinZoom, kMaxZoom);
  resetTransform();
  scale(want, want);
  centerOn(area.center());
  minimap_->viewMoved();
  return true;
}

QList<GraphNodeItem*> GraphView::nodeItems() const {
  QList<GraphNodeItem*> out;
  for (QGraphicsItem* item : scene()->items(Qt::AscendingOrder))
    if (auto* n = qgraphicsitem_cast<GraphNodeItem*>(item)) out << n;
  return out;
}

QList<GraphClusterItem*> GraphView::clusterItems() const {
  QList<GraphClusterItem*> out;
  for (QGraphicsItem* item : scene()->items(Qt::AscendingOrder))
    if (auto* c = qgraphicsitem_cast<GraphClusterItem*>(item)) out << c;
  return out;
}

void GraphView::highlightLine(int line) {
  line_ = line;
  applyRollups();  // folded boxes holding nodes of the line take its tint
  GraphNodeItem* first = nullptr;
  for (GraphNodeItem* n : nodeItems()) {
    const bool on = line > 0 && n->sourceLine() == line;
    n->setHighlighted(on);
    if (on && !first) first = n;
  }
  if (!first)  // the line's nodes are folded: the first box holding some
    for (GraphNodeItem* n : nodeItems())
      if (n->rollup().tinted && !first) first = n;
  if (first) ensureVisible(first);
}

void GraphView::indexItemsByLine() {
  itemsByLine_.clear();
  std::unordered_map<int, int> lineOf;  // graph node id -> source line, for the folded boxes' members
  lineOf.reserve(graph_.nodes.size());
  for (const auto& n : graph_.nodes)
    if (n.prov.loc.line > 0) lineOf.emplace(n.id, n.prov.loc.line);
  for (GraphNodeItem* item : nodeItems()) {
    auto box = shown_.members.find(item->nodeId());
    if (box == shown_.members.end()) {
      if (item->sourceLine() > 0) itemsByLine_[item->sourceLine()].push_back(item);
      continue;
    }
    std::set<int> lines;
    for (int m : box->second)
      if (auto it = lineOf.find(m); it != lineOf.end()) lines.insert(it->second);
    for (int l : lines) itemsByLine_[l].push_back(item);
  }
}

const std::vector<GraphNodeItem*>& GraphView::itemsOfLine(int line) const {
  static const std::vector<GraphNodeItem*> none;
  auto it = line > 0 ? itemsByLine_.find(line) : itemsByLine_.end();
  return it == itemsByLine_.end() ? none : it->second;
}

void GraphView::hoverLine(int line) {
  if (line == hoverLine_) return;
  for (GraphNodeItem* item : itemsOfLine(hoverLine_)) item->setHoverLine(0);
  hoverLine_ = line;
  for (GraphNodeItem* item : itemsOfLine(line)) item->setHoverLine(line);
}

bool GraphView::centreOnLine(int line) {
  const auto& items = itemsOfLine(line);
  if (items.empty()) return false;
  fitted_ = false;
  if (transform().m11() < kReadableZoom) {  // a click should land where the labels can be read
    resetTransform();
    scale(1.0, 1.0);
  }
  centerOn(items.front());
  minimap_->viewMoved();
  return true;
}

void GraphView::mouseMoveEvent(QMouseEvent* event) {
  QGraphicsView::mouseMoveEvent(event);
  int line = 0;
  if (event->buttons() == Qt::NoButton)  // not while dragging the view
    if (QGraphicsItem* item = itemAt(event->position().toPoint()); item && item->type() == GraphNodeItem::Type)
      line = static_cast<GraphNodeItem*>(item)->sourceLine();
  if (line == mouseLine_) return;
  mouseLine_ = line;
  emit lineHovered(line);
}

bool GraphView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::Leave && mouseLine_ != 0) {
    mouseLine_ = 0;
    emit lineHovered(0);
  }
  return QGraphicsView::viewportEvent(event);
}

void GraphView::selectNode(int id) {
  scene()->clearSelection();
  for (GraphNodeItem* n : nodeItems()) {
    if (n->nodeId() != id) continue;
    n->setSelected(true);
    ensureVisible(n);
  }
}

std::vector<int> GraphView::findNodes(const QString& text) const {
  std::vector<int> out;
  const std::string needle = text.trimmed().toLower().toStdString();
  if (needle.empty()) return out;
  auto has = [&](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s.find(needle) != std::string::npos;
  };
  for (const auto& n : graph_.nodes)
    if (has(n.name) || has(n.target) || has(n.prov.modulePath)) out.push_back(n.id);
  return out;
}

void GraphView::revealNode(int id) {
  const ir::Node* n = graph_.find(id);
  if (!n) return;
  if (shown_.graph.find(id)) {
    revealAfterLayout_ = -1;
    selectNode(id);
    zoomToSelection();
    return;
  }
  // Folded: expand the module it is in (and its parents), then select it once laid out. A graph
  // input folds with its first user's module (module_collapse.cpp).
  std::string path = n->prov.modulePath;
  if (n->kind == ir::NodeKind::Placeholder)
    if (const auto users = consumersOf(graph_, id); !users.empty()) path = graph_.find(users.front())->prov.modulePath;
  revealAfterLayout_ = id;
  expandModule(path);
}

void GraphView::onSelectionChanged() {
  const auto selected = scene()->selectedItems();
  int id = -1;
  for (QGraphicsItem* item : selected)
    if (auto* n = qgraphicsitem_cast<GraphNodeItem*>(item)) id = n->nodeId();
  showBreadcrumbs(id);
  emit nodeSelected(id);
}

void GraphView::showBreadcrumbs(int id) {
  if (const std::string box = moduleOfBox(id); !box.empty()) return breadcrumbs_->setText(breadcrumbsHtml(box, {}));
  const ir::Node* n = id >= 0 ? graph_.find(id) : nullptr;
  breadcrumbs_->setText(n ? breadcrumbsHtml(n->prov.modulePath, QString::fromStdString(n->name)) : QString());
}

void GraphView::foldTo(const std::string& modulePath) {
  selectBoxAfterLayout_ = modulePath;
  collapseModule(modulePath);  // a new layout, unless it was folded already
  if (!isLayingOut()) selectBoxAfterLayout_.clear();
}

}  // namespace kiln::viewers
