// A console reporter that also collects every run named "<family>/<case>/<impl>/t<threads>"
// (impl: ours, onednn_e2e, onednn_prim, reference, or any other name) and, at the end, prints
// the ratios ours / peer and the 1 -> 2 thread speedups, and optionally writes them as Markdown
// tables (docs/performance.md is assembled from them by ci/bench.sh).
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace cvm::bench {

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  explicit SummaryReporter(std::string markdown_path) : markdown_path_(std::move(markdown_path)) {}
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  std::string markdown_path_;
  std::vector<std::string> families_;                      // in order of appearance
  std::map<std::string, std::vector<std::string>> cases_;  // family -> cases, in order
  std::map<std::string, double> micros_;                   // family/case/impl/threads -> us
  std::map<std::string, std::string> notes_;               // family/case -> label text
  // Wall / CPU time of the benchmark thread, per family: near 1 when it was never descheduled
  // (other processes on the machine show up here).
  std::map<std::string, double> worst_wall_per_cpu_;

  double time(const std::string& family, const std::string& name, const std::string& impl,
              int threads) const;  // < 0 when absent
  std::string render() const;
};

}  // namespace cvm::bench
