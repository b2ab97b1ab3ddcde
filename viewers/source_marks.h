// Line marks for the source pane built from what the store recorded: recompile triggers (amber)
// at the line of the guard each recompile reason names. (Graph-break marks are built by the
// window from Store::graphBreaks.)
#pragma once

#include "storage/store.h"
#include "viewers/source_view.h"

#include <QList>

#include <vector>

namespace kiln::viewers {

// The source line of the guard a recompile reason ("0/0: n == 1", "0/0: tensor 'x' dtype
// mismatch ...") says failed, or 0 when no recorded guard matches.
int guardLine(const std::string& reason, const std::vector<storage::CompileRow>& compiles);
// One amber mark per such line, its tooltip listing the recompiles it caused.
QList<LineMark> recompileMarks(const std::vector<session::RecompileEvent>& recompiles, const std::vector<storage::CompileRow>& compiles);

}  // namespace kiln::viewers
