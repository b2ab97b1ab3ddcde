// The colour of an op's kind, for graph nodes drawn without text (zoomed out, the minimap): a
// reader who cannot read the labels still sees where the matmuls, reductions and reshapes are.
#pragma once

#include <QColor>
#include <QString>

namespace kiln::viewers {

// `target` is the node's second label line: "input", "output", "module, N nodes" or the op
// ("aten.mm.default", "torch.relu", "matmul"...).
inline QColor opKindColour(const QString& target) {
  auto has = [&](const char* word) { return target.contains(QLatin1String(word)); };
  if (target == QLatin1String("input")) return {0xf2, 0xc9, 0x4c};             // yellow: graph inputs
  if (target == QLatin1String("output")) return {0xe5, 0x8e, 0x3a};            // orange: the output
  if (target.startsWith(QLatin1String("module,"))) return {0xc8, 0xb8, 0x9a};  // tan: folded modules
  if (has("mm") || has("matmul") || has("linear") || has("conv") || has("einsum") || has("baddbmm") || has("attention"))
    return {0x4a, 0x7b, 0xd0};  // blue: contractions
  if (has("sum") || has("mean") || has("amax") || has("max") || has("min") || has("softmax") || has("norm") || has("var") || has("prod") ||
      has("argm") || has("reduce"))
    return {0x9b, 0x6b, 0xc8};  // purple: reductions
  if (has("view") || has("reshape") || has("permute") || has("transpose") || has("expand") || has("squeeze") || has("slice") ||
      has("select") || has("cat") || has("split") || has("clone") || has("contiguous") || target.endsWith(QLatin1String(".t")) ||
      has(".t.") || has("getitem"))
    return {0xa9, 0xae, 0xb8};  // grey: layout / views
  return {0x6f, 0xbf, 0x8a};    // green: pointwise and the rest
}

}  // namespace kiln::viewers
