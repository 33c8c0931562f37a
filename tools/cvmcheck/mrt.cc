// cvmcheck mrt: checks every MRT expansion identity (seed 004, docs/mrt.md) for N random cases
// or a time budget on the chosen backends and prints a table (identity, backend, cases,
// mismatches); exit status 1 on any mismatch. --write-golden DIR writes the MRT fixtures.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <random>

#include "backends/registry.h"
#include "commands.h"
#include "exec_options.h"
#include "harness/campaign.h"
#include "harness/mrt_check.h"
#include "harness/mrt_golden.h"

namespace cvm::cli {
namespace {

struct Row {
  std::string identity, backend, skipped, first_mismatch;
  int64_t cases = 0, mismatches = 0;
};

mrt::PlantedBug planted_named(const std::string& name) {
  if (name.empty() || name == "none") return mrt::PlantedBug::kNone;
  for (mrt::PlantedBug bug : mrt::all_planted_bugs()) {
    if (name == mrt::planted_bug_name(bug)) return bug;
  }
  throw std::invalid_argument("unknown planted bug '" + name + "'");
}

}  // namespace

Action add_mrt_command(CLI::App& app) {
  struct Options {
    int64_t cases = 200;
    double seconds = 0;
    std::string backend = "all", identity, planted, golden_out;
    uint64_t seed = 0;
    int golden_seeds = 2;
    ExecCli exec;
  };
  auto o = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "mrt", "Check the MRT quantization expansions (seed 004) against their direct formulas");
  sub->add_option("--cases", o->cases, "Random cases per identity (default 200)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000000}));
  sub->add_option("--seconds", o->seconds,
                  "Time budget in seconds, shared evenly by the identities (overrides --cases)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--backend", o->backend,
                  "Backend, or 'all' (default all); exec:COMMAND runs an external worker");
  add_exec_options(sub, o->exec);
  sub->add_option("--identity", o->identity, "Only identities whose name contains this text");
  sub->add_option("--seed", o->seed, "Seed (default: random, printed; the same seed replays)");
  sub->add_option("--planted", o->planted,
                  "Run a wrong expansion to see the check fail (conv2d_drop_zp_product, ...)");
  sub->add_option("--write-golden", o->golden_out,
                  "Write the MRT golden fixtures into this new directory instead of checking");
  sub->add_option("--golden-seeds", o->golden_seeds, "Seeds per identity in the fixtures (2)")
      ->check(CLI::Range(1, 100));
  return [o] {
    if (!o->golden_out.empty()) {
      mrt::MrtGoldenOptions options;
      options.out = o->golden_out;
      options.seeds_per_identity = o->golden_seeds;
      const mrt::MrtGoldenSummary s = mrt::generate_mrt_golden(registry(), options);
      std::cout << "wrote " << s.cases << " step cases of " << s.instances << " instances of "
                << s.identities << " identities (" << s.files << " files, " << s.bytes
                << " bytes) into " << options.out << "\n";
      return kExitOk;
    }
    const mrt::PlantedBug bug = planted_named(o->planted);
    if (o->backend != "all") resolve_backend(registry(), o->backend, exec_settings(o->exec));
    std::vector<const Backend*> backends;
    for (const Backend& b : registry().backends()) {
      if (o->backend == "all" || o->backend == b.name) backends.push_back(&b);
    }
    if (backends.empty()) {
      std::cerr << "cvmcheck: unknown backend '" << o->backend << "'\n";
      return kExitUsage;
    }
    const uint64_t seed = o->seed != 0 ? o->seed : std::random_device{}();
    std::vector<mrt::Scheme> schemes;
    for (const mrt::Scheme& s : mrt::all_schemes()) {
      if (mrt::scheme_name(s).find(o->identity) != std::string::npos) schemes.push_back(s);
    }
    const double budget = o->seconds > 0 ? o->seconds / std::max<size_t>(1, schemes.size()) : 0;
    std::vector<Row> rows;
    for (const mrt::Scheme& scheme : schemes) {
      const std::string identity = mrt::scheme_name(scheme);
      const uint64_t base = mrt::identity_seed(seed, identity);
      const size_t first = rows.size();
      for (const Backend* b : backends) {
        rows.push_back({identity, b->name, mrt::skip_reason(*b, scheme), ""});
      }
      const auto start = std::chrono::steady_clock::now();
      for (int64_t k = 0;; ++k) {
        if (budget > 0) {
          const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
          if (spent.count() >= budget) break;
        } else if (k >= o->cases) {
          break;
        }
        const int size = static_cast<int>(k % 101);
        const mrt::IdentityCase c =
            mrt::identity_case(scheme)(rc::Random(case_seed(base, static_cast<uint64_t>(k))),
                                       size).value();
        for (size_t r = first; r < rows.size(); ++r) {
          Row& row = rows[r];
          if (!row.skipped.empty()) continue;
          ++row.cases;
          const auto mismatch = mrt::check_identity(registry(), c, row.backend, bug);
          if (!mismatch) continue;
          ++row.mismatches;
          if (row.first_mismatch.empty()) {
            row.first_mismatch = "case " + std::to_string(k) + ": " + *mismatch;
          }
        }
      }
    }
    bool ok = true;
    std::cout << "MRT identities, seed " << seed
              << (bug == mrt::PlantedBug::kNone ? "" : ", planted bug " + o->planted) << "\n";
    std::cout << std::left << std::setw(28) << "identity" << std::setw(12) << "backend"
              << std::right << std::setw(9) << "cases" << std::setw(12) << "mismatches"
              << "\n";
    for (const Row& row : rows) {
      std::cout << std::left << std::setw(28) << row.identity << std::setw(12) << row.backend
                << std::right << std::setw(9) << row.cases << std::setw(12) << row.mismatches;
      if (!row.skipped.empty()) std::cout << "   skipped: " << row.skipped;
      std::cout << "\n";
      ok = ok && row.mismatches == 0;
    }
    for (const Row& row : rows) {
      if (!row.first_mismatch.empty()) {
        std::cout << "MISMATCH " << row.identity << " on " << row.backend << ", "
                  << row.first_mismatch << "\n";
      }
    }
    return ok ? kExitOk : kExitMismatch;
  };
}

}  // namespace cvm::cli
