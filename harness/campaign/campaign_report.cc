// The campaign's reports (campaign_report.h): what the table, the JSON and the JUnit XML say
// about a CampaignResult.
#include "harness/campaign/campaign_report.h"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/campaign/campaign_paths.h"
#include "harness/campaign/campaign_trailer.h"
#include "harness/campaign/expected_groups.h"
#include "harness/engine/call_descriptor.h"
#include "harness/engine/screen_grid.h"
#include "harness/workers/exec_backend.h"

namespace cvm {

namespace {

// "1.2 s"
std::string fixed_seconds(double seconds) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << seconds << " s";
  return out.str();
}

// One row per operator x backend, every count: `--table full`.
void full_rows(std::ostream& out, const CampaignResult& result) {
  const int name_width = 22, backend_width = 22;
  out << std::left << std::setw(name_width) << "operator" << std::setw(backend_width) << "backend"
      << std::right << std::setw(9) << "cases" << std::setw(9) << "ok" << std::setw(9) << "logic"
      << std::setw(9) << "runtime" << std::setw(10) << "mismatch" << std::setw(9) << "skipped"
      << "\n";
  for (const auto& [op, row] : result.table) {
    for (const std::string& backend : result.backends) {
      const CampaignCell& c = row.at(backend);
      out << std::left << std::setw(name_width) << op << std::setw(backend_width) << backend
          << std::right << std::setw(9) << c.cases << std::setw(9) << c.ok << std::setw(9)
          << c.logic_error << std::setw(9) << c.runtime_error << std::setw(10) << c.mismatches
          << std::setw(9) << c.skipped << "\n";
    }
  }
}

// A cell of the screen grid: "ok", "skip", or "xN" unexpected and "eN" expected mismatches
// (an expected-failure entry selects the call), apart so a known gap does not read as a bug.
std::string screen_cell(const CampaignCell& c) {
  if (c.cases == 0) return "skip";
  if (c.mismatches == 0) return "ok";
  const int64_t expected = std::min(c.expected, c.mismatches);
  const int64_t unexpected = c.mismatches - expected;
  std::string text = unexpected > 0 ? "x" + std::to_string(unexpected) : "";
  if (expected > 0) text += (text.empty() ? "e" : "+e") + std::to_string(expected);
  return text;
}

// Whether an operator's row says something a reader of a night with known differences needs:
// an unexpected mismatch, or no call of the operator at all. Skips are not: a backend without
// the operator skips it every night, and one that declares it but skipped every call has its own
// line ("nothing compared for backend ... on ...").
bool row_needs_reading(const CampaignResult& result,
                       const std::map<std::string, CampaignCell>& row) {
  if (row.at("reference").cases == 0) return true;
  for (const std::string& backend : result.backends) {
    const CampaignCell& c = row.at(backend);
    if (c.mismatches > c.expected) return true;
  }
  return false;
}

// The screen's columns: one per backend, or, where that would overflow the screen, one per
// base backend with its variants folded in (a name that extends another listed one by "@..."
// or "/...": cuda-host@warp into cuda-host), named "base+N". Each column: the backends' indices.
struct ScreenColumns {
  std::vector<std::string> names;
  std::vector<std::vector<size_t>> members;
};

constexpr size_t kScreenColumns = 12;  // what fits 100 columns (harness/engine/screen_grid.h)

ScreenColumns screen_columns(const std::vector<std::string>& backends) {
  ScreenColumns c;
  std::map<std::string, size_t> column_of;
  for (size_t k = 0; k < backends.size(); ++k) {
    std::string base = backends[k];
    if (backends.size() > kScreenColumns) {
      for (const std::string& other : backends) {
        const bool extends = other.size() < backends[k].size() &&
                             backends[k].compare(0, other.size(), other) == 0 &&
                             (backends[k][other.size()] == '@' || backends[k][other.size()] == '/');
        if (extends && other.size() < base.size()) base = other;
      }
    }
    const auto [it, added] = column_of.emplace(base, c.names.size());
    if (added) {
      c.names.push_back(base);
      c.members.emplace_back();
    }
    c.members[it->second].push_back(k);
  }
  for (size_t j = 0; j < c.names.size(); ++j) {
    if (c.members[j].size() > 1) c.names[j] += "+" + std::to_string(c.members[j].size() - 1);
  }
  return c;
}

// The cells of the backends of one column, summed.
CampaignCell column_cell(const CampaignResult& result,
                         const std::map<std::string, CampaignCell>& row,
                         const std::vector<size_t>& members) {
  CampaignCell sum;
  for (size_t k : members) {
    const CampaignCell& c = row.at(result.backends[k]);
    sum.cases += c.cases;
    sum.mismatches += c.mismatches;
    sum.expected += c.expected;
  }
  return sum;
}

// One row per operator, one numbered column per backend (or base backend), and a last row of
// operators passed per column: a screen, not a listing (harness/engine/screen_grid.h). With known
// differences (`fold`), the operators with nothing unexpected fold into one line: their expected
// failures are counted by rule id below, and a night of many known differences stays on one
// screen.
void screen_grid(std::ostream& out, const CampaignResult& result, bool fold) {
  const ScreenColumns columns = screen_columns(result.backends);
  ScreenGrid grid{"operator", "calls", columns.names, {}, {}, "operators ok"};
  std::vector<int64_t> passed(columns.names.size(), 0), compared(columns.names.size(), 0);
  int64_t folded = 0, folded_expected = 0;
  for (const auto& [op, row] : result.table) {
    ScreenGridRow line{op, row.at("reference").cases, {}};
    bool any_expected = false;
    for (size_t k = 0; k < columns.names.size(); ++k) {
      const CampaignCell c = column_cell(result, row, columns.members[k]);
      line.cells.push_back(screen_cell(c));
      compared[k] += c.cases > 0 ? 1 : 0;
      passed[k] += c.cases > 0 && c.mismatches == 0 ? 1 : 0;
      any_expected = any_expected || c.expected > 0;
    }
    if (fold && !row_needs_reading(result, row)) {
      ++folded;
      folded_expected += any_expected ? 1 : 0;
      continue;
    }
    grid.rows.push_back(std::move(line));
  }
  for (size_t k = 0; k < columns.names.size(); ++k) {
    grid.footer.push_back(std::to_string(passed[k]) + "/" + std::to_string(compared[k]));
  }
  out << render_screen_grid(grid);
  if (columns.names.size() < result.backends.size()) {
    out << "each column +N: a backend and its N variants (--table full: one row each)\n";
  }
  if (folded > 0) {
    out << folded << (grid.rows.empty() ? "" : " more") << (folded == 1 ? " operator" : " operators")
        << " with nothing unexpected (" << folded_expected
        << " with known differences only; --table full lists them)\n";
  }
}

// The first "__REPRO: cvmcheck run DIR ..." line of a finding's report.
std::string replay_line(const CampaignFinding& f) {
  const size_t at = f.summary.find("__REPRO: cvmcheck run ");
  if (at == std::string::npos) return "";
  const size_t end = f.summary.find('\n', at);
  return f.summary.substr(at + 9, end == std::string::npos ? std::string::npos : end - at - 9);
}

// "calls N in S s (R calls/s), backend runs ..., skipped ..." and "mismatching calls ...".
void run_lines(std::ostream& out, const CampaignResult& result) {
  CampaignCell totals;
  for (const auto& [op, row] : result.table) {
    for (const std::string& backend : result.backends) {
      const CampaignCell& c = row.at(backend);
      totals.cases += c.cases;
      totals.skipped += c.skipped;
    }
  }
  out << "calls " << result.calls << " in " << std::fixed << std::setprecision(1)
      << result.seconds << " s (" << std::setprecision(0)
      << (result.seconds > 0 ? static_cast<double>(result.calls) / result.seconds : 0.0)
      << " calls/s), backend runs " << totals.cases << ", skipped " << totals.skipped
      << "\nmismatching calls " << result.mismatches
      << (result.expected_failures > 0
              ? " (+" + std::to_string(result.expected_failures) + " expected failures)"
              : std::string())
      << ", findings " << result.findings.size()
      << ", repros " << result.repros_written << " (" << result.repro_bytes << " bytes"
      << (result.repros_written > 0 ? ", shrunk in " + fixed_seconds(result.shrink_seconds) : "")
      << "), seed " << result.seed;
  if (result.shard_count > 1) {
    out << ", shard " << result.shard_index + 1 << "/" << result.shard_count;
  }
  out << "\n";
}

// An unexpected finding: one line with its replay command (screen), or with its repro, shrink
// sizes and call (full).
void finding_lines(std::ostream& out, const CampaignFinding& f, TableStyle style) {
  const std::string calls = std::to_string(f.calls) + (f.calls == 1 ? " call" : " calls");
  if (style == TableStyle::kScreen) {
    const std::string replay = replay_line(f);
    out << "finding " << f.key << ": " << calls
        << (f.repro_dir.empty() ? ", no repro written (repro bound reached)" : "")
        << (replay.empty() ? "" : "\n  " + replay) << "\n";
    return;
  }
  out << "finding " << f.key << ": " << calls
      << (f.repro_dir.empty()
              ? ", no repro written (repro bound reached)"
              : ", repro " + f.repro_dir + " (" + std::to_string(f.shrunk_elements) +
                    " input elements, drawn with " + std::to_string(f.original_elements) + ")")
      << (f.duplicate_repros > 0
              ? ", " + std::to_string(f.duplicate_repros) + " more shrunk to a saved call"
              : std::string())
      << "\n";
  // The exact call (the repro's, shrunk), replayable with `cvmcheck run --call '...'`.
  out << "  call: "
      << (f.descriptor.empty() ? "(no descriptor: " + f.descriptor_note + ")"
          : f.descriptor.size() > kTableDescriptorChars
              ? "(" + std::to_string(f.descriptor.size()) +
                    " characters: in campaign.json and the repro's __REPRO --call line)"
              : "'" + f.descriptor + "'")
      << "\n";
}

}  // namespace

