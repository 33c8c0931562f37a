// What a report says about the run beside its counts: the machine's CPU and the time, so that
// two runs' pages can be told apart and a difference between them traced to a machine.
#include <ctime>
#include <fstream>
#include <string>

#include "commands.h"
#include "optimized/cpu_features.h"

namespace cvm::cli {

std::string cpu_description() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(in, line) && (model.empty() || flags.empty())) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (line.rfind("model name", 0) == 0 && model.empty()) model = value;
    if (line.rfind("flags", 0) == 0 && flags.empty()) flags = " " + value + " ";
  }
  // Only the flags the optimized paths choose by: the full list is a screen of its own.
  std::string picked;
  for (const char* f : {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl",
                        "avx512_vnni", "avx_vnni", "amx_int8"}) {
    if (flags.find(std::string(" ") + f + " ") != std::string::npos) picked += std::string(" ") + f;
  }
  return (model.empty() ? std::string("unknown CPU") : model) + "; kernels: " +
         opt::isa_name(opt::detected_isa()) + ";" + picked;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace cvm::cli
