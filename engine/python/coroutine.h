// A stackful coroutine: a body that runs on a stack of its own and can suspend itself
// (suspend()) and be resumed (resume()) any number of times. Python generators run their
// bodies on one, so a tree-walking interpreter can stop in the middle of a statement at a
// `yield` and continue there later, with every C++ frame of the evaluation kept.
//
// Exceptions never cross the stacks: one escaping the body ends it and is rethrown by the
// resume() that ran it. The stack is mapped with a guard page and only touched pages use
// memory; stacks are reused once a coroutine ends.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>

namespace kiln::py {

class Coroutine {
 public:
  explicit Coroutine(std::function<void()> body);
  ~Coroutine();
  Coroutine(const Coroutine&) = delete;
  Coroutine& operator=(const Coroutine&) = delete;

  // Runs the body until it calls suspend() or ends. Rethrows what escaped the body.
  void resume();
  // Called by the body: returns to the resume() that is running it.
  void suspend();
  bool started() const { return started_; }
  bool done() const { return done_; }
  bool running() const { return running_; }

  // Bytes of stack a coroutine gets (virtual; touched pages only).
  static constexpr size_t kStackBytes = size_t{16} << 20;
  // The coroutine running on this thread (null on the main stack).
  static Coroutine* current();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::function<void()> body_;
  std::exception_ptr error_;
  bool started_ = false, done_ = false, running_ = false;
  Coroutine* outer_ = nullptr;  // the coroutine that resumed this one
  static void entry(unsigned lo, unsigned hi);
};

}  // namespace kiln::py
