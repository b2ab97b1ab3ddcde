// Forwards every event to several sinks (the store and an explain report, say).
#pragma once

#include "engine/session/sink.h"

#include <vector>

namespace kiln::session {

class TeeSink : public SessionSink {
 public:
  explicit TeeSink(std::vector<SessionSink*> sinks) : sinks_(std::move(sinks)) {}
  void sessionStart(const SessionStart& e) override {
    for (auto* s : sinks_) s->sessionStart(e);
  }
  void frame(const FrameEvent& e) override {
    for (auto* s : sinks_) s->frame(e);
  }
  void compile(const CompileEvent& e) override {
    for (auto* s : sinks_) s->compile(e);
  }
  void stage(const StageEvent& e) override {
    for (auto* s : sinks_) s->stage(e);
  }
  void kernel(const KernelEvent& e) override {
    for (auto* s : sinks_) s->kernel(e);
  }
  void kernelViews(const KernelViewsEvent& e) override {
    for (auto* s : sinks_)
      if (s->wantsKernelViews()) s->kernelViews(e);
  }
  bool wantsKernelViews() const override {
    for (auto* s : sinks_)
      if (s->wantsKernelViews()) return true;
    return false;
  }
  void wrapper(const WrapperEvent& e) override {
    for (auto* s : sinks_) s->wrapper(e);
  }
  void graphBreak(const GraphBreakEvent& e) override {
    for (auto* s : sinks_) s->graphBreak(e);
  }
  void recompile(const RecompileEvent& e) override {
    for (auto* s : sinks_) s->recompile(e);
  }
  void timing(const TimingEvent& e) override {
    for (auto* s : sinks_) s->timing(e);
  }
  void profile(const ProfileEvent& e) override {
    for (auto* s : sinks_) s->profile(e);
  }
  void autotune(const AutotuneEvent& e) override {
    for (auto* s : sinks_) s->autotune(e);
  }
  void verify(const VerifyEvent& e) override {
    for (auto* s : sinks_) s->verify(e);
  }
  void artifact(const ArtifactEvent& e) override {
    for (auto* s : sinks_) s->artifact(e);
  }
  void collective(const CollectiveEvent& e) override {
    for (auto* s : sinks_) s->collective(e);
  }
  void output(const std::string& t) override {
    for (auto* s : sinks_) s->output(t);
  }
  void compileDone(const std::string& id) override {
    for (auto* s : sinks_) s->compileDone(id);
  }
  void sessionEnd(const SessionEnd& e) override {
    for (auto* s : sinks_) s->sessionEnd(e);
  }

 private:
  std::vector<SessionSink*> sinks_;
};

}  // namespace kiln::session