std::string campaign_table(const CampaignResult& result, TableStyle style) {
  std::ostringstream out;
  if (style == TableStyle::kFull) {
    full_rows(out, result);
  } else {
    const bool known_differences = result.expected_failures > 0;
    screen_grid(out, result, known_differences);
  }
  run_lines(out, result);
  out << paths_summary(result.paths, style == TableStyle::kFull);
  if (style == TableStyle::kScreen) {
    for (const CampaignFinding& f : result.findings) {
      if (f.expected_by.empty()) finding_lines(out, f, style);
    }
    out << expected_group_lines(group_expected_by_rule(result.findings));
  } else {
    for (const CampaignFinding& f : result.findings) {
      if (f.expected_by.empty()) {
        finding_lines(out, f, style);
      } else {
        out << "expected failure " << f.key << ": " << f.calls
            << (f.calls == 1 ? " call" : " calls") << " (" << f.expected_by << ")\n";
      }
    }
  }
  trailer_lines(out, result, style);
  return out.str();
}

std::string campaign_json(const CampaignResult& result) {
  nlohmann::json json;
  json["seed"] = result.seed;
  json["shard"] = std::to_string(result.shard_index + 1) + "/" + std::to_string(result.shard_count);
  json["seconds"] = result.seconds;
  json["calls"] = result.calls;
  json["mismatching_calls"] = result.mismatches;
  json["expected_failures"] = result.expected_failures;
  json["unexpected_passes"] = result.unexpected_passes;
  json["stale_expectations"] = result.stale_expectations;
  json["repros_written"] = result.repros_written;
  json["shrink_seconds"] = result.shrink_seconds;
  json["repro_bytes"] = result.repro_bytes;
  json["nothing_compared"] = result.nothing_compared;
  json["declared_not_compared"] = result.declared_not_compared;
  json["not_applicable"] = result.not_applicable;
  json["paths"] = paths_json(result.paths);
  json["generator_failures"] = result.generator_failures;
  json["backends"] = result.backends;
  json["skipped_backends"] = result.skip_reasons;
  json["precision_not_compared"] = result.precision_not_compared;
  json["phase_seconds"] = result.phase_seconds;
  json["planned_share"] = result.planned_share;
  json["aimed_calls"] = result.aimed_calls;
  json["page_faults"] = {{"minor", result.minor_faults}, {"major", result.major_faults}};
  json["cpu_seconds"] = result.cpu_seconds;
  json["run"] = {{"commit", result.commit},
                 {"cpu_features", result.cpu_features},
                 {"started", result.started},
                 {"stopped", result.stopped},
                 {"seconds_requested", result.seconds_requested},
                 {"max_cases", result.max_cases},
                 {"resumed_from", result.resumed_from}};
  json["resume_state"] = result.resume_state;
  for (const auto& [op, row] : result.table) {
    for (const auto& [backend, c] : row) {
      json["table"][op][backend] = {{"cases", c.cases},           {"ok", c.ok},
                                    {"logic_error", c.logic_error}, {"runtime_error", c.runtime_error},
                                    {"mismatches", c.mismatches}, {"skipped", c.skipped},
                                    {"expected", c.expected}};
    }
    const auto it = result.op_seconds.find(op);
    json["op_seconds"][op] = it == result.op_seconds.end() ? 0.0 : it->second;
  }
  json["findings"] = nlohmann::json::array();
  for (const CampaignFinding& f : result.findings) {
    json["findings"].push_back({{"op", f.op},
                                {"backend", f.backend},
                                {"rule", f.rule},
                                {"case_seed", f.case_seed},
                                {"signature", f.key},
                                {"calls", f.calls},
                                {"repro_dir", f.repro_dir},
                                {"repro_dirs", f.repro_dirs},
                                {"drawn_input_elements", f.original_elements},
                                {"repro_input_elements", f.shrunk_elements},
                                {"expected_by", f.expected_by},
                                {"first_index", f.first_index},
                                {"descriptor", f.descriptor},
                                {"descriptor_note", f.descriptor_note},
                                {"duplicate_repros", f.duplicate_repros},
                                {"report", f.summary}});
  }
  return json.dump(2) + "\n";
}

