// The fuzz corpora as regression tests (no fuzzing time needed): every file of corpus/<target>/
// decodes and runs without a finding, in the normal and the sanitizer builds. Plus the byte
// format's round trip, on which corpus seeding and `cvmcheck repro` rely.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "registry/registry.h"
#include "harness/engine/diff.h"
#include "harness/gen/fuzz_input.h"
#include "harness/gen/generators.h"
#include "support/paths.h"

namespace cvm {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// CVMCHECK_CORPUS_OPS=a,b (set by the CI gate, tools/gate): replay only the calls of those
// operators (aliases resolved), from every target, so a change to one kernel replays its
// corpora without paying for the others. Unset: every call.
std::set<std::string> corpus_ops_filter() {
  std::set<std::string> ops;
  const char* env = std::getenv("CVMCHECK_CORPUS_OPS");
  std::stringstream in(env != nullptr ? env : "");
  for (std::string op; std::getline(in, op, ',');) {
    if (!op.empty()) ops.insert(op);
  }
  return ops;
}

bool selected(const std::set<std::string>& ops, const std::string& name) {
  if (ops.empty()) return true;
  const OpInfo* op = registry().find_op(name);
  return op != nullptr && ops.count(op->name) > 0;
}

TEST(FuzzCorpus, EveryCorpusFileReplaysWithoutAFinding) {
  const fs::path root = fs::path(CVMCHECK_SOURCE_DIR) / "corpus";
  ASSERT_TRUE(fs::is_directory(root)) << root;
  const std::set<std::string> only = corpus_ops_filter();
  int64_t files = 0, calls = 0;
  for (const FuzzTarget& target : fuzz_targets()) {
    const fs::path dir = root / target.name;
    ASSERT_TRUE(fs::is_directory(dir)) << "no corpus for target " << target.name;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string bytes = read_file(entry.path());
      ++files;
      const auto call = decode_fuzz_input(
          target, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      if (!call || !selected(only, call->op)) continue;
      ++calls;
      // Every backend and variant on every file (the fuzz targets run each variant on a share).
      const auto finding = fuzz_one(registry(), *call, other_backends(registry()));
      EXPECT_FALSE(finding.has_value()) << entry.path() << "\n" << finding.value_or("");
    }
  }
  std::cout << files << " corpus files, " << calls << " calls replayed\n";
  EXPECT_GT(calls, 0);
}

TEST(FuzzInput, ExplicitEncodingRoundTrips) {
  const FuzzTarget& all = *find_fuzz_target("all");
  int checked = 0;
  for (const OpInfo& op : registry().ops()) {
    const OpGenerators* gens = generators_for(op);
    ASSERT_NE(gens, nullptr) << op.name << " has no generator record";
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      const Call call = gens->valid(rc::Random(seed), static_cast<int>(seed * 5)).value();
      if (input_elements(call) > kFuzzMaxElements) continue;
      const std::string bytes = encode_fuzz_input(all, call);
      const auto decoded =
          decode_fuzz_input(all, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ASSERT_TRUE(decoded.has_value()) << describe_call(call);
      EXPECT_EQ(decoded->op, call.op);
      EXPECT_EQ(decoded->attrs, call.attrs) << describe_call(call);
      ASSERT_EQ(decoded->inputs.size(), call.inputs.size());
      for (size_t k = 0; k < call.inputs.size(); ++k) {
        EXPECT_TRUE(decoded->inputs[k].identical(call.inputs[k])) << describe_call(call);
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(FuzzInput, ArbitraryBytesNeverThrow) {
  for (const FuzzTarget& target : fuzz_targets()) {
    uint64_t state = 7;
    for (int round = 0; round < 300; ++round) {
      std::string bytes(static_cast<size_t>(round % 97), '\0');
      for (char& c : bytes) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        c = static_cast<char>(state >> 56);
      }
      EXPECT_NO_THROW({
        const auto call = decode_fuzz_input(
            target, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        if (call) (void)fuzz_one(registry(), *call);
      });
    }
  }
}

}  // namespace
}  // namespace cvm
