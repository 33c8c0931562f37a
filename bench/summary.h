// A console reporter that also collects every run named "<family>/<case>/<impl>/t<threads>"
// (impl: ours, onednn_e2e, onednn_prim, reference, memcpy, or any other name) and, at the end,
// prints the ratios ours / peer and the 1 -> 2 thread speedups, and optionally writes them as
// Markdown tables (docs/performance.md is assembled from them by ci/bench.sh). Two families are
// rendered their own way (summary_ops.cc): "bandwidth" (GB/s against memcpy) and "speedup"
// (optimized vs reference per operator); they go to a second Markdown file.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cvm::bench {

// Remembers the place of a benchmark's family and case ("<family>/<case>/..."): the summary
// lists them in registration order, whatever order the repetitions ran in (ci/bench.sh runs them
// randomly interleaved).
void note_registered(const std::string& name);

// Registers a benchmark "<family>/<case>/<impl>/t<threads>" timed by wall clock in
// microseconds, its place noted.
template <typename Fn, typename... Args>
benchmark::internal::Benchmark* register_case(const std::string& name, Fn&& fn, Args&&... args) {
  note_registered(name);
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn),
                                      std::forward<Args>(args)...)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  // markdown_path: the nn families; ops_markdown_path: bandwidth and speedup. Empty: not written.
  SummaryReporter(std::string markdown_path, std::string ops_markdown_path)
      : markdown_path_(std::move(markdown_path)),
        ops_markdown_path_(std::move(ops_markdown_path)) {}
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  std::string markdown_path_, ops_markdown_path_;
  std::vector<std::string> families_;                      // in registration order
  std::map<std::string, std::vector<std::string>> cases_;  // family -> cases, in that order
  std::map<std::string, double> micros_;                   // family/case/impl/threads -> us
  std::map<std::string, std::string> notes_;               // family/case/impl -> label text
  std::map<std::string, std::string> errors_;              // family/case/impl/threads -> why
  std::map<std::string, double> bytes_;                    // family/case/impl/threads -> bytes
  // Wall / CPU time of the benchmark thread, per family: near 1 when it was never descheduled
  // (other processes on the machine show up here).
  std::map<std::string, double> worst_wall_per_cpu_;

  double time(const std::string& family, const std::string& name, const std::string& impl,
              int threads) const;  // < 0 when absent
  // A run's error (SkipWithError) message, empty when none.
  std::string error(const std::string& family, const std::string& name, const std::string& impl,
                    int threads) const;
  double bytes(const std::string& family, const std::string& name, const std::string& impl,
               int threads) const;  // < 0 when absent
  static bool is_ops_family(const std::string& family);
  std::string render() const;      // the nn families
  // The label of a oneDNN run that differed from ours ("inexact on this CPU: ..."), or empty.
  std::string inexact(const std::string& family, const std::string& name) const;
  std::string render_inexact(const std::string& family, const std::string& name) const;
  std::string render_ops() const;  // bandwidth and speedup (summary_ops.cc)
  std::string render_bandwidth() const;
  std::string render_speedup() const;
};

}  // namespace cvm::bench
