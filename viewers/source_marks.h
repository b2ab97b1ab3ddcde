// Line marks for the source pane built from what the store recorded: recompile triggers (amber)
// at the line of the guard each recompile reason names. (Graph-break marks are built by the
// window from Store::graphBreaks.)
#pragma once

#include "storage/store.h"
#include "viewers/source_view.h"

#include <QList>

#include <vector>

namespace kiln::viewers {

QList<LineMark> recompileMarks(const std::vector<session::RecompileEvent>& recompiles, const std::vector<storage::CompileRow>& compiles);

}  // namespace kiln::viewers
