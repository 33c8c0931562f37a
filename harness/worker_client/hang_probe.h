// What a worker that gave no reply in time was doing, for the hang's message. The verdict is
// the call timeout's (a hang is judged by the clock, the one place the harness must); this only
// tells whoever reads the finding whether the worker was stuck or merely slow: its scheduler
// state, the CPU it burned over a short look (a spinning loop burns a whole core, a blocked wait
// none), its wait channel, and, where gdb is installed and asked for, its threads' stacks
// appended to a file beside its stderr log.
#pragma once

#include <sys/types.h>

#include <string>

namespace cvm {

struct HangProbe {
  std::string summary;     // e.g. "running, 0.98 CPU-s per s over 0.3 s" (empty: no /proc),
                           // then "; its process PID (NAME) ..." for each other one
  std::string stack_path;  // the file the stacks went to; empty when none were asked for
  bool stacks_taken = false;  // gdb attached and wrote them (else its error is in the file)
};

// Looks at process `pid` and the other processes of its group (up to 8) for `look_s` seconds
// (call it before the kill).
// With `stack_path` not empty, appends a header and every thread's backtrace there (gdb from
// PATH, bounded to 30 s); without gdb, or where it cannot attach, what went wrong instead.
HangProbe probe_hung_process(pid_t pid, double look_s, const std::string& stack_path);

}  // namespace cvm
