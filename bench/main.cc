// cvmcheck_bench: every benchmark in bench/ (they register themselves), reported on the console
// and summarised by SummaryReporter. Extra flags: --markdown=PATH writes the nn summary tables,
// --ops-markdown=PATH the bandwidth and per-operator speed-up tables.
#include <benchmark/benchmark.h>

#include <malloc.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cvmcheck/tensor_poison.h"
#include "op_call.h"
#include "optimized/cpu_features.h"
#include "summary.h"

int main(int argc, char** argv) {
  std::string markdown, ops_markdown;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--markdown=", 11) == 0) {
      markdown = argv[i] + 11;
    } else if (std::strncmp(argv[i], "--ops-markdown=", 15) == 0) {
      ops_markdown = argv[i] + 15;
    } else {
      args.push_back(argv[i]);
    }
  }
  // Keep freed memory in the heap for reuse, as a long-running inference process's allocator
  // would: without this, glibc returns every allocation above 32 MiB (a 16M-element output) to
  // the kernel, and each call pays ~16K first-touch page faults that have nothing to do with
  // the kernel being measured.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // Outputs unpoisoned: the fill is a harness aid, not part of the kernel being timed.
  cvm::set_poison_uninitialized(false);
  cvm::bench::register_speedup_benchmarks();
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  std::cout << "nn ISA path: " << cvm::opt::active_isa_name()
            << " (detected: " << cvm::opt::isa_name(cvm::opt::detected_isa()) << ")\n";
  cvm::bench::SummaryReporter reporter(markdown, ops_markdown);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
