// Asynchronous requests to stop a running script: Ctrl-C (KeyboardInterrupt, as CPython raises
// it), a time limit that ran out (kiln run --timeout) or a termination request (SIGTERM, the
// studio's Stop). A signal handler or a watchdog thread sets the request; the interpreter
// checks it between statements, at calls and in comprehension loops and raises there, so the
// script's traceback shows where it was and its output and session are kept.
#pragma once

namespace kiln::py {

// FlushOutput is not a stop: a timer asks the interpreter's thread to pass on what was printed
// (Interpreter::onFlushOutput); it never replaces a real request. OutOfMemory: the watchdog saw
// the script's heap grow past its memory limit (many small Python objects, which no single
// allocation check catches); raised once as MemoryError, like KeyboardInterrupt.
enum class Interrupt : int { None = 0, KeyboardInterrupt = 1, Timeout = 2, Terminate = 3, FlushOutput = 4, OutOfMemory = 5 };

// Async-signal-safe.
void requestInterrupt(Interrupt what);
Interrupt pendingInterrupt();
// Takes a pending KeyboardInterrupt (it is raised once); time limits and termination stay
// pending, so a script that catches the exception is stopped again at its next statement.
void takeKeyboardInterrupt();
// Takes a pending OutOfMemory (raised once; the watchdog asks again while the heap stays over).
void takeOutOfMemory();
// Asks for an output flush unless another request is pending (async-signal-safe), and takes it.
void requestFlushOutput();
bool takeFlushOutput();
// Forgets a pending request (a new script starts).
void clearInterrupt();
// The reason the last script was stopped (None if it was not); kept after the request is taken.
Interrupt lastInterrupt();

// Installs SIGINT and SIGTERM handlers that request an interrupt; a second Ctrl-C before the
// first was taken restores the default action and kills the process (a script stuck in native
// code can always be stopped). The destructor restores the previous handlers.
class SignalScope {
 public:
  SignalScope();
  ~SignalScope();
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;
};

}  // namespace kiln::py
