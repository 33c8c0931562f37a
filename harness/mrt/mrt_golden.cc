#include "harness/mrt/mrt_golden.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cvmcheck/case.h"
#include "cvmcheck/errors.h"
#include "cvmcheck/npy.h"
#include "cvmcheck/case_seed.h"
#include "harness/gen/generators.h"
#include "harness/golden/fixture_files.h"
#include "harness/golden/golden.h"
#include "harness/mrt/mrt_check.h"

namespace cvm::mrt {
namespace fs = std::filesystem;

namespace {

std::string two_digits(size_t n) {
  std::ostringstream out;
  out << std::setw(2) << std::setfill('0') << n;
  return out.str();
}

}  // namespace

uint64_t identity_seed(uint64_t seed, const std::string& identity) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a: stable across standard libraries
  for (unsigned char ch : identity) h = (h ^ ch) * 1099511628211ULL;
  return seed ^ h;
}

MrtGoldenSummary generate_mrt_golden(const Registry& registry, const MrtGoldenOptions& options) {
  // Values drawn per element through RapidCheck, not by the fast fill (value_fill.h): the
  // published fixtures' bytes and names depend on that draw, and must stay reproducible.
  const gen::ScopedPerElementValues frozen_values;
  const fs::path root(options.out);
  make_empty_output_dir(options.out);
  MrtGoldenSummary summary;
  nlohmann::json cases = nlohmann::json::array();
  nlohmann::json finals = nlohmann::json::array();
  for (const Scheme& scheme : all_schemes()) {
    const std::string identity = scheme_name(scheme);
    const uint64_t base = identity_seed(options.seed, identity);
    ++summary.identities;
    for (int k = 0; k < options.seeds_per_identity; ++k) {
      const int size = options.size * (k + 1) / options.seeds_per_identity;
      const IdentityCase c =
          identity_case(scheme)(rc::Random(case_seed(base, static_cast<uint64_t>(k))), size)
              .value();
      std::vector<ExpansionStep> steps;
      const Tensor final_output = expand(c, ExpansionRun{registry, kReferenceBackend, &steps});
      const auto mismatch = check_identity(registry, c, kReferenceBackend);
      check(!mismatch, identity, " seed ", k, ": ", mismatch.value_or(""));
      const std::string instance = identity + "/seed_" + std::to_string(k);
      for (size_t j = 0; j < steps.size(); ++j) {
        const ExpansionStep& step = steps[j];
        const std::string name = "seed_" + std::to_string(k) + "/step_" + two_digits(j) + "_" +
                                 step.op;
        const fs::path dir = root / identity / name;
        Outcome expect;
        expect.outputs = {step.output};
        write_case(dir.string(), step.op, step.attrs, step.inputs, expect,
                   "MRT " + identity + " seed " + std::to_string(k) + ", step " +
                       std::to_string(j + 1) + " of " + std::to_string(steps.size()) + ": " +
                       step.label);
        cases.push_back({{"op", step.op},
                         {"name", identity + "/" + name},
                         {"dir", identity + "/" + name},
                         {"outcome", "ok"},
                         {"files", hash_folder(dir.string(), summary.files, summary.bytes)}});
        ++summary.cases;
      }
      // The expected final output (the direct formula, equal to the last step's output).
      const fs::path final_path = root / instance / "final_output.npy";
      write_npy(final_path.string(), final_output);
      const std::string bytes = fixture_bytes(final_path.string());
      ++summary.files;
      summary.bytes += static_cast<int64_t>(bytes.size());
      finals.push_back({{"identity", identity},
                        {"file", instance + "/final_output.npy"},
                        {"sha256", sha256_hex(bytes)},
                        {"last_step", identity + "/seed_" + std::to_string(k) + "/step_" +
                                          two_digits(steps.size() - 1) + "_" +
                                          steps.back().op},
                        {"case", describe(c)}});
      ++summary.instances;
    }
  }
  nlohmann::json manifest;
  manifest["format"] = kGoldenFormat;
  manifest["format_version"] = kGoldenFormatVersion;
  manifest["contract_version"] = kContractVersion;
  manifest["generator"] = {{"command", "cvmcheck mrt --write-golden"},
                           {"seed", options.seed},
                           {"seeds_per_identity", options.seeds_per_identity},
                           {"size", options.size}};
  manifest["cases"] = cases;
  manifest["omitted"] = nlohmann::json::array();
  manifest["finals"] = finals;
  std::ofstream out(root / "MANIFEST.json");
  out << manifest.dump(1) << "\n";
  check(out.good(), "cannot write MANIFEST.json");
  return summary;
}

}  // namespace cvm::mrt
