// Wrapping long chains: a layout much taller than wide (a model's 200 blocks, folded or
// expanded, laid out top to bottom: a one-box-wide column thousands of boxes tall) is cut between
// rows into several columns placed side by side and read like a newspaper's. Cuts only fall in
// the gaps between rows that no box and no kernel group spans, so nothing is split or overlaps;
// an edge from one column into a later one is a wrap edge, routed down out of its column,
// through the gap to the next column, over the top and down into its target (drawn dashed).
#pragma once

#include "viewers/graph_layout.h"

namespace kiln::viewers {

// Above this height : width a layout is wrapped, when it is taller than kWrapMinHeight points
// (about 40 rows: a short chain reads well in one column).
constexpr double kWrapAbove = 2.0;
constexpr double kWrapMinHeight = 2500.0;
// The height : width the columns are chosen for (a little taller than a 16:9 screen, so the
// wrapped graph fitted to a view is as large as it can be).
constexpr double kWrapTarget = 0.75;

// Wraps `layout` in place when it is taller than `wrapAbove` times its width (and than
// kWrapMinHeight); returns the number
// of columns (1: left as it was). Nodes keep their sizes and order within a column; bounds,
// kernel groups and edges follow.
int wrapLongLayout(GraphLayout& layout, double wrapAbove = kWrapAbove, double target = kWrapTarget);

}  // namespace kiln::viewers
