// Completeness: every operator of the list (cvmcheck/op_list.h) has everything a conformance
// check needs. Each test fails, never skips, naming the operator and what it lacks: its record,
// a worked example and a negative example, a generator record with named rules, a kernel on every built-in backend (unless kKernelExemptions says why not), its section
// in docs/ops/<family>.md, corpus seeds of its fuzz target, and golden cases (its examples and
// one per rule). Nothing outside the list may appear in any of them either.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "registry/registry.h"
#include "cvmcheck/op_list.h"
#include "harness/gen/fuzz_input.h"
#include "harness/gen/generators.h"
#include "infer/outputs.h"
#include "support/paths.h"

namespace cvm {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = CVMCHECK_SOURCE_DIR;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::set<std::string> listed_names() {
  std::set<std::string> names;
  for (const ListedOp& op : kOperatorList) names.insert(std::string(op.name));
  return names;
}

bool exempt(const std::string& backend, const std::string& op) {
  for (const KernelExemption& e : kKernelExemptions) {
    if (e.backend == backend && e.op == op) return true;
  }
  return false;
}

TEST(Completeness, TheListHasNoDuplicatesAndKnownFamilies) {
  EXPECT_EQ(listed_names().size(), kOperatorList.size()) << "an operator is listed twice";
  const std::set<std::string_view> families(kFamilies.begin(), kFamilies.end());
  for (const ListedOp& op : kOperatorList) {
    EXPECT_TRUE(families.count(op.family)) << op.name << ": family " << op.family
                                           << " is not in kFamilies";
  }
}

// core/op_list.json is what CMake, the scripts and the cvm-runtime worker's users read before
// anything is built: it must say what the header says.
TEST(Completeness, OpListJsonIsTheList) {
  nlohmann::json want = {{"families", nlohmann::json::array()},
                         {"operators", nlohmann::json::array()}};
  for (std::string_view f : kFamilies) want["families"].push_back(std::string(f));
  for (const ListedOp& op : kOperatorList) {
    want["operators"].push_back({{"name", std::string(op.name)}, {"family", std::string(op.family)}});
  }
  const nlohmann::json have = nlohmann::json::parse(read_text(kSource / "core/op_list.json"),
                                                    nullptr, /*allow_exceptions=*/false);
  EXPECT_EQ(have, want) << "core/op_list.json is stale: build/bin/cvmcheck ops --list-json > "
                           "core/op_list.json";
}

TEST(Completeness, RecordsAreExactlyTheList) {
  std::set<std::string> recorded;
  for (const OpInfo& op : registry().ops()) {
    recorded.insert(op.name);
    EXPECT_EQ(listed_family(op.name), op.family)
        << op.name << ": record family " << op.family << " vs the list's '"
        << listed_family(op.name) << "' (empty: not listed)";
  }
  for (const std::string& name : listed_names()) {
    EXPECT_TRUE(recorded.count(name)) << name << " is listed but has no record (ops/<family>.cc)";
  }
  // The list's order is the registration order (the campaign and the golden suite iterate it).
  std::vector<std::string> registered, listed;
  for (const OpInfo& op : registry().ops()) registered.push_back(op.name);
  for (const ListedOp& op : kOperatorList) listed.emplace_back(op.name);
  EXPECT_EQ(registered, listed) << "the records are registered in another order than listed";
}

TEST(Completeness, EveryOperatorHasAWorkedAndANegativeExample) {
  for (const ListedOp& listed : kOperatorList) {
    const OpInfo* op = registry().find_op(std::string(listed.name));
    ASSERT_NE(op, nullptr) << listed.name;
    int ok = 0, bad = 0;
    for (const Example& e : op->examples) (e.outcome == OutcomeKind::kOk ? ok : bad) += 1;
    EXPECT_GT(ok, 0) << listed.name << " has no worked example";
    EXPECT_GT(bad, 0) << listed.name << " has no negative example";
  }
}

TEST(Completeness, EveryOperatorHasGeneratorsWithNamedRules) {
  for (const ListedOp& listed : kOperatorList) {
    const OpInfo& op = registry().op(std::string(listed.name));
    const OpGenerators* gens = generators_for(op);
    ASSERT_NE(gens, nullptr) << listed.name << " has no generator record (harness/gen/<family>_gen.cc)";
    EXPECT_FALSE(gens->invalid.empty()) << listed.name << " has no invalid-call generator";
    std::set<std::string> rules;
    for (const InvalidGenerator& g : gens->invalid) {
      EXPECT_TRUE(rules.insert(g.rule).second) << listed.name << ": rule " << g.rule << " twice";
    }
  }
}

// The load phase of a whole model infers every node's entries from the production inference's
// table (infer/outputs.h): a listed operator missing there could not be in a model.
TEST(Completeness, EveryOperatorHasProductionOutputSpecs) {
  for (const ListedOp& listed : kOperatorList) {
    EXPECT_TRUE(infer::has_output_specs(std::string(listed.name)))
        << listed.name << " has no entry in infer/outputs.cc";
  }
}

TEST(Completeness, EveryBuiltInBackendImplementsExactlyTheList) {
  const std::set<std::string> names = listed_names();
  int backends = 0;
  for (const Backend& backend : registry().backends()) {
    if (backend.name.rfind("planted-", 0) == 0) continue;  // one operator each, by design
    ++backends;
    for (const std::string& name : names) {
      if (exempt(backend.name, name)) continue;
      if (!backend.variant_of.empty() && backend.declared_ops.count(name) == 0) {
        // A variant of one kernel choice runs the operators it changes, and declares those
        // alone (cuda's @tile and /simple: the GEMM operators, cuda/plan.cc).
        EXPECT_FALSE(backend.implements(name)) << backend.name << " runs undeclared " << name;
        continue;
      }
      EXPECT_TRUE(backend.implements(name))
          << backend.name << " has no kernel for " << name
          << " (add one, or an entry with the reason to kKernelExemptions)";
    }
    for (const auto& [name, kernel] : backend.kernels) {
      EXPECT_TRUE(names.count(name)) << backend.name << " has a kernel for unlisted " << name;
    }
  }
  EXPECT_GE(backends, 3) << "reference, optimized and cuda-host are always built";
  for (const KernelExemption& e : kKernelExemptions) {
    const Backend* b = registry().find_backend(std::string(e.backend));
    EXPECT_TRUE(b != nullptr && !b->implements(std::string(e.op)))
        << "stale exemption " << e.backend << "/" << e.op;
  }
}

TEST(Completeness, EveryOperatorHasItsDocsSection) {
  for (const std::string_view family : kFamilies) {
    const fs::path page = kSource / "docs" / "ops" / (std::string(family) + ".md");
    ASSERT_TRUE(fs::exists(page)) << "no docs page " << page;
  }
  for (const ListedOp& op : kOperatorList) {
    const std::string page =
        read_text(kSource / "docs" / "ops" / (std::string(op.family) + ".md"));
    const std::string title = page.substr(0, page.find('\n'));
    const std::string quoted = "`" + std::string(op.name) + "`";
    EXPECT_NE(title.find(quoted), std::string::npos)
        << op.name << " is not named in the title of docs/ops/" << op.family << ".md";
  }
}

TEST(Completeness, EveryFuzzTargetIsAFamilyAndEveryOperatorHasCorpusSeeds) {
  std::set<std::string> targets;
  for (const FuzzTarget& t : fuzz_targets()) targets.insert(t.name);
  std::set<std::string> expected = {"all"};
  for (std::string_view f : kFamilies) expected.insert(std::string(f));
  EXPECT_EQ(targets, expected);

  std::map<std::string, int> seeds;  // canonical operator -> seeds decoding to it
  for (const FuzzTarget& target : fuzz_targets()) {
    const fs::path dir = kSource / "corpus" / target.name;
    ASSERT_TRUE(fs::is_directory(dir)) << "no corpus for fuzz target " << target.name;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string bytes = read_text(entry.path());
      const auto call = decode_fuzz_input(
          target, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      if (!call) continue;  // a seed over the bounds says nothing about coverage
      if (const OpInfo* op = registry().find_op(call->op)) ++seeds[op->name];
    }
  }
  for (const ListedOp& op : kOperatorList) {
    EXPECT_GT(seeds[std::string(op.name)], 0)
        << op.name << " has no corpus seed (ci/fuzz-corpus.sh writes them)";
  }
}

TEST(Completeness, EveryOperatorHasGoldenCasesForItsExamplesAndRules) {
  const nlohmann::json manifest =
      nlohmann::json::parse(read_text(kSource / "golden" / "MANIFEST.json"));
  std::map<std::string, std::set<std::string>> cases;  // operator -> case names
  for (const auto& entry : manifest.at("cases")) {
    cases[entry.at("op").get<std::string>()].insert(entry.at("name").get<std::string>());
  }
  for (const auto& entry : manifest.at("omitted")) {  // too large for the suite, with why
    cases[entry.at("op").get<std::string>()].insert(entry.at("name").get<std::string>());
  }
  for (const ListedOp& listed : kOperatorList) {
    const OpInfo& op = registry().op(std::string(listed.name));
    const std::set<std::string>& have = cases[op.name];
    for (const Example& e : op.examples) {
      EXPECT_TRUE(have.count("example_" + e.name))
          << op.name << ": no golden case for example " << e.name << " (ci/update-golden.sh)";
    }
    const OpGenerators* gens = generators_for(op);
    ASSERT_NE(gens, nullptr) << op.name << " has no generator record";
    for (const InvalidGenerator& g : gens->invalid) {
      EXPECT_TRUE(have.count("invalid_" + g.rule))
          << op.name << ": no golden case for rule " << g.rule << " (ci/update-golden.sh)";
    }
  }
  for (const auto& [name, have] : cases) {
    EXPECT_TRUE(listed_names().count(name)) << "golden cases for unlisted operator " << name;
  }
}

}  // namespace
}  // namespace cvm
