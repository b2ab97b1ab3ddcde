// GraphView: draws one stage's graph. showGraph() hands the graph to a GraphLayoutWorker and
// returns at once; the scene is built when the layout arrives (a newer showGraph() wins).
// Nodes are rounded boxes, edges follow Graphviz's splines, kernels are tinted groups.
// Wheel zooms, drag pans, a click selects a node (nodeSelected), and highlightLine() marks
// the nodes whose provenance points at a source line. Big graphs stay readable: fitting never
// zooms below kReadableZoom (it shows the start instead), zoomed further out nodes are boxes
// coloured by op kind (graph_node_item.h), a minimap shows where the view is (graph_minimap.h),
// and a found node is centred at a readable zoom (zoomToSelection). Folded module boxes roll up
// the step's marks (graph_rollup.h); removed nodes are ghosts where they stood in the frame.
// A legend in the top-left corner (graph_legend.h) is always shown: it says what the colours
// mean and chooses an overlay (graph_overlay.h) that paints per-node data on the nodes.
#pragma once

#include "engine/ir/graph.h"
#include "engine/ir/graph_diff.h"
#include "viewers/graph_layout.h"
#include "viewers/graph_overlay.h"
#include "viewers/module_collapse.h"

#include <QFont>
#include <QGraphicsView>

#include <optional>
#include <unordered_map>
#include <vector>

class QLabel;

namespace kiln::viewers {

class GraphClusterItem;
class GraphLegend;
class GraphMinimap;
class GraphLayoutWorker;
class GraphNodeItem;

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit GraphView(QWidget* parent = nullptr);
  // Quiet: the scene deselects as it is destroyed, which must not reach a half-destroyed window.
  ~GraphView() override;

  // Graphs above kCollapseAbove nodes open with every module folded (collapse by module scope);
  // smaller ones open fully expanded.
  static constexpr size_t kCollapseAbove = 200;
  void showGraph(const ir::Graph& graph);
  // The frame of reference for the graphs shown next (layout_frame.h): the union of the stages
  // of one compile, named by `key`. Graphs that fit in it are drawn at its positions, laid out
  // once; while it stays the same, stepping keeps the zoom, the scroll position and the
  // expanded modules. Setting the key already set does nothing.
  void setLayoutFrame(const QString& key, ir::Graph unionOfStages);
  void clearLayoutFrame();
  const QString& layoutFrameKey() const { return frameKey_; }
  // Unfolds / folds one module box (and, for collapse, everything under it); relays out.
  void expandModule(const std::string& path);
  void collapseModule(const std::string& path);
  // Unfolds every module (one relayout): the whole graph, node by node.
  void expandAll();
  const std::set<std::string>& expandedModules() const { return expanded_; }
  // The module a shown box folds, or "" when `id` is a node of the graph itself.
  std::string moduleOfBox(int id) const;
  // What is laid out: the graph with unexpanded modules folded.
  const ir::Graph& shownGraph() const { return shown_.graph; }
  // Empties the view and shows `message` in its place.
  void clearGraph(const QString& message = {});
  bool isLayingOut() const;

  void highlightLine(int line);  // 0 clears
  // The hover link across panes (Compiler Explorer's): the nodes of source line `line`, and the
  // folded boxes holding some, drawn in the line's colour with a strong outline until the next
  // hover; 0 clears. The items are looked up in an index by line built once per drawing, so a
  // hover costs the line's nodes, not a walk of a 17,000-node scene.
  void hoverLine(int line);
  int hoveredLine() const { return hoverLine_; }
  // The items drawn for source line `line` (its nodes, or folded boxes holding some), in the
  // order the layout lists them: the first is where a click on the line goes.
  const std::vector<GraphNodeItem*>& itemsOfLine(int line) const;
  // Centres the first item of `line` at a readable zoom without selecting it; false when the
  // stage has none.
  bool centreOnLine(int line);
  // Marks the nodes the step into this stage added or changed (kept until the next showGraph).
  // With `asBefore`, the graph is the older side of a comparison: `changes` compares the newer
  // graph with this one, so its "added" nodes are the ones the newer graph lost (drawn red).
  // `removed`: the nodes `changes.removed` names, from the graph before the step: drawn as ghosts
  // where they stood in the layout frame, or counted in the folded box of their module.
  void setChanges(const ir::GraphChanges& changes, bool asBefore = false, std::vector<ir::Node> removed = {});
  const ir::GraphChanges& changes() const { return changes_; }
  const std::vector<ir::Node>& removedNodes() const { return removed_; }
  // Writes what is on screen (the whole laid-out graph): SVG or PNG by the file's suffix, or
  // the Graphviz DOT source of the graph (.dot / .gv). False with `error` set on failure.
  bool exportTo(const QString& path, QString* error);
  int highlightedLine() const { return line_; }
  void selectNode(int id);  // -1 clears
  // Find in graph: the nodes of the whole graph (folded ones too) whose name, op or module path
  // contains `text` (case-insensitive), in graph order.
  std::vector<int> findNodes(const QString& text) const;
  // Selects node `id` and scrolls to it; a node inside a folded module has its module expanded
  // first (a new layout), and is selected when that layout is on screen.
  void revealNode(int id);
  // A node of the graph, or a module box shown in its place.
  const ir::Node* node(int id) const { return graph_.find(id) ? graph_.find(id) : shown_.graph.find(id); }
  const ir::Graph& graph() const { return graph_; }

