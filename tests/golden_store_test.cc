// golden verify and `cvmcheck repro` write the findings store (docs/nightly.md): a bug planted in
// a backend is a new finding under the campaign's signature, fixed by the next verify of the
// backend without it; a run that did not run the reference leaves the reference's findings
// alone; a fuzz input is recorded as a run of its one finding.
#include <gtest/gtest.h>


#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cvmcheck/case.h"
#include "harness/campaign/campaign.h"
#include "harness/findings/findings_store.h"
#include "harness/gen/fuzz_input.h"
#include "harness/golden/golden.h"
#include "harness/golden/golden_store.h"
#include "support/cli.h"
#include "support/paths.h"
#include "support/planted_registry.h"
#include "support/temp_dir.h"

namespace cvm {
namespace {

namespace fs = std::filesystem;

const char* const kPlanted = "planted-max-clamps-at-zero";

const PlantedBug& planted_bug() {
  for (const PlantedBug& bug : planted_bugs()) {
    if (bug.backend == kPlanted) return bug;
  }
  throw std::logic_error("no planted bug " + std::string(kPlanted));
}

std::string suite() { return (fs::path(CVMCHECK_SOURCE_DIR) / "golden").string(); }

class GoldenStoreTest : public testing::TempDirTest {
 protected:
  GoldenStoreTest() : TempDirTest("cvmcheck-golden-store") {}
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
};

// One golden verify of `backend` on `registry`, recorded in `store`.
StoreDelta verify_into(FindingsStore& store, const Registry& registry, const std::string& backend) {
  const std::vector<std::string> backends{backend};
  const std::vector<GoldenVerifyResult> results{verify_golden(registry, suite(), backend)};
  return store.record(golden_store_run(suite(), backends, results, StoreRun{}),
                      golden_store_findings(backends, results));
}

// The signatures a campaign of the planted backend on the bug's operator finds.
std::vector<std::string> campaign_signatures(const Registry& registry, const PlantedBug& bug) {
  CampaignOptions options;
  options.seconds = 600;  // bounded by max_cases
  options.max_cases = 150;
  options.ops = {bug.op};
  options.backends = {bug.backend};
  options.shrink_seconds = 0;
  options.max_repros = 0;
  options.seed = 1;
  std::vector<std::string> keys;
  for (const Finding& f : run_campaign(registry, options).findings) keys.push_back(f.key);
  return keys;
}

TEST_F(GoldenStoreTest, APlantedBugIsNewUnderTheCampaignsSignatureThenFixed) {
  const PlantedBug& bug = planted_bug();
  const std::unique_ptr<Registry> buggy = testing::registry_with(bug);
  FindingsStore store = FindingsStore::open(path("findings.sqlite"));
  // A finding of the reference, which a verify of another backend never runs.
  StoreRun campaign;
  campaign.ops = {bug.op};
  campaign.backends = {"reference", "optimized"};
  StoreFinding ref;
  ref.signature = bug.op + "|reference|expectation|valid|runtime_error";
  ref.op = bug.op;
  ref.backend = "reference";
  ref.calls = 1;
  store.record(campaign, {ref});

  const StoreDelta first = verify_into(store, *buggy, bug.backend);
  ASSERT_EQ(first.fresh.size(), 1u);
  const std::string signature = first.fresh.front();
  EXPECT_EQ(signature, bug.op + "|" + bug.backend + "|value|output 0");
  const std::vector<std::string> keys = campaign_signatures(*buggy, bug);
  EXPECT_NE(std::find(keys.begin(), keys.end(), signature), keys.end()) << signature;
  EXPECT_TRUE(first.fixed.empty());
  const StoredFinding found = *store.find(signature);
  EXPECT_EQ(found.status, "new");
  EXPECT_EQ(found.repro_dir.rfind(suite() + "/" + bug.op + "/", 0), 0u) << found.repro_dir;
  EXPECT_TRUE(fs::exists(fs::path(found.repro_dir) / "case.json"));
  EXPECT_EQ(found.descriptor.rfind("op=" + bug.op + " ", 0), 0u) << found.descriptor;
  const StoredRun run = store.runs().back();
  EXPECT_EQ(run.run.kind, "golden");
  EXPECT_EQ(run.run.source, suite());
  EXPECT_EQ(run.run.seed, 0u);
  EXPECT_EQ(run.run.backends, std::vector<std::string>{bug.backend});
  EXPECT_EQ(run.run.ops, std::vector<std::string>{bug.op});  // the rest were not implemented
  EXPECT_GT(run.run.calls, 0);

  // The same backend with the reference's kernel: the bug is fixed; the reference's is not.
  const std::unique_ptr<Registry> fixed = testing::registry_with(bug);
  fixed->find_backend(bug.backend)->kernels[bug.op] =
      fixed->find_backend("reference")->kernels.at(bug.op);
  const StoreDelta second = verify_into(store, *fixed, bug.backend);
  EXPECT_EQ(second.fixed, std::vector<std::string>{signature});
  EXPECT_EQ(store.find(signature)->status, "fixed");
  EXPECT_EQ(store.find(ref.signature)->status, "new");
}

// A case an --xfail entry lists is an expected finding, as in the campaign.
TEST_F(GoldenStoreTest, AListedCaseIsAnExpectedFinding) {
  const PlantedBug& bug = planted_bug();
  const std::unique_ptr<Registry> buggy = testing::registry_with(bug);
  const std::string list = path("known.txt");
  std::ofstream(list) << bug.op << "/*  planted: max clamps at zero\n";
  ExpectationSet expected;
  expected.by_backend[bug.backend] = ExpectedFailures::read(list);
  const std::vector<std::string> backends{bug.backend};
  const std::vector<GoldenVerifyResult> results{
      verify_golden(*buggy, suite(), bug.backend, expected)};
  const std::vector<StoreFinding> findings = golden_store_findings(backends, results);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].expected_by.find("planted"), std::string::npos) << findings[0].expected_by;
  FindingsStore store = FindingsStore::open(path("findings.sqlite"));
  const StoreDelta d =
      store.record(golden_store_run(suite(), backends, results, StoreRun{}), findings);
  EXPECT_EQ(d.expected, std::vector<std::string>{findings[0].signature});
}

