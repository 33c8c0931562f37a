// cvmcheck_bench: every benchmark in bench/ (they register themselves), reported on the console
// and summarised by SummaryReporter. Extra flag: --markdown=PATH writes the summary tables.
#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "optimized/cpu_features.h"
#include "summary.h"

int main(int argc, char** argv) {
  std::string markdown;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--markdown=", 11) == 0) {
      markdown = argv[i] + 11;
    } else {
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  std::cout << "nn ISA path: " << cvm::opt::active_isa_name()
            << " (detected: " << cvm::opt::isa_name(cvm::opt::detected_isa()) << ")\n";
  cvm::bench::SummaryReporter reporter(markdown);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
