// SessionSink: where the engine reports what it does. The engine only knows this interface;
// storage/ implements it over SQLite, tests implement it in memory.
#pragma once

#include "engine/session/events.h"

namespace kiln::session {

class SessionSink {
 public:
  virtual ~SessionSink() = default;
  virtual void sessionStart(const SessionStart&) {}
  virtual void frame(const FrameEvent&) {}
  virtual void compile(const CompileEvent&) {}
  virtual void stage(const StageEvent&) {}
  virtual void kernel(const KernelEvent&) {}
  // A compile's kernels' GPU views, after the compile (KernelViewsEvent). Only sinks that keep
  // them say so with wantsKernelViews(): for the others the views are never made (a second NVRTC
  // compile and nvdisasm per graph), and the background views are delivered only to sinks that
  // want them, which must then outlive the run (driver::runScript waits for them before
  // sessionEnd); a sink made for one compile (a NullSink, a bisection's) wants none.
  virtual void kernelViews(const KernelViewsEvent&) {}
  virtual bool wantsKernelViews() const { return false; }
  virtual void wrapper(const WrapperEvent&) {}
  virtual void graphBreak(const GraphBreakEvent&) {}
  virtual void recompile(const RecompileEvent&) {}
  virtual void timing(const TimingEvent&) {}
  virtual void profile(const ProfileEvent&) {}
  virtual void autotune(const AutotuneEvent&) {}
  virtual void verify(const VerifyEvent&) {}
  virtual void artifact(const ArtifactEvent&) {}
  virtual void collective(const CollectiveEvent&) {}
  virtual void output(const std::string& text) { (void)text; }  // printed stdout, in chunks
  // A compile finished: everything reported for it so far may be committed.
  virtual void compileDone(const std::string& compileId) { (void)compileId; }
  virtual void sessionEnd(const SessionEnd&) {}
};

// Ignores every event (runs that record nothing, tests).
class NullSink : public SessionSink {};

}  // namespace kiln::session