// The command line: the store's summary lines, then a fuzz input of the same bug through
// `cvmcheck repro --store` is the same finding, seen again.
TEST_F(GoldenStoreTest, GoldenVerifyAndReproWriteTheStore) {
  const PlantedBug& bug = planted_bug();
  const std::string store_path = path("findings.sqlite");
  ::setenv("CVMCHECK_PLANTED", kPlanted, 1);
  const testing::CliRun verify = testing::run_cli(
      "golden verify " + suite() + " --backend " + bug.backend + " --jobs 2 --commit c1 --store " +
          store_path,
      true);
  const std::string signature = bug.op + "|" + bug.backend + "|value|output 0";
  EXPECT_EQ(verify.status, 1) << verify.out;
  EXPECT_NE(verify.out.find("findings store " + store_path + ": run 1 (the first): 1 new, "),
            std::string::npos)
      << verify.out;
  EXPECT_NE(verify.out.find("  new        " + signature + "  ("), std::string::npos) << verify.out;

  // A failing case of the suite as a fuzz input.
  const std::string case_dir = FindingsStore::open(store_path).find(signature)->repro_dir;
  const CaseSpec spec = read_case(case_dir);
  Call call;
  call.op = spec.op;
  call.attrs = spec.attrs;
  call.inputs = load_inputs(case_dir, spec);
  const std::string artifact = path("crash-1");
  std::ofstream(artifact, std::ios::binary) << encode_fuzz_input(fuzz_target_named("all"), call);
  const testing::CliRun repro = testing::run_cli(
      "repro " + artifact + " --target all --out " + path("repro") + " --commit c2 --store " +
          store_path,
      true);
  ::unsetenv("CVMCHECK_PLANTED");
  EXPECT_EQ(repro.status, 0) << repro.out;
  EXPECT_NE(repro.out.find("\nsignature: " + signature + "\n"), std::string::npos) << repro.out;
  EXPECT_NE(repro.out.find("(since run 1 at c1): 0 new, 0 regressed, 1 still open"),
            std::string::npos)
      << repro.out;
  const FindingsStore store = FindingsStore::open(store_path);
  const StoredRun run = store.runs().back();
  EXPECT_EQ(run.run.kind, "fuzz");
  EXPECT_EQ(run.run.source, artifact);
  EXPECT_EQ(run.findings, 1);
  EXPECT_EQ(store.run_signatures(run.id), std::vector<std::string>{signature});
  EXPECT_EQ(store.find(signature)->status, "open");
}

}  // namespace
}  // namespace cvm
