// Helpers for tests of --jobs (forked jobs).
#pragma once

namespace cvm::testing {

// A job's start: the optimized backend on one thread, as every --jobs command's jobs run. Also
// what keeps a job from waiting forever on the OpenMP pool of a parent that ran parallel regions
// before it forked (libgomp's threads do not survive fork).
void one_thread(int job);

// Aborts without leaving a core file: a job's deliberate crash.
[[noreturn]] void crash_quietly();

}  // namespace cvm::testing
