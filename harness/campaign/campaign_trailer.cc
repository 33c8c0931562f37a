// The campaign's trailer lines (campaign_trailer.h).
#include "harness/campaign/campaign_trailer.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/worker_client/exec_backend.h"

namespace cvm {

namespace {

// Lines of the form "FILE:LINE SELECTOR ... [(matched no case of BACKEND)]" (stale entries,
// unexpected passes) as one line per list file and backend: "PREFIX N entries of FILE WHAT
// (lines 3, 9)", the first 12 line numbers of each: a night's lists can have dozens.
void lines_by_list(std::ostream& out, const std::vector<std::string>& lines,
                   const std::string& prefix, const std::string& what) {
  std::map<std::string, std::set<int64_t>> by_list;
  for (std::string line : lines) {
    if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
    const std::string source = line.substr(0, line.find(' '));
    const size_t colon = source.rfind(':');
    const size_t of = line.rfind(" of ");
    const bool for_one = line.back() == ')' && of != std::string::npos && of > line.rfind('(');
    const std::string backend = for_one ? line.substr(of, line.size() - 1 - of) : "";
    int64_t number = 0;
    if (colon != std::string::npos) {
      number = std::strtoll(source.c_str() + colon + 1, nullptr, 10);
    }
    by_list[source.substr(0, colon) + " " + what + backend].insert(number);
  }
  for (const auto& [list_what, numbers] : by_list) {
    std::string joined;
    size_t k = 0;
    for (const int64_t n : numbers) {
      if (k++ == 12) {
        joined += ", ...";
        break;
      }
      joined += (joined.empty() ? "" : ", ") + std::to_string(n);
    }
    out << prefix << numbers.size() << (numbers.size() == 1 ? " entry of " : " entries of ")
        << list_what << (numbers.size() == 1 ? " (line " : " (lines ") << joined << ")\n";
  }
}

constexpr size_t kScreenWidth = 100;
constexpr size_t kListLines = 3;      // lines of names under one heading, at most
constexpr size_t kTrailerLines = 10;  // lines of all the not-compared headings together, at most

// HEADING then the items, comma-separated and wrapped at kScreenWidth under a two-space indent;
// past `max_lines` lines, "... and N more (WHERE)".
void folded_list(std::ostream& out, const std::string& heading,
                 const std::vector<std::string>& items, const std::string& where,
                 size_t max_lines) {
  std::string line = heading;
  size_t lines = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    const std::string item = items[k] + (k + 1 < items.size() ? "," : "");
    if (line.size() + 1 + item.size() > kScreenWidth && line.size() > 2) {
      if (++lines == max_lines) {
        out << line << "\n  ... and " << items.size() - k << " more (" << where << ")\n";
        return;
      }
      out << line << "\n";
      line = " ";
    }
    line += " " + item;
  }
  out << line << "\n";
}

// "HEAD: TAIL" on one line where it fits the screen, else TAIL indented on the next.
void entry_line(std::ostream& out, const std::string& head, const std::string& tail) {
  out << head << (head.size() + 2 + tail.size() <= kScreenWidth ? ": " : ":\n  ") << tail << "\n";
}

// Operators named where few, counted where many.
std::string operators_text(const std::set<std::string>& ops) {
  if (ops.size() <= 4) return join_names(ops);
  return std::to_string(ops.size()) + " operators (--table full lists them)";
}

// Backends that compared nothing, a line each when few, else grouped by why; likewise backends
// that skipped every call of operators they declare.
// The folded lists share kTrailerLines: each gets its share, "... and N more" included, so that
// a machine with more backends (a GPU's) makes more names fold, not more lines.
void not_compared_screen_lines(std::ostream& out, const CampaignResult& result) {
  const auto& declared = result.declared_not_compared;
  std::map<std::string, std::vector<std::string>> by_why;
  if (result.nothing_compared.size() > kListLines) {
    for (const auto& [backend, why] : result.nothing_compared) by_why[why].push_back(backend);
  }
  const size_t lists = by_why.size() + (declared.size() > kListLines ? 1 : 0);
  const size_t share = lists == 0 ? kListLines
                                  : std::clamp<size_t>(kTrailerLines / lists, 2, kListLines + 1) - 1;
  if (result.nothing_compared.size() <= kListLines) {
    for (const auto& [backend, why] : result.nothing_compared) {
      entry_line(out, "nothing compared for backend " + backend, why);
    }
  }
  for (const auto& [why, backends] : by_why) {
    folded_list(out, "nothing compared, " + why + ":", backends, "campaign.json", share);
  }
  if (declared.size() <= kListLines) {
    for (const auto& [backend, ops] : declared) {
      entry_line(out, "nothing compared for backend " + backend + " on " + operators_text(ops),
                 "it declares them but skipped every call");
    }
    return;
  }
  std::vector<std::string> items;
  for (const auto& [backend, ops] : declared) {
    items.push_back(backend + " on " +
                    (ops.size() <= 2 ? join_names(ops) : std::to_string(ops.size()) + " ops"));
  }
  folded_list(out, "nothing compared for backends that skipped every call of operators they "
              "declare:", items, "--table full", share);
}

}  // namespace

// What the run could not check or judge: stale entries, backends that compared nothing.
void trailer_lines(std::ostream& out, const CampaignResult& result, TableStyle style) {
  if (style == TableStyle::kScreen) {
    lines_by_list(out, result.unexpected_passes, "unexpected pass: ",
                  "selected only passing calls (none failed)");
    lines_by_list(out, result.stale_expectations, "stale: ", "selected no call");
  } else {
    for (const std::string& line : result.unexpected_passes) {
      out << "unexpected pass: " << line << "\n";
    }
    for (const std::string& line : result.stale_expectations) out << line << "\n";
  }
  if (style == TableStyle::kScreen) {
    not_compared_screen_lines(out, result);
  } else {
    for (const auto& [backend, why] : result.nothing_compared) {
      out << "nothing compared for backend " << backend << ": " << why << "\n";
    }
    for (const auto& [backend, ops] : result.declared_not_compared) {
      out << "nothing compared for backend " << backend << " on " << join_names(ops)
          << ": it declares them but skipped every call\n";
    }
  }
  for (const auto& [backend, reason] : result.skip_reasons) {
    out << "skipped backend " << backend << ": " << reason << "\n";
  }
  if (!result.not_applicable.empty()) {
    std::set<std::string> names;
    for (const auto& [backend, why] : result.not_applicable) names.insert(backend);
    out << "not applicable (implement none of the selected operators): " << join_names(names)
        << "\n";
  }
  for (const std::string& backend : result.precision_not_compared) {
    out << "precision not compared: backend " << backend << kPrecisionNotCompared << "\n";
  }
  if (result.generator_failures > 0) {
    out << "generator draws abandoned: " << result.generator_failures << "\n";
  }
}


}  // namespace cvm
