#include "harness/mrt/mrt_run.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cvmcheck/errors.h"
#include "cvmcheck/case_seed.h"
#include "harness/report/screen_grid.h"
#include "harness/jobs/forked_jobs.h"
#include "harness/jobs/stop_signal.h"
#include "harness/mrt/mrt_check.h"
#include "harness/mrt/mrt_golden.h"

namespace cvm::mrt {

std::vector<const Backend*> selected_backends(const Registry& registry,
                                              const std::string& backend) {
  std::vector<const Backend*> backends;
  for (const Backend& b : registry.backends()) {
    if (backend == "all" || backend == b.name) backends.push_back(&b);
  }
  return backends;
}

std::vector<MrtRow> run_mrt(const Registry& registry, const MrtRunOptions& options) {
  check(options.job_count >= 1 && options.job_index >= 0 &&
            options.job_index < options.job_count,
        "mrt: job ", options.job_index, " of ", options.job_count);
  const std::vector<const Backend*> backends = selected_backends(registry, options.backend);
  const auto jobs = static_cast<uint64_t>(options.job_count);
  const auto job = static_cast<uint64_t>(options.job_index);
  std::vector<MrtRow> rows;
  for (const Scheme& scheme : options.schemes) {
    if (stop_signal() != 0) break;  // a graceful stop (stop_signal.h): the rows made so far
    const std::string identity = scheme_name(scheme);
    const uint64_t base = identity_seed(options.seed, identity);
    const size_t first = rows.size();
    for (const Backend* b : backends) {
      MrtRow row;
      row.identity = identity;
      row.backend = b->name;
      row.skipped = skip_reason(*b, scheme);
      rows.push_back(row);
    }
    const auto start = std::chrono::steady_clock::now();
    for (int64_t k = 0;; ++k) {
      if (options.seconds_per_identity > 0) {
        const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
        if (spent.count() >= options.seconds_per_identity) break;
      } else if (k >= options.cases) {
        break;
      }
      if (stop_signal() != 0) break;
      if (static_cast<uint64_t>(k) % jobs != job) continue;  // another job's case
      const int size = static_cast<int>(k % 101);
      const IdentityCase c =
          identity_case(scheme)(rc::Random(case_seed(base, static_cast<uint64_t>(k))), size)
              .value();
      for (size_t r = first; r < rows.size(); ++r) {
        MrtRow& row = rows[r];
        if (!row.skipped.empty()) continue;
        ++row.cases;
        const auto mismatch = check_identity(registry, c, row.backend, options.bug);
        if (!mismatch) continue;
        ++row.mismatches;
        if (row.first_mismatch.empty()) {
          row.first_mismatch = "case " + std::to_string(k) + ": " + *mismatch;
          row.first_mismatch_case = k;
        }
      }
    }
  }
  return rows;
}

std::vector<MrtRow> merge_mrt_jobs(const std::vector<std::vector<MrtRow>>& jobs) {
  check(!jobs.empty(), "no mrt jobs to merge");
  std::vector<MrtRow> merged = jobs[0];
  for (size_t j = 1; j < jobs.size(); ++j) {
    check(jobs[j].size() == merged.size(), "mrt job ", j + 1, " returned ", jobs[j].size(),
          " rows, job 1 ", merged.size());
    for (size_t r = 0; r < merged.size(); ++r) {
      MrtRow& into = merged[r];
      const MrtRow& row = jobs[j][r];
      check(row.identity == into.identity && row.backend == into.backend, "mrt job ", j + 1,
            " row ", r, " is ", row.identity, " on ", row.backend);
      into.cases += row.cases;
      into.mismatches += row.mismatches;
      if (row.first_mismatch_case >= 0 &&
          (into.first_mismatch_case < 0 || row.first_mismatch_case < into.first_mismatch_case)) {
        into.first_mismatch_case = row.first_mismatch_case;
        into.first_mismatch = row.first_mismatch;
      }
    }
  }
  return merged;
}

// A job's rows travel to the parent as JSON, field for field.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MrtRow, identity, backend, skipped, first_mismatch, cases,
                                   mismatches, first_mismatch_case)

std::vector<MrtRow> run_mrt_jobs(const Registry& registry, const MrtRunOptions& options, int jobs,
                                 const std::function<void(int)>& in_child) {
  ForkedJobsOptions fork;
  fork.what = "mrt";
  const std::vector<std::string> outputs = run_forked_jobs(
      jobs,
      [&](int k, const JobCounters&) {
        if (in_child) in_child(k);
        MrtRunOptions mine = options;
        mine.job_index = k;
        mine.job_count = jobs;
        const nlohmann::json out = run_mrt(registry, mine);
        return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      },
      fork);
  std::vector<std::vector<MrtRow>> parts;
  for (const std::string& text : outputs) {
    parts.push_back(nlohmann::json::parse(text).get<std::vector<MrtRow>>());
  }
  return merge_mrt_jobs(parts);
}

