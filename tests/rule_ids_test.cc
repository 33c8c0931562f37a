// Rule ids (docs/contract.md, "Rule ids"): every validity rule has a stable id, listed in one
// place (cvmcheck/rules.h for the global ones, the operators' generator records for their own),
// raised by the reference and the in-tree backends, documented, and compared by the diff where a
// call is known to break one rule. These tests prove each part, and that the diff's rule check
// catches a backend that raises the right class for the wrong rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "registry/registry.h"
#include "cvmcheck/case.h"
#include "cvmcheck/errors.h"
#include "cvmcheck/rules.h"
#include "harness/engine/diff.h"
#include "harness/gen/generators.h"
#include "harness/engine/verdict.h"
#include "harness/findings/finding.h"
#include "ops/schema.h"
#include "reference/kernels.h"
#include "support/call.h"
#include "support/paths.h"

namespace cvm {
namespace {

namespace fs = std::filesystem;

constexpr int kDrawsPerRule = 12;

std::set<std::string> global_ids() {
  std::set<std::string> ids;
  for (const rules::GlobalRule& r : rules::global_rules()) ids.insert(r.id);
  return ids;
}

// The ids an operator may raise: the global ones and its generator record's.
std::set<std::string> listed_ids(const OpInfo& op) {
  std::set<std::string> ids = global_ids();
  if (const OpGenerators* gens = generators_for(op)) {
    for (const InvalidGenerator& g : gens->invalid) ids.insert(gen::rule_id(op.name, g.rule));
  }
  return ids;
}

// The built-in backends other than the reference that are available (base backends and their
// dispatch variants alike: every in-tree backend raises ids).
std::vector<std::string> in_tree_backends() {
  std::vector<std::string> names;
  for (const Backend& b : registry().backends()) {
    if (b.name != "reference" && b.available && b.name.rfind("planted-", 0) != 0) {
      names.push_back(b.name);
    }
  }
  return names;
}

bool well_formed(const std::string& id) {
  const size_t dot = id.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == id.size()) return false;
  for (size_t i = dot + 1; i < id.size(); ++i) {
    const char c = id[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return id.find('.', dot + 1) == std::string::npos;
}

TEST(RuleIds, EveryGeneratorRuleHasAWellFormedId) {
  const std::set<std::string> globals = global_ids();
  for (const OpInfo& op : registry().ops()) {
    const OpGenerators* gens = generators_for(op);
    ASSERT_NE(gens, nullptr) << op.name;
    for (const InvalidGenerator& g : gens->invalid) {
      const std::string id = gen::rule_id(op.name, g.rule);
      EXPECT_TRUE(well_formed(id)) << op.name << "/" << g.rule << " -> '" << id << "'";
      const bool global = id.rfind("global.", 0) == 0;
      EXPECT_TRUE(global ? globals.count(id) != 0 : id.rfind(op.name + ".", 0) == 0)
          << op.name << "/" << g.rule << " -> " << id
          << ": a global id must be listed in cvmcheck/rules.h, any other one the operator's";
    }
  }
}

// A rule's name is written once, in gen::add_rule, the only way to make an InvalidGenerator: its
// calls carry that name and its id whatever `make` returned, and the pair never parts.
static_assert(!std::is_constructible_v<InvalidGenerator, std::string, rc::Gen<Call>>);
static_assert(!std::is_aggregate_v<InvalidGenerator>);
static_assert(!std::is_copy_assignable_v<InvalidGenerator>);

TEST(RuleIds, AGeneratorsCallsNameTheRuleItIsRegisteredUnder) {
  std::vector<InvalidGenerator> rules;
  gen::add_rule(rules, "axis_duplicate", [] {
    Call call;
    call.op = "sum";
    call.rule = "axis_out_of_range";  // another rule's name, overridden
    call.rule_id = "sum.axis_out_of_range";
    return call;
  });
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules.front().rule, "axis_duplicate");
  const Call call = rules.front().gen(rc::Random(1), 0).value();
  EXPECT_EQ(call.rule, "axis_duplicate");
  EXPECT_EQ(call.rule_id, "sum.axis_duplicate");
  EXPECT_EQ(call.expected, OutcomeKind::kLogicError);
}

// The oracle names the one rule each generated invalid call breaks, and so does every in-tree
// backend that reports ids (all of them do).
TEST(RuleIds, TheReferenceAndEveryInTreeBackendRaiseEachGeneratorsRule) {
  const std::vector<std::string> backends = in_tree_backends();
  ASSERT_FALSE(backends.empty());
  int64_t checked = 0;
  for (const OpInfo& op : registry().ops()) {
    const OpGenerators* gens = generators_for(op);
    ASSERT_NE(gens, nullptr) << op.name;
    for (size_t r = 0; r < gens->invalid.size(); ++r) {
      const InvalidGenerator& g = gens->invalid[r];
      for (int k = 0; k < kDrawsPerRule; ++k) {
        const Call call = g.gen(rc::Random(1000 * r + static_cast<uint64_t>(k) + 1), 30).value();
        ASSERT_EQ(call.rule, g.rule);
        ASSERT_EQ(call.rule_id, gen::rule_id(op.name, g.rule));
        const Outcome ref =
            run_op_outcome(registry(), "reference", call.op, call.attrs, call.inputs);
        ASSERT_EQ(ref.kind, OutcomeKind::kLogicError) << describe_call(call);
        EXPECT_EQ(ref.rule, call.rule_id) << describe_call(call) << ": " << ref.message;
        for (const std::string& b : backends) {
          if (!registry().find_backend(b)->implements(op.name)) continue;
          const Outcome got = run_op_outcome(registry(), b, call.op, call.attrs, call.inputs);
          EXPECT_EQ(got.kind, OutcomeKind::kLogicError) << b << " " << describe_call(call);
          EXPECT_EQ(got.rule, call.rule_id)
              << b << " " << describe_call(call) << ": " << got.message;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

// A negative example breaks exactly one rule: the reference names a listed id, and every in-tree
// backend names the same one.
TEST(RuleIds, EveryNegativeExampleRaisesAListedIdOnEveryBackend) {
  const std::vector<std::string> backends = in_tree_backends();
  for (const OpInfo& op : registry().ops()) {
    const std::set<std::string> listed = listed_ids(op);
    for (const Example& e : op.examples) {
      if (e.outcome != OutcomeKind::kLogicError) continue;
      const Outcome ref = testing::call(op.name, e.attrs_json, e.inputs);
      ASSERT_EQ(ref.kind, OutcomeKind::kLogicError) << op.name << "/" << e.name;
      EXPECT_TRUE(listed.count(ref.rule))
          << op.name << "/" << e.name << " raised '" << ref.rule << "', which no generator record "
          << "or cvmcheck/rules.h lists (" << ref.message << ")";
      for (const std::string& b : backends) {
        if (!registry().find_backend(b)->implements(op.name)) continue;
        const Outcome got = testing::call(op.name, e.attrs_json, e.inputs, b);
        EXPECT_EQ(got.rule, ref.rule)
            << b << " " << op.name << "/" << e.name << ": " << got.message;
      }
    }
  }
}

// Every listed id is raised somewhere: the operator ids by their generators (above), the global
// ones by some generator or example; the two that no operator's calls can break (an unknown
// name, attributes that are not an object) by a direct call.
TEST(RuleIds, EveryGlobalIdIsRaised) {
  std::set<std::string> raised;
  for (const OpInfo& op : registry().ops()) {
    for (const InvalidGenerator& g : generators_for(op)->invalid) {
      raised.insert(gen::rule_id(op.name, g.rule));
    }
    for (const Example& e : op.examples) {
      if (e.outcome == OutcomeKind::kLogicError) {
        raised.insert(testing::call(op.name, e.attrs_json, e.inputs).rule);
      }
    }
  }
  const std::vector<Tensor> x = {Tensor::from_values({1}, {1}, 8, DType::kInt32)};
  raised.insert(run_op_outcome(registry(), "reference", "no_such_op", {}, x).rule);
  raised.insert(run_op_outcome(registry(), "reference", "sum", nlohmann::json::array({1}), x).rule);
  for (const std::string& id : global_ids()) {
    EXPECT_TRUE(raised.count(id)) << id << " is listed but nothing raises it";
  }
}

// The docs list every id: the global ones in docs/contract.md, each operator's on its family page.
TEST(RuleIds, TheDocsListEveryId) {
  auto read = [](const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const fs::path docs = fs::path(CVMCHECK_SOURCE_DIR) / "docs";
  const std::string contract = read(docs / "contract.md");
  for (const std::string& id : global_ids()) {
    EXPECT_NE(contract.find("`" + id + "`"), std::string::npos) << id << " not in docs/contract.md";
  }
  for (const OpInfo& op : registry().ops()) {
    const std::string page = read(docs / "ops" / (op.family + ".md"));
    ASSERT_FALSE(page.empty()) << op.name << ": no page for family " << op.family;
    for (const InvalidGenerator& g : generators_for(op)->invalid) {
      const std::string id = gen::rule_id(op.name, g.rule);
      if (id.rfind("global.", 0) == 0) continue;
      EXPECT_NE(page.find("`" + id + "`"), std::string::npos)
          << id << " is not in the rule id table of docs/ops/ for family " << op.family;
    }
  }
}

// run_op keeps the id as data through its rethrow, qualifying a kernel's bare name with the
// operator's canonical name (also when called by an alias).
TEST(RuleIds, RunOpQualifiesAKernelsBareRuleName) {
  Registry r;
  ops::add_all_ops(r);
  Backend b;
  b.name = "raises";
  b.add("get_valid_counts", [](const OpContext&) -> std::vector<Tensor> {
    fail_rule("some_rule", "message for people");
  });
  b.add("sum", [](const OpContext&) -> std::vector<Tensor> {
    fail_rule(rules::kValueRange, "message for people");
  });
  r.add_backend(b);
  const std::vector<Tensor> x = {
      Tensor::from_values({1, 1, 6}, {0, 0, 0, 0, 0, 0}, 8, DType::kInt32)};
  const Outcome alias = run_op_outcome(r, "raises", "get_valid_count", {}, x);
  EXPECT_EQ(alias.rule, "get_valid_counts.some_rule");
  EXPECT_NE(alias.message.find("message for people"), std::string::npos);
  EXPECT_EQ(run_op_outcome(r, "raises", "sum", {}, x).rule, rules::kValueRange);
  EXPECT_EQ(rules::qualify("sum", ""), "");
}

// ------------------------------------------------------------------ the diff's rule judgement

Outcome logic_error(const std::string& rule) {
  Outcome o;
  o.kind = OutcomeKind::kLogicError;
  o.rule = rule;
  return o;
}

TEST(RuleJudgement, CompareOutcomesFindsSameClassDifferentRule) {
  const auto d =
      compare_outcomes(logic_error("sum.axis_out_of_range"), logic_error("sum.axis_duplicate"));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->kind, "rule");
  EXPECT_NE(d->what.find("sum.axis_duplicate"), std::string::npos);
  // No id on either side: the class decides.
  EXPECT_FALSE(compare_outcomes(logic_error(""), logic_error("sum.axis_duplicate")));
  EXPECT_FALSE(compare_outcomes(logic_error("sum.axis_out_of_range"), logic_error("")));
  EXPECT_FALSE(
      compare_outcomes(logic_error("sum.axis_duplicate"), logic_error("sum.axis_duplicate")));
}

// A registry with sum on the reference and on three backends: one raising the wrong id for a
// repeated axis, one raising no ids, one raising the reference's.
std::unique_ptr<Registry> judgement_registry() {
  auto r = std::make_unique<Registry>();
  ops::add_all_ops(*r);
  r->add_backend(ref::make_backend());
  const Kernel sum = r->find_backend("reference")->kernels.at("sum");
  Backend wrong;
  wrong.name = "wrong-rule";
  wrong.add("sum", [sum](const OpContext& ctx) {
    try {
      return sum(ctx);
    } catch (const LogicError& e) {
      throw LogicError(e.what(), e.rule() == "axis_duplicate" ? "axis_out_of_range" : e.rule());
    }
  });
  Backend silent;
  silent.name = "no-rule-ids";
  silent.add("sum", [sum](const OpContext& ctx) {
    try {
      return sum(ctx);
    } catch (const LogicError& e) {
      throw LogicError(e.what());  // an external worker that reports no ids
    }
  });
  Backend right;
  right.name = "same-rule";
  right.add("sum", sum);
  r->add_backend(wrong);
  r->add_backend(silent);
  r->add_backend(right);
  return r;
}

// sum with a repeated axis: breaks sum.axis_duplicate and nothing else. Declared, it is the call
// of a generator registered for that rule.
Call duplicate_axis_call(bool declared) {
  Call call;
  call.op = "sum";
  call.attrs = {{"axis", "(0, 0)"}};
  call.inputs = {Tensor::from_values({2}, {1, 2}, 8, DType::kInt32)};
  if (!declared) return call;
  std::vector<InvalidGenerator> rules;
  gen::add_rule(rules, "axis_duplicate", [call] { return call; });
  return rules.front().gen(rc::Random(1), 0).value();
}

TEST(RuleJudgement, ADeclaredRuleIsCheckedOnBackendsThatReportIds) {
  const auto r = judgement_registry();
  const Call call = duplicate_axis_call(true);
  ASSERT_EQ(call.rule_id, "sum.axis_duplicate");
  const CallVerdict v = judge_call(*r, call, {"wrong-rule", "no-rule-ids", "same-rule"});
  ASSERT_FALSE(v.passed);
  EXPECT_FALSE(v.diff.expectation_failure) << *v.diff.expectation_failure;
  for (const BackendRun& run : v.diff.runs) {
    if (run.backend == "wrong-rule") {
      ASSERT_TRUE(run.difference.has_value());
      EXPECT_EQ(run.difference->kind, "rule");
    } else {
      EXPECT_FALSE(run.difference.has_value()) << run.backend << ": " << run.difference->what;
    }
  }
  EXPECT_EQ(finding_signature("sum", v, call.rule),
            "sum|wrong-rule|rule|sum.axis_duplicate->sum.axis_out_of_range");
  EXPECT_NE(v.report.find("[sum.axis_out_of_range]"), std::string::npos) << v.report;
}

// A free-form call (no declared rule) may break several rules, which backends may check in any
// order: only the class is compared.
TEST(RuleJudgement, AFreeFormCallIsJudgedByTheClassAlone) {
  const auto r = judgement_registry();
  const CallVerdict v = judge_call(*r, duplicate_axis_call(false), {"wrong-rule"});
  // Without `expected` judge_call wants ok; the class check is the only failure.
  ASSERT_FALSE(v.passed);
  EXPECT_TRUE(v.diff.expectation_failure.has_value());
  for (const BackendRun& run : v.diff.runs) EXPECT_FALSE(run.difference) << run.difference->what;
  Call expected_error = duplicate_axis_call(false);
  expected_error.expected = OutcomeKind::kLogicError;
  EXPECT_TRUE(judge_call(*r, expected_error, {"wrong-rule"}).passed);
}

// The oracle must raise the declared rule: a generator whose call breaks another rule (or the
// reference naming the wrong one) is an expectation failure with its own signature.
TEST(RuleJudgement, TheReferenceRaisingAnotherRuleIsAnExpectationFailure) {
  const auto r = judgement_registry();
  Call call = duplicate_axis_call(true);
  call.rule = "axis_out_of_range";
  call.rule_id = "sum.axis_out_of_range";
  const CallVerdict v = judge_call(*r, call, {"same-rule"});
  ASSERT_FALSE(v.passed);
  ASSERT_TRUE(v.diff.expectation_failure.has_value());
  EXPECT_NE(v.diff.expectation_failure->find("sum.axis_duplicate"), std::string::npos);
  EXPECT_EQ(finding_signature("sum", v, call.rule),
            "sum|reference|expectation|axis_out_of_range|logic_error|sum.axis_duplicate");
}

// The repro of a rule finding expects the rule and replays: the wrong backend fails it, the
// reference and a backend without ids pass it.
TEST(RuleJudgement, ARuleFindingsReproCarriesExpectRuleAndReplays) {
  const auto r = judgement_registry();
  const std::string root = ::testing::TempDir() + "/rule-repro";
  fs::remove_all(root);
  const Call call = duplicate_axis_call(true);
  CallVerdict v = judge_call(*r, call, {"wrong-rule"});
  ASSERT_FALSE(v.passed);
  save_repro(call, root + "/case", v);
  ASSERT_FALSE(v.repro_dir.empty());
  const CaseSpec spec = read_case(v.repro_dir);
  ASSERT_TRUE(spec.expect.has_value());
  EXPECT_EQ(spec.expect->rule, "sum.axis_duplicate");
  EXPECT_FALSE(judge_case(*r, v.repro_dir, "wrong-rule").matches.value_or(true));
  EXPECT_TRUE(judge_case(*r, v.repro_dir, "reference").matches.value_or(false));
  EXPECT_TRUE(judge_case(*r, v.repro_dir, "no-rule-ids").matches.value_or(false));
}

TEST(RuleJudgement, CaseJsonAcceptsExpectRuleOnlyWithLogicError) {
  const auto parse = [](const char* text) { return parse_case_json(nlohmann::json::parse(text)); };
  const CaseSpec spec = parse(
      R"({"op": "sum", "inputs": [], "expect": {"outcome": "logic_error", "rule": "sum.x"}})");
  EXPECT_EQ(spec.expect->rule, "sum.x");
  EXPECT_EQ(case_json(spec)["expect"]["rule"], "sum.x");
  EXPECT_THROW(parse(R"({"op": "sum", "inputs": [],
                         "expect": {"outcome": "ok", "outputs": [], "rule": "sum.x"}})"),
               CaseFileError);
  EXPECT_THROW(
      parse(R"({"op": "sum", "inputs": [], "expect": {"outcome": "logic_error", "rule": 1}})"),
      CaseFileError);
  EXPECT_THROW(
      parse(R"({"op": "sum", "inputs": [], "expect": {"outcome": "logic_error", "rules": "x"}})"),
      CaseFileError);
}

}  // namespace
}  // namespace cvm
