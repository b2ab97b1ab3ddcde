// GuardedSessionWriter: a SessionWriter whose failures stop the recording instead of the run.
//
// The engine treats an exception from its sink as its own failure ("internal error"), so a
// full disk would abort the user's script. This sink catches the first failure of the writer
// (SQLITE_FULL, SQLITE_IOERR, a lock held too long, an event that cannot be serialized),
// reports it once through the handler, marks the session incomplete where the store still
// allows it, and drops every later event: the script runs on, unrecorded.
#pragma once

#include "storage/session_writer.h"

#include <functional>
#include <memory>
#include <string>

namespace kiln::storage {

class GuardedSessionWriter : public session::SessionSink {
 public:
  GuardedSessionWriter(std::unique_ptr<SessionWriter> writer, Store::StopHandler onStop)
      : writer_(std::move(writer)), onStop_(std::move(onStop)) {}

  void sessionStart(const session::SessionStart& e) override {
    guard([&] { writer_->sessionStart(e); });
  }
  void frame(const session::FrameEvent& e) override {
    guard([&] { writer_->frame(e); });
  }
  void compile(const session::CompileEvent& e) override {
    guard([&] { writer_->compile(e); });
  }
  void stage(const session::StageEvent& e) override {
    guard([&] { writer_->stage(e); });
  }
  void kernel(const session::KernelEvent& e) override {
    guard([&] { writer_->kernel(e); });
  }
  void kernelViews(const session::KernelViewsEvent& e) override {
    guard([&] { writer_->kernelViews(e); });
  }
  bool wantsKernelViews() const override { return !stopped_; }
  void wrapper(const session::WrapperEvent& e) override {
    guard([&] { writer_->wrapper(e); });
  }
  void graphBreak(const session::GraphBreakEvent& e) override {
    guard([&] { writer_->graphBreak(e); });
  }
  void recompile(const session::RecompileEvent& e) override {
    guard([&] { writer_->recompile(e); });
  }
  void timing(const session::TimingEvent& e) override {
    guard([&] { writer_->timing(e); });
  }
  void profile(const session::ProfileEvent& e) override {
    guard([&] { writer_->profile(e); });
  }
  void autotune(const session::AutotuneEvent& e) override {
    guard([&] { writer_->autotune(e); });
  }
  void verify(const session::VerifyEvent& e) override {
    guard([&] { writer_->verify(e); });
  }
  void artifact(const session::ArtifactEvent& e) override {
    guard([&] { writer_->artifact(e); });
  }
  void collective(const session::CollectiveEvent& e) override {
    guard([&] { writer_->collective(e); });
  }
  void output(const std::string& t) override {
    guard([&] { writer_->output(t); });
  }
  void compileDone(const std::string& id) override {
    guard([&] { writer_->compileDone(id); });
  }
  void sessionEnd(const session::SessionEnd& e) override {
    guard([&] { writer_->sessionEnd(e); });
  }

  bool stopped() const { return stopped_; }

 private:
  void guard(const std::function<void()>& write);

  std::unique_ptr<SessionWriter> writer_;
  Store::StopHandler onStop_;
  bool stopped_ = false;
};

}  // namespace kiln::storage
