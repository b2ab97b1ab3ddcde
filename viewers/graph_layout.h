// GraphLayout: where every node, edge and kernel group of one ir::Graph goes, as computed by
// Graphviz (dot). Plain data (no QObject, no Graphviz types) so a layout can be computed on a
// worker thread and handed to the UI thread in a queued signal.
#pragma once

#include "engine/ir/graph.h"

#include <QList>
#include <QMetaType>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QStringList>

namespace kiln::viewers {

struct LayoutNode {
  int id = -1;
  QString name;
  QStringList lines;   // label lines: name, op target, result type(s)
  QString kernel;      // "" when the node is not in a kernel
  int sourceLine = 0;  // provenance line in the user's script (0 = none)
  QRectF box;          // scene coordinates: points, y grows downwards
};

struct LayoutEdge {
  int from = -1;
  int to = -1;
  QList<QPointF> spline;  // cubic Bezier: start point, then (control, control, end) triples
  QPointF arrowTip;       // the arrow head runs from spline.last() to here
  bool wrap = false;      // from one column of a wrapped layout into another (layout_wrap.h)
};

struct LayoutCluster {
  QString kernel;
  QRectF box;
};

struct GraphLayout {
  quint64 requestId = 0;
  QRectF bounds;
  QList<LayoutNode> nodes;
  QList<LayoutEdge> edges;
  QList<LayoutCluster> clusters;
  QString error;  // non-empty when Graphviz failed; the rest is then empty
};

// Character cell of the font the view draws labels in; measured on the UI thread so the
// worker never touches fonts, and Graphviz gets fixed node sizes that fit the labels.
struct LabelMetrics {
  double charWidth = 7.0;
  double lineHeight = 15.0;
  double padding = 8.0;
};

// The label lines drawn in a node's box (long lines are elided to bound the node's width).
QStringList nodeLabelLines(const ir::Node& node);

// A node's box (its size, not yet its place) and label, as the layout and the view use them.
LayoutNode layoutNodeFor(const ir::Node& node, const LabelMetrics& metrics);

// The graph as Graphviz DOT source with its labels and kernel clusters (what the studio's
// "Export graph" writes for .dot files; `dot -Tsvg` renders it).
QString graphToDot(const ir::Graph& graph);

// Lays `graph` out with dot: one box per node, edges from argument references, nodes with a
// `kernel` grouped in `subgraph cluster_<kernel>`. Callable from any thread; Graphviz is not
// thread-safe, so every call holds one process-wide mutex while Graphviz runs.
GraphLayout computeGraphLayout(const ir::Graph& graph, const LabelMetrics& metrics);

}  // namespace kiln::viewers

Q_DECLARE_METATYPE(kiln::viewers::GraphLayout)
