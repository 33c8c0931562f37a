// A graceful stop on SIGINT, SIGTERM and SIGHUP (docs/nightly.md, "A stopped or killed run"): the
// first signal sets a flag that the long-running loops (the campaign's calls) read at each call
// boundary, so the run ends with its table, reports and store record; a second signal ends the
// process at once with that signal's default action. CI sends SIGTERM on a timeout or a cancel,
// a terminal SIGINT on Ctrl-C and SIGHUP when it closes: each of them would otherwise lose the
// whole run.
#pragma once

#include <atomic>
#include <string>

namespace cvm {

// Installs the handlers (once per process; a forked job inherits them, and its flag is its own).
void install_stop_handlers();

// The signal that asked to stop (SIGINT, SIGTERM, SIGHUP), 0 while none did.
int stop_signal();

// "SIGINT", "SIGTERM", "SIGHUP", else "signal N".
std::string signal_name(int signal);

// "signal:SIGTERM" (CampaignResult::stopped) for stop_signal(); "" while none asked.
std::string stop_reason();

// As if `signal` had arrived (tests); 0 clears it.
void request_stop(int signal);

// In a forked job: stop_signal() also reads `parent` (shared memory the parent sets to the signal
// that asked it to stop), so a stop the parent alone received (`kill PID`) reaches every job
// without a second signal, which would end a job that had received the first at once.
void follow_parent_stop(const std::atomic<int>* parent);

}  // namespace cvm
