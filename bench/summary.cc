#include "summary.h"

#include "summary_format.h"

#include "optimized/cpu_features.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

namespace cvm::bench {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

// "<family>" and "<family>/<case>" keys in the order note_registered first saw them.
std::vector<std::string>& registered_keys() {
  static std::vector<std::string> keys;
  return keys;
}

// A key's place in registration order (unregistered ones last, in their order of appearance).
size_t rank(const std::string& key) {
  const std::vector<std::string>& keys = registered_keys();
  return static_cast<size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
}

// Inserts `item` (keyed `key`) into `list` at its registration-order place, if not there yet.
void insert_ranked(std::vector<std::string>& list, const std::string& item,
                   const std::string& prefix) {
  if (std::find(list.begin(), list.end(), item) != list.end()) return;
  const size_t r = rank(prefix + item);
  auto at = std::find_if(list.begin(), list.end(),
                         [&](const std::string& other) { return rank(prefix + other) > r; });
  list.insert(at, item);
}

double to_micros(double value, benchmark::TimeUnit unit) {
  switch (unit) {
    case benchmark::kNanosecond: return value / 1e3;
    case benchmark::kMicrosecond: return value;
    case benchmark::kMillisecond: return value * 1e3;
    case benchmark::kSecond: return value * 1e6;
  }
  return value;
}

std::string key(const std::string& family, const std::string& name, const std::string& impl,
                int threads) {
  return family + "/" + name + "/" + impl + "/" + std::to_string(threads);
}

}  // namespace

void note_registered(const std::string& name) {
  const std::vector<std::string> parts = split(name, '/');
  if (parts.size() < 2) return;
  for (const std::string& key : {parts[0], parts[0] + "/" + parts[1]}) {
    std::vector<std::string>& keys = registered_keys();
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
}

void SummaryReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    // Single runs, or the median of repetitions (reported after them, so it wins), or the
    // minimum where a benchmark computes it (conv2d and dense: reported after the median).
    if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median" &&
        run.aggregate_name != "min") {
      continue;
    }
    const std::vector<std::string> parts = split(run.benchmark_name(), '/');
    if (parts.size() < 4 || parts[3].size() < 2 || parts[3][0] != 't') continue;
    const std::string& family = parts[0];
    const std::string& name = parts[1];
    const int threads = std::atoi(parts[3].c_str() + 1);
    insert_ranked(families_, family, "");
    insert_ranked(cases_[family], name, family + "/");
    if (run.error_occurred) {
      errors_[key(family, name, parts[2], threads)] = run.error_message;
      continue;
    }
    const auto counter = run.counters.find("bytes");
    if (counter != run.counters.end()) {
      bytes_[key(family, name, parts[2], threads)] = counter->second;
    }
    micros_[key(family, name, parts[2], threads)] =
        to_micros(run.GetAdjustedRealTime(), run.time_unit);
    if (run.GetAdjustedCPUTime() > 0) {
      double& worst = worst_wall_per_cpu_[family];
      worst = std::max(worst, run.GetAdjustedRealTime() / run.GetAdjustedCPUTime());
    }
    if (!run.report_label.empty()) notes_[family + "/" + name + "/" + parts[2]] = run.report_label;
  }
}

std::string SummaryReporter::error(const std::string& family, const std::string& name,
                                   const std::string& impl, int threads) const {
  const auto it = errors_.find(key(family, name, impl, threads));
  return it == errors_.end() ? std::string() : it->second;
}

double SummaryReporter::bytes(const std::string& family, const std::string& name,
                              const std::string& impl, int threads) const {
  const auto it = bytes_.find(key(family, name, impl, threads));
  return it == bytes_.end() ? -1.0 : it->second;
}

bool SummaryReporter::is_ops_family(const std::string& family) {
  return family == "bandwidth" || family == "speedup";
}

