#include "viewers/graph_overlay.h"

#include "viewers/graph_cluster_item.h"
#include "viewers/line_colour.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace kiln::viewers {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }
// "1 node", "3 nodes" (tr's %n keeps "node(s)" when no translation is loaded).
QString nodes(int n) { return n == 1 ? QObject::tr("1 node") : QObject::tr("%1 nodes").arg(n); }

const QColor kNeutral(0xfd, 0xfd, 0xfd);  // the view's plain node fill: "no value"
constexpr int kMaxLegendKernels = 8;      // more would push the graph down; the rest are counted

// The graph nodes a shown item stands for: a folded box's members, or the node itself.
std::vector<int> membersOf(const CollapsedGraph& shown, int id) {
  auto it = shown.members.find(id);
  return it == shown.members.end() ? std::vector<int>{id} : it->second;
}

std::string kernelOfNode(const ir::Node& n, const OverlayData& data) {
  if (!n.kernel.empty()) return n.kernel;
  auto it = data.kernelOf.find(n.id);
  return it == data.kernelOf.end() ? std::string() : it->second;
}

// The kernels a shown item's nodes are in, each with how many of its nodes it holds, in order
// of first appearance.
std::vector<std::pair<std::string, int>> kernelsOfItem(const CollapsedGraph& shown, const ir::Graph& graph, int id,
                                                       const OverlayData& data) {
  std::vector<std::pair<std::string, int>> out;
  for (int m : membersOf(shown, id)) {
    const ir::Node* n = graph.find(m);
    const std::string k = n ? kernelOfNode(*n, data) : std::string();
    if (k.empty()) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == k; });
    if (it == out.end()) out.push_back({k, 1});
    else ++it->second;
  }
  return out;
}

QString noKernelsMessage(const OverlayData& data) {
  if (!data.noKernels.isEmpty()) return data.noKernels;
  return QObject::tr("No node of this stage is in a generated kernel");
}

bool anyKernel(const ir::Graph& graph, const OverlayData& data) {
  return std::any_of(graph.nodes.begin(), graph.nodes.end(), [&](const ir::Node& n) { return !kernelOfNode(n, data).empty(); });
}