namespace {

// The rows as printed by `--table full`: one per identity x backend.
void full_rows(std::ostream& out, const std::vector<MrtRow>& rows) {
  out << std::left << std::setw(28) << "identity" << std::setw(12) << "backend" << std::right
      << std::setw(9) << "cases" << std::setw(12) << "mismatches"
      << "\n";
  for (const MrtRow& row : rows) {
    out << std::left << std::setw(28) << row.identity << std::setw(12) << row.backend
        << std::right << std::setw(9) << row.cases << std::setw(12) << row.mismatches;
    if (!row.skipped.empty()) out << "   skipped: " << row.skipped;
    out << "\n";
  }
}

// The operator family of an identity: its name up to "_layer" or "_channel".
std::string family_of(const std::string& identity) {
  const size_t at = std::min(identity.find("_layer"), identity.find("_channel"));
  return identity.substr(0, at);
}

// One family's cell for one backend: "skip" when no identity compared, "xN" mismatching cases,
// else "ok", or "ok K/N" when only K of its N identities compared.
std::string family_cell(int compared, int identities, int64_t mismatches) {
  if (compared == 0) return "skip";
  // Appended, not "x" + std::string: GCC 12 warns, falsely, on such temporaries (-Wrestrict).
  std::string cell = mismatches > 0 ? "x" : "ok";
  if (mismatches > 0) {
    cell += std::to_string(mismatches);
  } else if (compared < identities) {
    cell += ' ';
    cell += std::to_string(compared);
    cell += '/';
    cell += std::to_string(identities);
  }
  return cell;
}

// One row per operator family ("conv2d_* (8)") and one column per backend, so that the main
// job's output fits a screen with the campaign's table above it; the MISMATCH lines below name
// each identity and backend that differs, and the skipped backends' reasons follow once each.
void screen_rows(std::ostream& out, const std::vector<MrtRow>& rows) {
  struct Family {
    std::string name;
    std::map<std::string, int64_t> cases;  // identity -> its cases (the most of any backend)
    std::vector<int> identities, compared;
    std::vector<int64_t> mismatches;
  };
  std::vector<std::string> backends;
  std::vector<Family> families;
  std::map<std::string, std::string> skipped;
  for (const MrtRow& row : rows) {
    const size_t b = std::find(backends.begin(), backends.end(), row.backend) - backends.begin();
    if (b == backends.size()) backends.push_back(row.backend);
    if (families.empty() || families.back().name != family_of(row.identity)) {
      families.push_back({family_of(row.identity), {}, {}, {}, {}});
    }
    Family& f = families.back();
    f.identities.resize(backends.size());
    f.compared.resize(backends.size());
    f.mismatches.resize(backends.size());
    ++f.identities[b];
    f.compared[b] += row.skipped.empty() ? 1 : 0;
    f.mismatches[b] += row.mismatches;
    f.cases[row.identity] = std::max(f.cases[row.identity], row.cases);
    if (!row.skipped.empty()) skipped[row.backend] = row.skipped;
  }
  ScreenGrid grid{"identities", "cases", backends, {}, {}, ""};
  for (const Family& f : families) {
    ScreenGridRow line{f.name + "_* (" + std::to_string(f.cases.size()) + ")", 0, {}};
    for (const auto& [identity, cases] : f.cases) line.count += cases;
    for (size_t b = 0; b < backends.size(); ++b) {
      line.cells.push_back(family_cell(f.compared[b], f.identities[b], f.mismatches[b]));
    }
    grid.rows.push_back(std::move(line));
  }
  out << render_screen_grid(grid);
  for (const auto& [backend, why] : skipped) out << "skipped backend " << backend << ": " << why << "\n";
}

}  // namespace

std::string mrt_table(const std::vector<MrtRow>& rows, uint64_t seed, const std::string& planted,
                      bool full) {
  std::ostringstream out;
  out << "MRT identities, seed " << seed << (planted.empty() ? "" : ", planted bug " + planted)
      << "\n";
  if (full) {
    full_rows(out, rows);
  } else {
    screen_rows(out, rows);
  }
  for (const MrtRow& row : rows) {
    if (!row.first_mismatch.empty()) {
      out << "MISMATCH " << row.identity << " on " << row.backend << ", " << row.first_mismatch
          << "\n";
    }
  }
  return out.str();
}

}  // namespace cvm::mrt