double SummaryReporter::time(const std::string& family, const std::string& name,
                             const std::string& impl, int threads) const {
  const auto it = micros_.find(key(family, name, impl, threads));
  return it == micros_.end() ? -1.0 : it->second;
}

namespace {

// Whether the AVX-VNNI kernels were timed (natively: an emulated twin never is).
std::string avxvnni_note() {
  if (!opt::isa_supported(opt::Isa::kAvxVnni)) {
    return "AVX-VNNI: not measured (this CPU lacks it; its kernels were checked only under "
           "emulation, optimized/avxvnni~simde).\n\n";
  }
  if (opt::detected_isa() == opt::Isa::kAvxVnni) {
    return "AVX-VNNI: the CPUID pick here, so \"ours\" is the AVX-VNNI path.\n\n";
  }
  return "AVX-VNNI: timed as well, forced, in each shape's line \"Ours on AVX-VNNI\".\n\n";
}

}  // namespace

// Per family: an overview of the ratios, then one table per shape (times and ratios at 1 and 2
// threads), the 1 -> 2 thread speedups and the reference's single run.
std::string SummaryReporter::render() const {
  std::ostringstream out;
  auto ratio = [](double a, double b) { return a > 0 && b > 0 ? fmt(a / b, "%.2f") : "-"; };
  for (const std::string& family : families_) {
    if (is_ops_family(family)) continue;
    const std::vector<std::string>& names = cases_.at(family);
    out << "### " << family << "\n\n";
    const auto noise = worst_wall_per_cpu_.find(family);
    if (noise != worst_wall_per_cpu_.end()) {
      out << "Noise check: the largest wall / CPU time of the benchmark thread in these runs is "
          << fmt(noise->second, "%.2f") << " (1.00: never descheduled by other processes).\n\n";
    }
    if (family == "conv2d" || family == "dense") out << avxvnni_note();
    out << "Overview (ours / oneDNN; below 1: ours is faster):\n\n"
        << "| shape | / oneDNN e2e, 1 thread | / oneDNN e2e, 2 threads | / primitive, 1 thread "
           "| / primitive, 2 threads | ours 2 threads vs 1 |\n"
        << "|---|---|---|---|---|---|\n";
    for (const std::string& name : names) {
      const double o1 = time(family, name, "ours", 1), o2 = time(family, name, "ours", 2);
      if (o1 < 0 && o2 < 0) continue;
      out << "| " << name << (inexact(family, name).empty() ? "" : " (oneDNN inexact on this CPU)")
          << " | " << ratio(o1, time(family, name, "onednn_e2e", 1)) << " | "
          << ratio(o2, time(family, name, "onednn_e2e", 2)) << " | "
          << ratio(o1, time(family, name, "onednn_prim", 1)) << " | "
          << ratio(o2, time(family, name, "onednn_prim", 2)) << " | "
          << (o1 > 0 && o2 > 0 ? fmt(o1 / o2, "%.2fx") : "-") << " |\n";
    }
    out << "\n";
    for (const std::string& name : names) {
      out << "#### " << family << " " << name << "\n\n"
          << "| threads | data precision | ours | oneDNN end to end | oneDNN primitive "
             "| ours / oneDNN e2e | ours / oneDNN primitive | ours / oneDNN exact e2e |\n"
          << "|---|---|---|---|---|---|---|---|\n";
      for (int threads : {1, 2}) {
        // Ours at precision 8 and 7 (AVX2: the int16 kernels, vpmaddubsw); oneDNN's times
        // do not depend on it. "Exact": oneDNN's job with restricted weights, where it is exact.
        for (const char* impl : {"ours", "ours_p7"}) {
          const double ours = time(family, name, impl, threads);
          const double e2e = time(family, name, "onednn_e2e", threads);
          const double prim = time(family, name, "onednn_prim", threads);
          const double exact = time(family, name, "onednn_exact_e2e", threads);
          if (ours < 0 && e2e < 0 && prim < 0) continue;
          out << "| " << threads << " | " << (impl[4] == 0 ? "8" : "7") << " | "
              << fmt_time(ours) << " | " << fmt_time(e2e) << " | " << fmt_time(prim) << " | "
              << ratio(ours, e2e) << " | " << ratio(ours, prim) << " | " << ratio(ours, exact)
              << " |\n";
        }
      }
      out << "\n" << render_inexact(family, name);
      const double e1 = time(family, name, "onednn_e2e", 1),
                   e2 = time(family, name, "onednn_e2e", 2);
      const double o1 = time(family, name, "ours", 1), o2 = time(family, name, "ours", 2);
      out << "2 threads vs 1: ours " << (o1 > 0 && o2 > 0 ? fmt(o1 / o2, "%.2fx") : "-")
          << ", oneDNN end to end " << (e1 > 0 && e2 > 0 ? fmt(e1 / e2, "%.2fx") : "-") << ".";
      const double v1 = time(family, name, "ours_avxvnni", 1),
                   v2 = time(family, name, "ours_avxvnni", 2);
      if (v1 > 0 || v2 > 0) {
        out << " Ours on AVX-VNNI (forced, native): " << fmt_time(v1) << " on 1 thread, "
            << fmt_time(v2) << " on 2.";
      }
      const double ref = time(family, name, "reference", 1);
      if (ref >= 0) out << " Reference (naive oracle, one run, 1 thread): " << fmt_time(ref) << ".";
      const auto it = notes_.find(family + "/" + name + "/onednn_prim");
      if (it != notes_.end()) {
        const size_t cut = it->second.rfind("; ");  // after "inexact ...; " when it differed
        out << " oneDNN kernel: `"
            << (cut == std::string::npos ? it->second : it->second.substr(cut + 2)) << "`.";
      }
      out << "\n\n";
    }
  }
  return out.str();
}