void paintKernels(OverlayPaint& p, const CollapsedGraph& shown, const ir::Graph& graph, const OverlayData& data) {
  auto colourOf = [&](const std::string& k) {
    auto it = data.kernelIndex.find(k);
    return kernelColour(qs(k), it == data.kernelIndex.end() ? -1 : it->second);
  };
  p.title = QObject::tr("Kernel: which generated kernel each node is in");
  if (!anyKernel(graph, data)) {
    p.message = noKernelsMessage(data);
    return;
  }
  std::vector<std::string> order;  // kernels in graph order, for the legend
  std::map<std::string, int> inKernel;
  int outside = 0;
  for (const auto& n : graph.nodes) {
    const std::string k = kernelOfNode(n, data);
    if (k.empty()) {
      outside += n.kind != ir::NodeKind::Output;
      continue;
    }
    if (!inKernel[k]++) order.push_back(k);
  }
  for (const auto& item : shown.graph.nodes) {
    auto ks = kernelsOfItem(shown, graph, item.id, data);
    if (ks.empty()) continue;
    // A folded box takes the colour of the kernel holding most of its nodes.
    const auto top = std::max_element(ks.begin(), ks.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    p.fill[item.id] = colourOf(top->first);
    QStringList names;
    for (size_t i = 0; i < ks.size() && i < 3; ++i) names << qs(ks[i].first);
    if (ks.size() > 3) names << QObject::tr("%1 more").arg(ks.size() - 3);
    p.note[item.id] = ks.size() == 1 ? QObject::tr("kernel %1").arg(names[0])
                                     : QObject::tr("%1 kernels: %2").arg(ks.size()).arg(names.join(QStringLiteral(", ")));
  }
  for (size_t i = 0; i < order.size() && i < size_t(kMaxLegendKernels); ++i)
    p.legend << LegendEntry{colourOf(order[i]), QStringLiteral("%1 (%2)").arg(qs(order[i]), nodes(inKernel[order[i]]))};
  if (order.size() > size_t(kMaxLegendKernels))
    p.legend << LegendEntry{QColor(0xc8, 0xc8, 0xc8), QObject::tr("… %1 more kernels").arg(order.size() - kMaxLegendKernels)};
  if (outside) p.legend << LegendEntry{kNeutral, QObject::tr("not in a kernel (%1)").arg(nodes(outside))};
}

// Kernel time or bytes: a heat map over the kernels' profiled values, a folded box summing the
// kernels its nodes are in.
void paintHeat(OverlayPaint& p, const CollapsedGraph& shown, const ir::Graph& graph, const OverlayData& data, bool bytes) {
  p.title = bytes ? QObject::tr("Bytes moved per kernel launch (its buffers, run profile)")
                  : QObject::tr("Kernel time, ms per launch (run profile, median)");
  if (!data.profiled) {
    p.message = QObject::tr(
                    "Not profiled: this session has no kernel %1 for this compile (the studio's runs profile; "
                    "from a shell, kiln run --profile N)")
                    .arg(bytes ? QObject::tr("bytes") : QObject::tr("times"));
    return;
  }
  if (!anyKernel(graph, data)) {
    p.message = noKernelsMessage(data);
    return;
  }
  auto valueOf = [&](const std::string& k, double& v) {
    if (bytes) {
      auto it = data.kernelBytes.find(k);
      if (it == data.kernelBytes.end()) return false;
      v = double(it->second);
    } else {
      auto it = data.kernelMs.find(k);
      if (it == data.kernelMs.end()) return false;
      v = it->second;
    }
    return true;
  };
  auto text = [&](double v) {
    return bytes ? formatBytes(int64_t(v)) : QStringLiteral("%1 ms").arg(v, 0, 'f', v < 0.1 ? 4 : v < 10 ? 3 : 1);
  };
  std::map<int, double> value;
  std::map<int, int> kernelCount;
  int unmeasured = 0;
  double most = 0;
  for (const auto& item : shown.graph.nodes) {
    double sum = 0;
    int measured = 0;
    const auto ks = kernelsOfItem(shown, graph, item.id, data);
    for (const auto& [k, count] : ks) {
      double v = 0;
      if (valueOf(k, v)) sum += v, ++measured;
    }
    if (ks.empty()) continue;
    if (!measured) {
      ++unmeasured;
      p.note[item.id] = QObject::tr("kernel %1: no %2 recorded").arg(qs(ks[0].first), bytes ? QObject::tr("bytes") : QObject::tr("time"));
      continue;
    }
    value[item.id] = sum;
    kernelCount[item.id] = measured;
    most = std::max(most, sum);
  }
  for (const auto& [id, v] : value) {
    p.fill[id] = heatColour(most > 0 ? v / most : 0);
    p.note[id] = kernelCount[id] == 1 ? QObject::tr("%1 per launch").arg(text(v))
                                      : QObject::tr("%1 per launch over the %2 kernels its nodes are in").arg(text(v)).arg(kernelCount[id]);
  }
  if (value.empty()) {
    p.message = QObject::tr("The profile has no %1 for the kernels shown").arg(bytes ? QObject::tr("bytes") : QObject::tr("times"));
    return;
  }
  for (double t : {1.0, 0.75, 0.5, 0.25, 0.0})
    p.legend << LegendEntry{heatColour(t), t == 1.0 ? QObject::tr("%1 (the most shown)").arg(text(most)) : text(most * t)};
  p.legend << LegendEntry{kNeutral, QObject::tr("not in a kernel")};
  if (unmeasured)
    p.message = QObject::tr("%1 in kernels the profile did not measure")
                    .arg(unmeasured == 1 ? QObject::tr("1 item") : QObject::tr("%1 items").arg(unmeasured));
}

QColor dtypeColour(ir::DType d) {
  switch (d) {
    case ir::DType::Float32: return {0x8e, 0xb8, 0xe8};
    case ir::DType::Float64: return {0x5b, 0x7f, 0xc7};
    case ir::DType::Float16: return {0x7e, 0xd0, 0xb8};
    case ir::DType::BFloat16: return {0xa6, 0xd9, 0x7e};
    case ir::DType::Int64: return {0xf2, 0xb0, 0x6b};
    case ir::DType::Int32: return {0xf5, 0xd3, 0x6b};
    case ir::DType::Int16: return {0xe8, 0xc3, 0x9e};
    case ir::DType::Int8: return {0xd4, 0xa3, 0x7f};
    case ir::DType::UInt8: return {0xc9, 0x9b, 0x6e};
    case ir::DType::Bool: return {0xe8, 0x9e, 0xc4};
  }
  return kNeutral;
}

void paintDtypes(OverlayPaint& p, const CollapsedGraph& shown, const ir::Graph& graph) {
  p.title = QObject::tr("Dtype of each node's (first) result");
  std::map<ir::DType, int> all;
  int untyped = 0;
  for (const auto& n : graph.nodes) {
    if (n.types.empty()) untyped += n.kind != ir::NodeKind::Output;
    else all[n.types[0].dtype]++;
  }
  if (all.empty()) {
    p.message = QObject::tr("This stage records no tensor types");
    return;
  }
  for (const auto& item : shown.graph.nodes) {
    std::map<ir::DType, int> here;
    for (int m : membersOf(shown, item.id))
      if (const ir::Node* n = graph.find(m); n && !n->types.empty()) here[n->types[0].dtype]++;
    if (here.empty()) continue;
    const auto top = std::max_element(here.begin(), here.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    p.fill[item.id] = dtypeColour(top->first);
    QStringList parts;
    for (const auto& [d, count] : here)
      parts << (here.size() == 1 ? qs(ir::shortName(d)) : QStringLiteral("%1 (%2)").arg(qs(ir::shortName(d))).arg(count));
    p.note[item.id] = QObject::tr("dtype %1").arg(parts.join(QStringLiteral(", ")));
  }
  for (const auto& [d, count] : all)
    p.legend << LegendEntry{dtypeColour(d), QStringLiteral("%1 (%2)").arg(qs(ir::shortName(d)), nodes(count))};
  if (untyped) p.legend << LegendEntry{kNeutral, QObject::tr("no tensor type (%1)").arg(nodes(untyped))};
}

// How a node's result shape relates to its first tensor argument's.
enum class ShapeChange { None, Same, Reshaped, Fewer, More };

ShapeChange shapeChange(const ir::Graph& graph, const ir::Node& n) {
  if (n.types.empty() || n.kind != ir::NodeKind::CallFunction) return ShapeChange::None;
  const ir::TensorType* in = nullptr;
  ir::forEachNodeArg(n, [&](int a) {
    if (in) return;
    if (const ir::Node* arg = graph.find(a); arg && !arg->types.empty()) in = &arg->types[0];
  });
  if (!in) return ShapeChange::None;
  const ir::TensorType& out = n.types[0];
  if (out.sizes == in->sizes) return ShapeChange::Same;
  const int64_t a = in->numel(), b = out.numel();
  if (a < 0 || b < 0 || a == b) return ShapeChange::Reshaped;  // symbolic sizes: only "changed" is known
  return b < a ? ShapeChange::Fewer : ShapeChange::More;
}

void paintShapes(OverlayPaint& p, const CollapsedGraph& shown, const ir::Graph& graph) {
  p.title = QObject::tr("Shape change: each node's result against its first tensor argument");
  const std::map<ShapeChange, std::pair<QColor, QString>> kinds = {
      {ShapeChange::Reshaped, {QColor(0xb9, 0x9c, 0xe6), QObject::tr("new shape, same element count (view, reshape, transpose)")}},
      {ShapeChange::Fewer, {QColor(0x86, 0xb6, 0xec), QObject::tr("fewer elements (reduction, slice, contraction)")}},
      {ShapeChange::More, {QColor(0xf0, 0x9a, 0x7a), QObject::tr("more elements (broadcast, expand, concat)")}},
  };
  std::map<int, ShapeChange> of;
  std::map<ShapeChange, int> count;
  for (const auto& n : graph.nodes) count[of[n.id] = shapeChange(graph, n)]++;
  if (count[ShapeChange::Reshaped] + count[ShapeChange::Fewer] + count[ShapeChange::More] + count[ShapeChange::Same] == 0) {
    p.message = QObject::tr("This stage records no tensor types");
    return;
  }
  for (const auto& item : shown.graph.nodes) {
    std::map<ShapeChange, int> here;
    int members = 0;
    for (int m : membersOf(shown, item.id)) {
      ++members;
      if (auto it = of.find(m); it != of.end() && kinds.count(it->second)) here[it->second]++;
    }
    if (here.empty()) continue;
    const auto top = std::max_element(here.begin(), here.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    p.fill[item.id] = kinds.at(top->first).first;
    int changed = 0;
    for (const auto& [k, c] : here) changed += c;
    p.note[item.id] = members == 1 ? kinds.at(top->first).second : QObject::tr("%1 of %2 nodes change shape").arg(changed).arg(members);
  }
  for (const auto& [k, entry] : kinds)
    if (count[k]) p.legend << LegendEntry{entry.first, entry.second + QStringLiteral(" (%1)").arg(count[k])};
  p.legend << LegendEntry{kNeutral, QObject::tr("same shape (%1)").arg(count[ShapeChange::Same])};
}

void paintSourceLines(OverlayPaint& p, const CollapsedGraph& shown, const ir::Graph& graph) {
  p.title = QObject::tr("Source line: each node in its line's colour, as the script's lines are");
  std::map<int, int> all;  // line -> nodes
  int none = 0;
  for (const auto& n : graph.nodes) {
    if (n.prov.loc.line > 0) all[n.prov.loc.line]++;
    else none += n.kind != ir::NodeKind::Output;
  }
  if (all.empty()) {
    p.message = QObject::tr("No node of this stage records a source line");
    return;
  }
  for (const auto& item : shown.graph.nodes) {
    std::map<int, int> here;
    for (int m : membersOf(shown, item.id))
      if (const ir::Node* n = graph.find(m); n && n->prov.loc.line > 0) here[n->prov.loc.line]++;
    if (here.empty()) continue;
    const auto top = std::max_element(here.begin(), here.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    p.fill[item.id] = lineColour(top->first);
    p.note[item.id] = here.size() == 1 ? QObject::tr("line %1").arg(top->first)
                                       : QObject::tr("lines of %1 source lines, mostly %2").arg(here.size()).arg(top->first);
  }
  int listed = 0;
  for (const auto& [line, count] : all) {
    if (++listed > kMaxLegendKernels) {
      p.legend << LegendEntry{QColor(0xc8, 0xc8, 0xc8), QObject::tr("… %1 more lines").arg(all.size() - kMaxLegendKernels)};
      break;
    }
    p.legend << LegendEntry{lineColour(line), QObject::tr("line %1 (%2)").arg(line).arg(nodes(count))};
  }
  if (none) p.legend << LegendEntry{kNeutral, QObject::tr("no source line (%1)").arg(nodes(none))};
}

}  // namespace

QStringList overlayNames() {
  return {QObject::tr("None"),  QObject::tr("Kernel"),       QObject::tr("Kernel time"), QObject::tr("Bytes moved"),
          QObject::tr("Dtype"), QObject::tr("Shape change"), QObject::tr("Source line")};
}

QStringList overlayKeys() {
  return {QStringLiteral("none"),  QStringLiteral("kernel"), QStringLiteral("kernel-time"), QStringLiteral("bytes"),
          QStringLiteral("dtype"), QStringLiteral("shape"),  QStringLiteral("line")};
}

OverlayData overlayDataFor(const std::string& stage, const std::vector<storage::KernelRow>& kernels, bool profiled,
                           const std::map<std::string, double>& ms, const std::map<std::string, int64_t>& bytes) {
  OverlayData d;
  d.profiled = profiled;
  d.kernelMs = ms;
  d.kernelBytes = bytes;
  const bool backward = stage.rfind("backward:", 0) == 0;
  for (const auto& k : kernels) {
    // bw_* kernels implement backward:fused nodes, whose ids overlap the forward's.
    if ((k.name.rfind("bw_", 0) == 0) != backward) continue;
    d.hasKernels = true;
    d.kernelIndex.emplace(k.name, int(d.kernelIndex.size()));
    if (stage == "captured") continue;
    for (int id : k.nodeIds) d.kernelOf[id] = k.name;
  }
  if (!d.hasKernels) d.noKernels = QObject::tr("This compile generated no kernels");
  else if (stage == "captured")
    d.noKernels = QObject::tr("The captured graph's nodes are not the kernels' (its ids are its own): step to aten or later");
  return d;
}

OverlayPaint paintOverlay(Overlay mode, const CollapsedGraph& shown, const ir::Graph& graph, const OverlayData& data) {
  OverlayPaint p;
  if (graph.nodes.empty() && mode != Overlay::None) {
    p.title = overlayNames().value(int(mode));
    p.message = QObject::tr("No graph shown");
    return p;
  }
  switch (mode) {
    case Overlay::None: break;
    case Overlay::Kernel: paintKernels(p, shown, graph, data); break;
    case Overlay::KernelTime: paintHeat(p, shown, graph, data, false); break;
    case Overlay::Bytes: paintHeat(p, shown, graph, data, true); break;
    case Overlay::Dtype: paintDtypes(p, shown, graph); break;
    case Overlay::Shape: paintShapes(p, shown, graph); break;
    case Overlay::SourceLine: paintSourceLines(p, shown, graph); break;
  }
  return p;
}

QColor heatColour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  // Pale yellow (60°) to red (0°), darker and more saturated as it gets hotter.
  // Never so dark that a node's label stops being readable on it.
  return QColor::fromHsvF(float((1.0 - t) * 55.0 / 360.0), float(0.25 + 0.6 * t), float(1.0 - 0.12 * t));
}

QColor kernelColour(const QString& kernel, int index) {
  const int hue = index >= 0 ? int(std::fmod(index * 137.508, 360.0)) : GraphClusterItem::tint(kernel).hsvHue();
  return QColor::fromHsv(hue, 110, 240);
}

QString formatBytes(int64_t bytes) {
  if (bytes < 1024) return QStringLiteral("%1 B").arg(bytes);
  if (bytes < 1024 * 1024) return QStringLiteral("%1 KiB").arg(double(bytes) / 1024, 0, 'f', 1);
  if (bytes < int64_t(1) << 30) return QStringLiteral("%1 MiB").arg(double(bytes) / (1024 * 1024), 0, 'f', 1);
  return QStringLiteral("%1 GiB").arg(double(bytes) / double(int64_t(1) << 30), 0, 'f', 2);
}

}  // namespace kiln::viewers
