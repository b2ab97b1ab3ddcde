// Overlays: per-node data painted on the graph, chosen in the legend (graph_legend.h). Every
// value comes from the store: a node's kernel (the fused stage's kernel membership, which the
// ATen and pass stages share by node id), the run profile's time and bytes moved per kernel
// launch (`kiln run --profile N`, which the studio's runs do), and the node's own types (dtype,
// shape). Where the session holds no such data the overlay paints nothing and its legend says
// why; nothing is estimated.
#pragma once

#include "engine/ir/graph.h"
#include "storage/store.h"
#include "viewers/module_collapse.h"

#include <QColor>
#include <QList>
#include <QString>
#include <QStringList>

#include <map>
#include <string>
#include <vector>

namespace kiln::viewers {

// SourceLine: every node in its source line's colour at once (Compiler Explorer's colouring; the
// source pane tints the same lines).
enum class Overlay { None, Kernel, KernelTime, Bytes, Dtype, Shape, SourceLine };

// The chooser's names, in Overlay order, and the command-line spellings (kiln-studio --overlay).
QStringList overlayNames();
QStringList overlayKeys();  // none, kernel, kernel-time, bytes, dtype, shape, line

// What the overlays know about one stage of a compile.
struct OverlayData {
  std::map<int, std::string> kernelOf;         // node id -> the kernel it is (or ends up) in
  std::map<std::string, int> kernelIndex;      // kernel -> its place in the compile's list (its colour)
  std::map<std::string, double> kernelMs;      // per launch, from the run profile
  std::map<std::string, int64_t> kernelBytes;  // bytes of the kernel's buffers, from the profile
  bool profiled = false;                       // the session has a run profile for this compile
  bool hasKernels = false;                     // the compile generated kernels (the stage can be mapped to them)
  QString noKernels;                           // why no node of the stage maps to a kernel ("" when some may)
};

// The overlay data for stage `stage` of a compile with `kernels` and, when profiled, the
// profile's per-kernel times and bytes. The captured graph has node ids of its own, so no
// kernel maps onto it; backward stages map only the backward's kernels (bw_*), forward stages
// only the forward's.
OverlayData overlayDataFor(const std::string& stage, const std::vector<storage::KernelRow>& kernels, bool profiled,
                           const std::map<std::string, double>& ms, const std::map<std::string, int64_t>& bytes);

struct LegendEntry {
  QColor colour;
  QString text;
  bool operator==(const LegendEntry&) const = default;
};

// What an overlay paints: a fill and a tooltip line per shown node or folded box, and its legend.
struct OverlayPaint {
  std::map<int, QColor> fill;
  std::map<int, QString> note;
  QString title;              // "Kernel time (ms per launch)"
  QList<LegendEntry> legend;  // swatches, in order
  QString message;            // why nothing (or not everything) is painted; "" when all is
};

// `shown` is what is laid out (folded boxes stand for their members); `graph` the whole stage.
OverlayPaint paintOverlay(Overlay mode, const CollapsedGraph& shown, const ir::Graph& graph, const OverlayData& data);

// The heat colour of `t` in [0, 1]: pale yellow (cold) through orange to dark red (hot).
QColor heatColour(double t);
// A kernel's fill: kernel `index` of its compile (>= 0) takes the golden angle's index-th hue,
// so kernels next to each other differ (names such as cpp_fused_..._N hash to similar hues);
// without an index, its group's tint's hue (GraphClusterItem::tint), stronger.
QColor kernelColour(const QString& kernel, int index = -1);
QString formatBytes(int64_t bytes);

}  // namespace kiln::viewers