std::string SummaryReporter::inexact(const std::string& family, const std::string& name) const {
  const auto it = notes_.find(family + "/" + name + "/onednn_e2e");
  return it != notes_.end() && it->second.rfind("inexact", 0) == 0 ? it->second : std::string();
}

// Where oneDNN differs from ours on this CPU: the first differing element, and the times of the
// restricted-weight job oneDNN computes exactly here (onednn_exact_*), when it ran.
std::string SummaryReporter::render_inexact(const std::string& family,
                                            const std::string& name) const {
  const std::string why = inexact(family, name);
  if (why.empty()) return "";
  std::ostringstream out;
  out << "**The oneDNN columns above are inexact on this CPU**: "
      << why.substr(why.find("first difference")) << ".";
  const auto exact = notes_.find(family + "/" + name + "/onednn_exact_e2e");
  if (exact != notes_.end() && exact->second.rfind("inexact", 0) != 0) {
    const std::string& label = exact->second;
    out << " Exact here with " << label.substr(label.find("; ") + 2) << ": oneDNN end to end "
        << fmt_time(time(family, name, "onednn_exact_e2e", 1)) << " / "
        << fmt_time(time(family, name, "onednn_exact_e2e", 2)) << ", primitive "
        << fmt_time(time(family, name, "onednn_exact_prim", 1)) << " / "
        << fmt_time(time(family, name, "onednn_exact_prim", 2)) << " (1 / 2 threads).";
  } else if (exact != notes_.end()) {
    out << " With restricted weights it is still inexact: " << exact->second << ".";
  }
  out << "\n\n";
  return out.str();
}

void SummaryReporter::Finalize() {
  ConsoleReporter::Finalize();
  const std::string text = render();
  const std::string ops_text = render_ops();
  std::cout << "\n== Summary (ratios below 1: ours is faster) ==\n\n"
            << text << ops_text << std::flush;
  if (!markdown_path_.empty()) {
    std::ofstream file(markdown_path_);
    file << text;
  }
  if (!ops_markdown_path_.empty()) {
    std::ofstream file(ops_markdown_path_);
    file << ops_text;
  }
}

}  // namespace cvm::bench