namespace {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace

std::string campaign_junit(const CampaignResult& result) {
  int64_t tests = 0, failures = 0, skipped = 0;
  std::ostringstream cases;
  for (const auto& [op, row] : result.table) {
    for (const std::string& backend : result.backends) {
      const CampaignCell& c = row.at(backend);
      ++tests;
      cases << "  <testcase classname=\"cvmcheck." << xml_escape(op) << "\" name=\""
            << xml_escape(backend) << "\">";
      if (c.mismatches > 0) {
        ++failures;
        std::string details;
        for (const CampaignFinding& f : result.findings) {
          if (f.op == op && f.backend == backend) details += f.summary + "\n";
        }
        cases << "<failure message=\"" << c.mismatches << " mismatching calls of " << c.cases
              << "\">" << xml_escape(details) << "</failure>";
      } else if (c.cases == 0) {
        ++skipped;
        const auto reason = result.skip_reasons.find(backend);
        cases << "<skipped message=\""
              << xml_escape(reason != result.skip_reasons.end() ? reason->second
                                                               : "not implemented or no calls")
              << "\"/>";
      }
      cases << "</testcase>\n";
    }
  }
  for (const auto& [backend, why] : result.nothing_compared) {
    ++tests;
    ++failures;
    cases << "  <testcase classname=\"cvmcheck.nothing_compared\" name=\"" << xml_escape(backend)
          << "\"><failure message=\"nothing compared: " << xml_escape(why) << "\"/></testcase>\n";
  }
  for (const auto& [backend, ops] : result.declared_not_compared) {
    ++tests;
    ++failures;
    cases << "  <testcase classname=\"cvmcheck.declared_not_compared\" name=\""
          << xml_escape(backend) << "\"><failure message=\"declared but skipped on every call: "
          << xml_escape(join_names(ops)) << "\"/></testcase>\n";
  }
  if (result.stopped.rfind("signal:", 0) == 0) {
    // A stopped run is not a failure by itself, but a reader of the CI's test page must see
    // that it checked less than it was asked to.
    ++tests;
    ++skipped;
    cases << "  <testcase classname=\"cvmcheck.run\" name=\"stopped\"><skipped message=\"stopped by "
          << xml_escape(result.stopped.substr(7)) << " after " << result.seconds
          << " s\"/></testcase>\n";
  }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuite name=\"cvmcheck-campaign\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" skipped=\"" << skipped << "\" time=\"" << result.seconds << "\">\n"
      << cases.str() << "</testsuite>\n";
  return out.str();
}

}  // namespace cvm
