// Known differences that match campaign findings (harness/findings/expectations.h): sig: selectors
// on a backend's difference and conditions on the call, applied by the campaign to each failing
// call, so that a nightly against a known-buggy implementation can pass.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cvmcheck/case.h"
#include "cvmcheck/errors.h"
#include "harness/campaign/campaign.h"
#include "harness/engine/call.h"
#include "harness/findings/expectations.h"
#include "registry/registry.h"
#include "support/paths.h"
#include "support/planted_registry.h"

namespace cvm {
namespace {

ExpectedFailures list_of(const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("cvmcheck-known-" + std::to_string(::getpid()) + ".txt"))
                               .string();
  std::ofstream(path) << text;
  ExpectedFailures list = ExpectedFailures::read(path);
  std::filesystem::remove(path);
  return list;
}

Call call_of(const std::string& op, nlohmann::json attrs, std::vector<Tensor> inputs) {
  Call call;
  call.op = op;
  call.attrs = std::move(attrs);
  call.inputs = std::move(inputs);
  return call;
}

TEST(KnownDifferences, SignatureSelectorsAndConditionsParse) {
  const ExpectedFailures list = list_of(
      "sig:where|*|precision|*&in0.ndim=1  where's precision is p(cond) docs/contract.md\n"
      "sig:max|*|value|*&attr.axis=()  max over no axis\n");
  ASSERT_EQ(list.entries().size(), 2u);
  const ExpectationEntry& e = list.entries()[0];
  EXPECT_EQ(e.sig_glob, "where|*|precision|*");
  ASSERT_EQ(e.conditions.size(), 1u);
  EXPECT_EQ(e.conditions[0].input, 0);
  EXPECT_EQ(e.conditions[0].property, "ndim");
  EXPECT_EQ(e.link, "docs/contract.md");
  EXPECT_EQ(e.selector(), "sig:where|*|precision|*&in0.ndim=1");
  // A finding's "output N" keeps its space: the selector takes the number and the conditions.
  const ExpectedFailures outputs = list_of(
      "sig:sum|*|value|output 1&in0.ndim=2  [r] the second output\n"
      "sig:sum|*|value|output  [r] no number: the selector ends\n");
  ASSERT_EQ(outputs.entries().size(), 2u);
  EXPECT_EQ(outputs.entries()[0].sig_glob, "sum|*|value|output 1");
  EXPECT_EQ(outputs.entries()[0].conditions.size(), 1u);
  EXPECT_EQ(outputs.entries()[0].reason, "[r] the second output");
  EXPECT_EQ(outputs.entries()[1].sig_glob, "sum|*|value|output");
  EXPECT_EQ(outputs.entries()[1].reason, "[r] no number: the selector ends");
  EXPECT_THROW(list_of("sig:max|*&in0.volume=3 reason\n"), LogicError);
  EXPECT_THROW(list_of("sig:max|*&in0.col.min<0 reason\n"), LogicError);
  EXPECT_THROW(list_of("sig:max|*&attr.a+attr.b>=x reason\n"), LogicError);
  EXPECT_THROW(list_of("sig:max|*&in0.min<0..3 reason\n"), LogicError);
  EXPECT_THROW(list_of("sig:max|*&name<3 reason\n"), LogicError);
  EXPECT_THROW(list_of("sig:max|*&in0.shape<3 reason\n"), LogicError);
  EXPECT_THROW(list_of("sig:max|*&axis reason\n"), LogicError);
  EXPECT_THROW(list_of("sig:max|*&in0.ndim=two reason\n"), LogicError);
  EXPECT_THROW(list_of("sig:max|*&in0.prec=9..x reason\n"), LogicError);
}

TEST(KnownDifferences, ConditionsLookAtAttributesShapesPrecisionsAndValues) {
  const ExpectedFailures list = list_of(
      "sig:cvm_right_shift|*|value|*&in0.has=2147483647  right shift of 2^31-1\n"
      "sig:max|*|value|*&attr.axis=()&in0.shape=2x*  max over no axis\n"
      "sig:abs|*&in0.prec=8  eight bits\n");
  const Tensor big = Tensor::from_values({3}, {1, 2147483647, 3}, 32);
  const Call shift = call_of("cvm_right_shift", {{"shift_bit", "1"}}, {big});
  FailureFacts facts{"cvm_right_shift", "valid", "", "cvm_right_shift|w|value|output 0", &shift};
  EXPECT_EQ(list.match(facts), 0);
  const Call small = call_of("cvm_right_shift", {{"shift_bit", "1"}},
                             {Tensor::from_values({2}, {1, 2}, 32)});
  facts.call = &small;
  EXPECT_EQ(list.match(facts), -1);
  facts.call = nullptr;  // a condition without the call never holds
  EXPECT_EQ(list.match(facts), -1);

  const Call max = call_of("max", {{"axis", "()"}}, {Tensor::from_values({2, 3}, {1, 2, 3, 4, 5, 6}, 8)});
  const FailureFacts max_facts{"max", "valid", "", "max|w|value|output 0", &max};
  EXPECT_EQ(list.match(max_facts), 1);
  const Call max_axis = call_of("max", {{"axis", "(0,)"}}, {max.inputs[0]});
  EXPECT_EQ(list.match({"max", "valid", "", "max|w|value|output 0", &max_axis}), -1);
  const ExpectedFailures negated = list_of("sig:strided_slice|*&name=slice&attr.end!=*  alias\n");
  const Call alias = call_of("slice", {{"begin", "[]"}}, {Tensor::from_values({1}, {1}, 8)});
  EXPECT_EQ(negated.match({"strided_slice", "valid", "", "strided_slice|w|shape|output 0", &alias}), 0);
  const Call with_end = call_of("slice", {{"end", "[1]"}}, {alias.inputs[0]});
  EXPECT_EQ(negated.match({"strided_slice", "valid", "", "strided_slice|w|shape|output 0", &with_end}), -1);

  const Call abs = call_of("abs", {}, {Tensor::from_values({1}, {-3}, 8)});
  EXPECT_EQ(list.match({"abs", "valid", "", "abs|w|value|output 0", &abs}), 2);
  EXPECT_EQ(list.match({"abs", "valid", "", "", &abs}), -1);  // no difference, no sig: match

  // A range of precisions or ranks, both ends included.
  const ExpectedFailures ranged = list_of("sig:abs|*&in0.prec=9..32&in0.ndim=1..2  wide\n");
  for (const auto& [precision, matched] : {std::pair{8, -1}, {9, 0}, {32, 0}}) {
    const Call call = call_of("abs", {}, {Tensor::from_values({1}, {-3}, precision)});
    EXPECT_EQ(ranged.match({"abs", "valid", "", "abs|w|value|output 0", &call}), matched);
  }
  const Call rank3 = call_of("abs", {}, {Tensor::from_values({1, 1, 1}, {-3}, 9)});
  EXPECT_EQ(ranged.match({"abs", "valid", "", "abs|w|value|output 0", &rank3}), -1);
}

// Relations between attributes and inputs: sums, comparisons, extremes of values and dims.
TEST(KnownDifferences, NumericConditionsCompareSumsOfAttributesAndInputProperties) {
  const ExpectedFailures shift = list_of(
      "sig:cvm_right_shift|*&attr.precision+attr.shift_bit>=32  unclipped\n"
      "sig:cvm_right_shift|*&attr.shift_bit>30  large shift\n");
  const Tensor x = Tensor::from_values({2}, {5, -7}, 32);
  const auto match = [&](const ExpectedFailures& list, const Call& call) {
    return list.match({call.op, "valid", "", call.op + "|w|value|output 0", &call});
  };
  EXPECT_EQ(match(shift, call_of("cvm_right_shift", {{"precision", "17"}, {"shift_bit", "15"}}, {x})), 0);
  EXPECT_EQ(match(shift, call_of("cvm_right_shift", {{"precision", "16"}, {"shift_bit", "15"}}, {x})), -1);
  EXPECT_EQ(match(shift, call_of("cvm_right_shift", {{"precision", 1}, {"shift_bit", 31}}, {x})), 0);
  EXPECT_EQ(match(shift, call_of("cvm_right_shift", {{"shift_bit", "31"}}, {x})), 1);
  EXPECT_EQ(match(shift, call_of("cvm_right_shift", {{"shift_bit", " 32 "}}, {x})), 1);
  EXPECT_EQ(match(shift, call_of("cvm_right_shift", {{"shift_bit", "x"}}, {x})), -1);

  const ExpectedFailures ruled =
      list_of("sig:dense|*|class|logic_error->ok&rule=global.value_range  data clamped\n");
  EXPECT_EQ(ruled.match({"dense", "c", "global.value_range", "dense|w|class|logic_error->ok", nullptr}), 0);
  EXPECT_EQ(ruled.match({"dense", "c", "dense.units_below_1", "dense|w|class|logic_error->ok", nullptr}), -1);
  EXPECT_THROW(list_of("sig:max|*&rule<3 reason\n"), LogicError);

  const ExpectedFailures values = list_of(
      "sig:nms|*&in1.min<=0  early return\n"
      "sig:nms|*&in0.col0.min<0  negative id\n"
      "sig:sum|*&in0.min_dim=1&in0.max_dim!=4..9  a kept unit dim\n"
      "sig:abs|*&in0.size>=3&in0.max<100&in1.min!=-1  no second input\n");
  const Tensor boxes = Tensor::from_values({1, 2, 3}, {0, 9, 9, 1, -9, -9}, 32);
  const Tensor counts = Tensor::from_values({2}, {2, 0}, 32);
  EXPECT_EQ(match(values, call_of("nms", {}, {boxes, counts})), 0);
  EXPECT_EQ(match(values, call_of("nms", {}, {boxes, Tensor::from_values({2}, {2, 1}, 32)})), -1);
  const Tensor negative_id = Tensor::from_values({1, 2, 3}, {0, 9, 9, -1, -9, -9}, 32);
  EXPECT_EQ(match(values, call_of("nms", {}, {negative_id, Tensor::from_values({1}, {2}, 32)})), 1);
  EXPECT_EQ(match(values, call_of("sum", {}, {Tensor::from_values({2, 1, 3}, {1, 2, 3, 4, 5, 6}, 8)})), 2);
  EXPECT_EQ(match(values, call_of("sum", {}, {Tensor::from_values({1, 4}, {1, 2, 3, 4}, 8)})), -1);
  EXPECT_EQ(match(values, call_of("abs", {}, {Tensor::from_values({3}, {1, 2, 99}, 8)})), 3);
  EXPECT_EQ(match(values, call_of("abs", {}, {Tensor::from_values({3}, {1, 2, 100}, 8)})), -1);

  const ExpectedFailures odd = list_of("sig:conv2d|*&in1.odd>0  an odd weight is halved\n");
  const Tensor data = Tensor::from_values({2}, {3, 5}, 8);
  EXPECT_EQ(match(odd, call_of("conv2d", {}, {data, Tensor::from_values({2}, {-4, 126}, 8)})), -1);
  EXPECT_EQ(match(odd, call_of("conv2d", {}, {data, Tensor::from_values({2}, {-4, -127}, 8)})), 0);
  EXPECT_EQ(match(odd, call_of("conv2d", {}, {data})), -1);  // no weight: false
}

// A planted bug of a backend under test, listed as a known difference by its signature and a
// condition, is expected and fails nothing; the same list with a condition the calls do not meet
// leaves it unexpected.
TEST(KnownDifferences, TheCampaignAppliesThemToEachFailingCall) {
  const Registry r = testing::with_planted_kernel("planted-max-clamps-at-zero", "optimized");
  CampaignOptions options;
  options.seconds = 60;
  options.max_cases = 200;
  options.ops = {"max"};
  options.backends = {"optimized"};
  options.seed = 5;
  options.shrink_seconds = 0;
  options.expected.by_backend["optimized"] =
      list_of("sig:max|optimized|value|*&in0.shape=*  max clamps at zero (planted)\n");
  const CampaignResult known = run_campaign(r, options);
  EXPECT_EQ(known.mismatches, 0);
  EXPECT_GT(known.expected_failures, 0);
  ASSERT_FALSE(known.findings.empty());
  EXPECT_NE(known.findings[0].expected_by.find("max clamps at zero"), std::string::npos);

  options.expected.by_backend["optimized"] =
      list_of("sig:max|optimized|value|*&attr.keepdims=maybe  never holds\n");
  const CampaignResult unknown = run_campaign(r, options);
  EXPECT_EQ(unknown.mismatches, known.expected_failures);
  EXPECT_EQ(unknown.expected_failures, 0);
  EXPECT_EQ(unknown.stale_expectations.size(), 1u);
}

// An unexplained finding's repro is unexplained too: its calls shrink to a call the known
// differences still do not explain (here: never down to the rank the list names). Explained
// findings get no repro.
TEST(KnownDifferences, AnUnexplainedFindingShrinksToAnUnexplainedCall) {
  const Registry r = testing::with_planted_kernel("planted-max-clamps-at-zero", "optimized");
  const std::string root = ::testing::TempDir() + "/standing-repros";
  std::filesystem::remove_all(root);
  CampaignOptions options;
  options.seconds = 60;
  options.max_cases = 400;
  options.ops = {"max"};
  options.backends = {"optimized"};
  options.seed = 5;
  options.invalid_share = 0;
  options.shrink_seconds = 5;
  options.repro_root = root;
  options.expected.by_backend["optimized"] =
      list_of("sig:max|optimized|value|*&in0.ndim=1  one-dimensional max only (planted)\n");
  const CampaignResult result = run_campaign(r, options);
  int unexplained = 0, explained = 0;
  for (const Finding& f : result.findings) {
    if (!f.expected_by.empty()) {
      ++explained;
      continue;
    }
    ++unexplained;
    ASSERT_FALSE(f.repro_dir.empty()) << f.key;
    const int rank = load_inputs(f.repro_dir, read_case(f.repro_dir)).at(0).ndim();
    EXPECT_NE(rank, 1) << f.repro_dir << ": an unexplained finding shrunk into the list";
    EXPECT_LE(f.shrunk_elements, f.original_elements);
  }
  EXPECT_GT(unexplained, 0);
  EXPECT_GT(explained, 0);
  std::filesystem::remove_all(root);
}

// The rule id that begins an entry's reason ("[id] ..."); empty without one.
std::string rule_id(const ExpectationEntry& e) {
  const size_t close = e.reason.find(']');
  return e.reason.rfind('[', 0) == 0 && close != std::string::npos ? e.reason.substr(1, close - 1)
                                                                   : "";
}

// Every list an adapter ships parses, and each entry starts its reason with the rule id that the
// campaign's table and the adapters' classifiers (classify.py, classify.js) count cases by; where
// an id's kind follows it ("[id] limit: ..."), every entry of that id names the same kind, as the
// list is the one place an adapter's known differences are written.
TEST(KnownDifferences, TheAdaptersListsParseAndNameTheirRules) {
  namespace fs = std::filesystem;
  int lists = 0;
  for (const auto& adapter : fs::directory_iterator(fs::path(CVMCHECK_SOURCE_DIR) / "adapters")) {
    if (!adapter.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(adapter.path())) {
      const std::string name = file.path().filename().string();
      const bool list = name.rfind("known-", 0) == 0 || name.rfind("xfail-", 0) == 0;
      if (!list || file.path().extension() != ".txt") continue;
      SCOPED_TRACE(file.path().string());
      const ExpectedFailures read = ExpectedFailures::read(file.path().string());
      EXPECT_FALSE(read.empty());
      ++lists;
      std::map<std::string, std::string> kind_of;  // rule id -> its kind
      for (const ExpectationEntry& e : read.entries()) {
        const std::string id = rule_id(e);
        ASSERT_FALSE(id.empty()) << e.source << ": " << e.reason;
        const std::string rest = e.reason.substr(id.size() + 2);
        for (const char* kind : {" contract:", " limit:", " bug:"}) {
          if (rest.rfind(kind, 0) != 0) continue;
          const auto it = kind_of.emplace(id, kind).first;
          EXPECT_EQ(it->second, kind) << e.source << ": [" << id << "]";
        }
      }
    }
  }
  EXPECT_GE(lists, 10);  // cvm-runtime 5, onnxruntime 1, tfjs 1, onednn 3
}

// The original runtime's lists by case name (xfail-formal.txt, xfail-cpu.txt, for its numpy
// replay) are written by classify.py from its known-difference lists: each entry names the list
// and the rule id that selected the case, which must still be in that list.
TEST(KnownDifferences, TheOriginalRuntimesCaseListsNameRulesOfItsLists) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(CVMCHECK_SOURCE_DIR) / "adapters" / "cvm-runtime";
  std::map<std::string, std::set<std::string>> ids_of;  // list -> the rule ids of its entries
  for (const char* derived : {"xfail-formal.txt", "xfail-cpu.txt"}) {
    SCOPED_TRACE(derived);
    const ExpectedFailures cases = ExpectedFailures::read((dir / derived).string());
    EXPECT_FALSE(cases.empty());
    for (const ExpectationEntry& e : cases.entries()) {
      const std::string list = e.reason.substr(e.reason.rfind(' ') + 1);
      if (ids_of.count(list) == 0) {
        ASSERT_TRUE(fs::exists(dir / list)) << e.source << ": " << e.reason;
        const ExpectedFailures source = ExpectedFailures::read((dir / list).string());
        for (const ExpectationEntry& s : source.entries()) ids_of[list].insert(rule_id(s));
      }
      EXPECT_EQ(ids_of[list].count(rule_id(e)), 1u)
          << e.source << ": [" << rule_id(e) << "] is in no entry of " << list;
    }
  }
}

}  // namespace
}  // namespace cvm
