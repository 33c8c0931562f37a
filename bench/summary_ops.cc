// The bandwidth and speed-up tables of SummaryReporter (see summary.h).
#include <algorithm>
#include <sstream>

#include "summary.h"
#include "summary_format.h"

namespace cvm::bench {
namespace {

// An error message fit for a table cell (no '|', no line breaks, not too long).
std::string cell(std::string text) {
  std::replace(text.begin(), text.end(), '|', '/');
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.size() > 90) text = text.substr(0, 87) + "...";
  return text;
}

std::string ratio(double a, double b, const char* format = "%.2f") {
  return a > 0 && b > 0 ? fmt(a / b, format) : "-";
}

}  // namespace

std::string SummaryReporter::render_ops() const {
  std::string text;
  if (cases_.count("bandwidth") != 0) text += render_bandwidth();
  if (cases_.count("speedup") != 0) text += render_speedup();
  return text;
}

// GB/s = bytes read + written per call / wall time; the fraction is ours / memcpy at the same
// thread count.
std::string SummaryReporter::render_bandwidth() const {
  const std::string family = "bandwidth";
  std::ostringstream out;
  out << "### Memory-bound operators on 16M-element int32 tensors vs memcpy\n\n";
  const auto noise = worst_wall_per_cpu_.find(family);
  if (noise != worst_wall_per_cpu_.end()) {
    out << "Noise check: the largest wall / CPU time of the benchmark thread in these runs is "
        << fmt(noise->second, "%.2f") << " (1.00: never descheduled by other processes).\n\n";
  }
  out << "| case | MB moved per call | ours GB/s, 1 thread | memcpy GB/s, 1 thread "
         "| ours / memcpy, 1 thread | ours GB/s, 2 threads | memcpy GB/s, 2 threads "
         "| ours / memcpy, 2 threads | ours 2 threads vs 1 |\n"
      << "|---|---|---|---|---|---|---|---|---|\n";
  for (const std::string& name : cases_.at(family)) {
    double moved = bytes(family, name, "memcpy", 1);
    if (moved < 0) moved = bytes(family, name, "ours", 1);
    auto gbps = [&](const std::string& impl, int threads) {
      const double us = time(family, name, impl, threads);
      return moved > 0 && us > 0 ? moved / (us * 1e3) : -1.0;
    };
    out << "| " << name << " | " << fmt(moved / 1e6, "%.0f");
    for (int threads : {1, 2}) {
      const std::string why = error(family, name, "ours", threads);
      const double ours = gbps("ours", threads), copy = gbps("memcpy", threads);
      out << " | " << (why.empty() ? fmt(ours, "%.1f") : cell(why)) << " | " << fmt(copy, "%.1f")
          << " | " << ratio(ours, copy);
    }
    out << " | "
        << ratio(time(family, name, "ours", 1), time(family, name, "ours", 2), "%.2fx")
        << " |\n";
  }
  out << "\n";
  return out.str();
}

std::string SummaryReporter::render_speedup() const {
  const std::string family = "speedup";
  std::ostringstream out;
  const std::vector<std::string>& names = cases_.at(family);
  int with_kernel = 0;
  for (const std::string& name : names) {
    with_kernel += error(family, name, "ours", 1) != "no optimized kernel" ? 1 : 0;
  }
  out << "### Optimized backend vs reference, per operator\n\n"
      << with_kernel << " of " << names.size()
      << " operators benchmarked have an optimized kernel. Speed-up = reference time / ours "
         "(above 1: ours is faster).\n\n";
  const auto noise = worst_wall_per_cpu_.find(family);
  if (noise != worst_wall_per_cpu_.end()) {
    out << "Noise check: the largest wall / CPU time of the benchmark thread in these runs is "
        << fmt(noise->second, "%.2f") << " (1.00: never descheduled by other processes).\n\n";
  }
  out << "| operator | case (input shapes) | reference | ours, 1 thread | speed-up, 1 thread "
         "| ours, 2 threads | speed-up, 2 threads | ours 2 threads vs 1 |\n"
      << "|---|---|---|---|---|---|---|---|\n";
  for (const std::string& name : names) {
    const double ref = time(family, name, "reference", 1);
    auto note = notes_.find(family + "/" + name + "/reference");
    if (note == notes_.end()) note = notes_.find(family + "/" + name + "/ours");
    out << "| " << name << " | " << (note != notes_.end() ? cell(note->second) : "-") << " | "
        << (error(family, name, "reference", 1).empty()
                ? fmt_time(ref)
                : cell(error(family, name, "reference", 1)));
    for (int threads : {1, 2}) {
      const std::string why = error(family, name, "ours", threads);
      const double ours = time(family, name, "ours", threads);
      out << " | " << (why.empty() ? fmt_time(ours) : cell(why)) << " | "
          << ratio(ref, ours, "%.1fx");
    }
    out << " | "
        << ratio(time(family, name, "ours", 1), time(family, name, "ours", 2), "%.2fx")
        << " |\n";
  }
  out << "\n";
  return out.str();
}

}  // namespace cvm::bench
