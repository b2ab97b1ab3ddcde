// ExplainReport: a sink that keeps what torch._dynamo.explain() and TORCH_LOGS report — graphs
// (compile id, frame, ops, FX readable code), graph breaks, recompiles, guards — and prints it
// as text or as JSON with the field names of the corpus oracle (graph_count, graphs[].op_count,
// graph_break_count, recompile_count, recompile_reasons ...). In driver/ because it sorts fused
// nodes by the op table's kinds (views) — session/ holds only the events.
#pragma once

#include "engine/session/sink.h"

#include <map>
#include <string>
#include <vector>

namespace kiln::driver {

using session::CompileEvent;
using session::FrameEvent;
using session::GraphBreakEvent;
using session::RecompileEvent;
using session::StageEvent;
using session::WrapperEvent;

class ExplainReport : public session::SessionSink {
 public:
  struct GraphInfo {
    std::string compileId;
    std::string frameName;
    int opCount = 0;
    std::vector<std::string> ops;
    std::string readable;
    // ATen nodes of the fused stage: in generated kernels, in fallbacks (eager extern kernels),
    // and free (views) or library calls (matmul/convolution through BLAS).
    int generated = 0, fallback = 0, views = 0, library = 0;
    std::vector<std::string> fallbackOps;
    // The compiled graph's buffer plan (the wrapper's "# memory plan:" line): intermediates,
    // slots, peak bytes, in-place reuse.
    std::string memoryPlan;
    // A dynamic graph: the symbols its kernels run over, or why they were specialized (the
    // wrapper's "# dynamic shapes:" line).
    std::string dynamicShapes;
  };

  void frame(const FrameEvent& e) override { frames_[e.frameId] = e; }
  void stage(const StageEvent& e) override;
  void compile(const CompileEvent& e) override { compiles_.push_back(e); }
  void graphBreak(const GraphBreakEvent& e) override { breaks_.push_back(e); }
  void recompile(const RecompileEvent& e) override { recompiles_.push_back(e); }
  void wrapper(const WrapperEvent& e) override;

  const std::vector<GraphInfo>& graphs() const { return graphs_; }
  const std::vector<GraphBreakEvent>& breaks() const { return breaks_; }
  const std::vector<RecompileEvent>& recompiles() const { return recompiles_; }
  const std::vector<CompileEvent>& compiles() const { return compiles_; }

  std::string json() const;  // oracle field names
  std::string text() const;  // explain()-style report
  // TORCH_LOGS-style lines for the given comma-separated names (logNames()).
  std::string logs(const std::string& names) const;
  // The TORCH_LOGS names logs() knows: graph_breaks, recompiles, recompiles_verbose, guards,
  // graph_code (kiln run --logs refuses others).
  static const std::vector<std::string>& logNames();

 private:
  std::map<int, FrameEvent> frames_;
  std::vector<GraphInfo> graphs_;
  std::vector<CompileEvent> compiles_;
  std::vector<GraphBreakEvent> breaks_;
  std::vector<RecompileEvent> recompiles_;
};

}  // namespace kiln::driver
