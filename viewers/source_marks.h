// Line marks for the source pane built from what the store recorded: recompile triggers (amber)
// at the line of the guard that failed. (Graph-break marks are built by the
// window from Store::graphBreaks.)
#pragma once

#include "storage/store.h"
#include "viewers/source_view.h"

#include <QList>

#include <vector>

namespace kiln::viewers {

// One amber mark per line whose guard failed and caused a recompile (RecompileEvent::lines), its
// tooltip listing those recompiles.
QList<LineMark> recompileMarks(const std::vector<session::RecompileEvent>& recompiles);

}  // namespace kiln::viewers
