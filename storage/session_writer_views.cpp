// SessionWriter::kernelViews: a GPU compile's kernels are stored at once with their launch and a
// note that PTX and SASS are pending; their views, made on a background thread after the compile
// (engine/driver/kernel_views.h), arrive later as one event and update those rows in place. A
// reader (the studio on reload, kiln show) then sees what a session whose views were made during
// the compile holds.
#include "storage/graph_json.h"
#include "storage/session_writer.h"

namespace kiln::storage {

void SessionWriter::kernelViews(const session::KernelViewsEvent& v) {
  beginEvent("kernelViews");
  Stmt rows(*db_, "SELECT id, kernel_ir FROM kernels WHERE session_id = ? AND compile_id = ? AND name = ? ORDER BY id");
  Stmt update(*db_, "UPDATE kernels SET source = ?, ptx = ?, sass = ?, gpu_json = ? WHERE id = ?");
  for (const auto& k : v.kernels) {
    rows.bind(1, sessionId_).bind(2, v.compileId).bind(3, k.name);
    std::vector<std::pair<int64_t, std::string>> found;  // read before writing: one statement at a time
    while (rows.step()) found.emplace_back(rows.int64(0), rows.text(1));
    rows.reset();
    // A kernel with no row (its compile was not recorded) has nothing to update.
    for (const auto& [id, kernelIr] : found) {
      update.bindCompressed(1, k.source).bindCompressed(2, k.gpu.ptx).bindCompressed(3, k.gpu.sass);
      update.bind(4, gpuInfoToJson(k.gpu)).bind(5, id).run();
      index("kernel", std::to_string(id), kernelSearchText(k.name, kernelIr, k.source), true);  // with the new source
    }
  }
  endEvent(v.compileId);
}

}  // namespace kiln::storage
