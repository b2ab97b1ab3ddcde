// Room left on the native stack. The interpreter recurses on the C++ stack (a Python call is
// about eight native frames, each nested operator of an expression one more), so counting
// Python frames (Interpreter::kMaxDepth) cannot keep a script within its thread's stack: 990
// calls of a function whose return expression nests 190 additions overflowed the 8 MiB stack of
// the main thread (SIGSEGV; CPython runs it), and under AddressSanitizer, whose frames are
// several times larger, the plain 1000-deep recursion did. Calls, native recursion guards and
// expression evaluation check the room left and raise RecursionError well before the guard page.
#pragma once

#include <pthread.h>

#include <cstdint>

namespace kiln::py {

// Headroom kept below the check for raising the error itself (traceback, unwinding), and for
// native code that runs between two checks (a tensor op, the repr of one object).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr uintptr_t kStackHeadroom = uintptr_t{2} << 20;
#else
inline constexpr uintptr_t kStackHeadroom = uintptr_t{512} << 10;
#endif

// The lowest stack address this thread may reach before RecursionError; 1 where the stack's
// extent is unknown (no check).
inline uintptr_t computeStackFloor() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 1;
  void* addr = nullptr;
  size_t size = 0;
  const bool ok = pthread_attr_getstack(&attr, &addr, &size) == 0;
  pthread_attr_destroy(&attr);
  if (!ok || size <= 2 * kStackHeadroom) return 1;
  return reinterpret_cast<uintptr_t>(addr) + kStackHeadroom;
}

inline thread_local uintptr_t tStackFloor = 0;  // 0: not computed on this thread yet

// True when this thread's stack is nearly used up (one thread-local load and a compare).
inline bool stackNearlyFull() {
  uintptr_t floor = tStackFloor;
  if (floor == 0) floor = tStackFloor = computeStackFloor();
  return reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) < floor;
}

}  // namespace kiln::py
