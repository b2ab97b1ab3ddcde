// Line marks for the source pane built from what the store recorded: recompile triggers (amber)
// at the line of the guard that failed, the line an uncaught exception came from (crimson). (Graph-break marks are built by the
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

// The line of the script where a run's uncaught exception was raised: the innermost frame of
// its Python-style traceback (`File "PATH", line N`) in the script itself (by path or file
// name), marked crimson with the exception as tooltip. line == 0 when no frame is the script's.
LineMark errorMark(const QString& traceback, const QString& scriptPath);

}  // namespace kiln::viewers