  QList<GraphNodeItem*> nodeItems() const;
  QList<GraphClusterItem*> clusterItems() const;
  QList<GraphNodeItem*> ghostItems() const;  // removed nodes drawn where they stood
  GraphMinimap* minimap() const { return minimap_; }
  // Overlays: the data of the stage shown next (set it before showGraph; kept until set again)
  // and the overlay painted, which the legend's chooser sets too.
  void setOverlayData(OverlayData data);
  void setOverlay(Overlay mode);
  Overlay overlay() const { return overlay_; }
  const OverlayPaint& overlayPaint() const { return overlayPaint_; }
  GraphLegend* legend() const { return legend_; }
  // The selected node's module path as links (graph_breadcrumbs.h), in the header strip; a
  // click folds that module (foldTo) and selects its box.
  QLabel* breadcrumbs() const { return breadcrumbs_; }
  void foldTo(const std::string& modulePath);
  // The zoom at which labels are still readable: fitting a big graph stops here.
  static constexpr double kReadableZoom = 0.6;

 public slots:
  void zoomToFit();
  // Centres the selected node(s), zooming in to 100% when labels are smaller (View › Zoom to
  // Selection); false when nothing is selected.
  bool zoomToSelection();

 signals:
  void nodeSelected(int id);  // -1 when the selection is cleared
  // The requested graph is on screen (`error` is empty) or could not be laid out.
  void layoutFinished(const QString& error);
  // Another overlay was chosen (setOverlay or the legend's chooser).
  void overlayChanged(Overlay mode);
  // The mouse moved onto a node of source line `line` (a node of no line, a folded box or empty
  // space: 0); only changes are reported.
  void lineHovered(int line);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  // With a node selected, the arrow keys follow its edges (graph_navigation.h); otherwise they
  // scroll, as a QGraphicsView does.
  void keyPressEvent(QKeyEvent* event) override;
  // On a module box: expand it; on a node inside an expanded module: fold that module.
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  bool viewportEvent(QEvent* event) override;  // the mouse leaving: nothing hovered

 private:
  void applyLayout(const GraphLayout& layout);
  void showMessage(const QString& message);
  void onSelectionChanged();

  GraphLayoutWorker* worker_;
  ir::Graph graph_;       // the graph being shown (provenance and node details)
  CollapsedGraph shown_;  // graph_ with unexpanded modules folded: what is laid out
  std::set<std::string> expanded_;
  void relayout();
  QFont labelFont_;
  LabelMetrics metrics_;
  int line_ = 0;
  int hoverLine_ = 0;
  int mouseLine_ = 0;  // the line under the mouse, as last reported by lineHovered
  // Source line -> the items drawn for it (rebuilt by render(), emptied with the scene).
  std::unordered_map<int, std::vector<GraphNodeItem*>> itemsByLine_;
  void indexItemsByLine();
  ir::GraphChanges changes_;
  bool changesAsBefore_ = false;
  std::vector<ir::Node> removed_;
  void applyChanges();
  void applyRollups();
  GraphMinimap* minimap_ = nullptr;
  GraphLegend* legend_ = nullptr;
  QLabel* breadcrumbs_ = nullptr;
  std::string selectBoxAfterLayout_;  // foldTo()'s module: its box is selected once drawn
  void showBreadcrumbs(int id);
  Overlay overlay_ = Overlay::None;
  OverlayData overlayData_;
  OverlayPaint overlayPaint_;
  void applyOverlay();
  void placeLegend();
  bool fitted_ = false;          // still showing the whole graph: keep it fitted when resized
  int revealAfterLayout_ = -1;   // revealNode() waiting for the layout of its expanded module
  std::vector<int> navChoices_;  // the producers or consumers the last Up / Down chose among
  size_t navAt_ = 0;

  // The layout frame (empty key: none) and its layout for the expanded set it was made with.
  QString frameKey_;
  ir::Graph frame_;
  CollapsedGraph frameShown_;
  std::optional<GraphLayout> frameLayout_;
  std::set<std::string> frameLayoutExpanded_;
  bool awaitingFrame_ = false;   // the pending request is the frame's layout
  bool framedOnScreen_ = false;  // what is on screen was drawn in the current frame
  bool keepView_ = false;        // the next drawing keeps the zoom and scroll position
  void drawInFrame();
  void render(const GraphLayout& layout);
};

}  // namespace kiln::viewers
