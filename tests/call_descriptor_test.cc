// The call descriptor (harness/engine/call_descriptor.h, docs/call-descriptor.md): print -> parse ->
// print is the identity and parse(print(call)) is the call, for calls drawn from every
// operator's valid and invalid generators; malformed text is a clear LogicError, never a crash;
// large tensors from the value generator print compactly; `cvmcheck run --call` replays a
// descriptor, and findings print theirs.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <set>

#include "registry/registry.h"
#include "cvmcheck/case.h"
#include "cvmcheck/errors.h"
#include "support/planted_registry.h"
#include "harness/engine/call_descriptor.h"
#include "harness/gen/fuzz_input.h"
#include "harness/campaign/campaign.h"
#include "harness/campaign/campaign_json.h"
#include "harness/campaign/campaign_report.h"
#include "harness/gen/generators.h"
#include "harness/planted/planted.h"
#include "harness/engine/property.h"
#include "harness/engine/verdict.h"
#include "ops/schema.h"
#include "optimized/kernels.h"
#include "reference/kernels.h"
#include "support/paths.h"

namespace cvm {
namespace {

// Why two calls differ, or empty when they are the same call: op, attrs, every input bit for bit
// with dtype, shape and precision, expected class, rule and rule id.
std::string call_difference(const Call& a, const Call& b) {
  if (a.op != b.op) return "op " + a.op + " vs " + b.op;
  if (a.attrs != b.attrs) return "attrs " + a.attrs.dump() + " vs " + b.attrs.dump();
  if (a.inputs.size() != b.inputs.size()) return "input count";
  for (size_t k = 0; k < a.inputs.size(); ++k) {
    if (!a.inputs[k].identical(b.inputs[k])) return "input " + std::to_string(k);
  }
  if (a.expected != b.expected) return "expected class";
  if (a.rule != b.rule) return "rule " + a.rule + " vs " + b.rule;
  if (a.rule_id != b.rule_id) return "rule_id " + a.rule_id + " vs " + b.rule_id;
  return "";
}

bool printable_line(const std::string& text) {
  for (char c : text) {
    if (c < 0x20 || c > 0x7e || c == '\'') return false;
  }
  return true;
}

// Backend names as a descriptor may carry them: built-in, variants, and external commands with
// spaces and quotes.
const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out{"", "exec:python3 worker_sdk/python/example_worker.py --x 'a b'",
                                 "exec:./w\"q\""};
    for (const Backend& b : registry().backends()) out.push_back(b.name);
    return out;
  }();
  return names;
}

// One round trip: the checks of the property, as RapidCheck assertions.
void check_round_trip(const Call& call) {
  const std::string backend = *rc::gen::elementOf(backend_names());
  const int threads = *rc::gen::element(0, 1, 3, 64);
  const std::string text = format_call_descriptor(call, backend, threads);
  RC_ASSERT(printable_line(text));
  CallDescriptor parsed;
  try {
    parsed = parse_call_descriptor(text);
  } catch (const std::exception& e) {
    RC_FAIL(std::string("parse failed: ") + e.what() + "\n" + text);
  }
  const std::string difference = call_difference(call, parsed.call);
  if (!difference.empty()) RC_FAIL(difference + "\n" + text);
  RC_ASSERT(parsed.backend == backend);
  RC_ASSERT(parsed.threads == threads);
  RC_ASSERT(format_call_descriptor(parsed) == text);
}

constexpr int kCasesValid = 40;
constexpr int kCasesPerRule = 8;

class DescriptorRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(DescriptorRoundTrip, EveryGeneratorsCallsPrintParsePrint) {
  const OpGenerators* gens = generators_for(registry().op(GetParam()));
  ASSERT_NE(gens, nullptr) << GetParam() << " has no generator record";
  const PropertyVerdict valid = check_property(
      GetParam() + "/valid/descriptor", [&] { check_round_trip(*gens->valid); },
      {property_cases(kCasesValid)});
  EXPECT_TRUE(valid.passed) << valid.message;
  ASSERT_FALSE(gens->invalid.empty());
  for (const InvalidGenerator& rule : gens->invalid) {
    const PropertyVerdict verdict = check_property(
        GetParam() + "/" + rule.rule + "/descriptor", [&] { check_round_trip(*rule.gen); },
        {kCasesPerRule});
    EXPECT_TRUE(verdict.passed) << rule.rule << ": " << verdict.message;
  }
}

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const OpInfo& op : registry().ops()) names.push_back(op.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllOps, DescriptorRoundTrip, ::testing::ValuesIn(op_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(CallDescriptor, PrintsTheDocumentedSyntax) {
  Call call;
  call.op = "sum";
  call.attrs = {{"axis", "(1,)"}, {"keepdims", "it's"}};
  call.inputs.push_back(Tensor::from_values({2, 3}, {1, -2, 0, 0, 0, 127}, 8, DType::kInt8));
  call.inputs.push_back(Tensor::from_values({2}, {5, 5}, 33));
  call.expected = OutcomeKind::kLogicError;
  call.rule = "precision_out_of_range";
  call.rule_id = "global.precision_range";
  EXPECT_EQ(format_call_descriptor(call, "optimized/avx2", 4),
            "op=sum attrs={\"axis\":\"(1,)\",\"keepdims\":\"it\\u0027s\"} "
            "in0=i8:2x3:p8:[1,-2,0*3,127] in1=i32:2:p33:[5,5] expect=logic_error "
            "rule=precision_out_of_range rule_id=global.precision_range backend=optimized/avx2 "
            "threads=4");
  const std::string external = format_call_descriptor(call, "exec:w --a 'b'", 0);
  EXPECT_NE(external.find(" backend=\"exec:w --a \\u0027b\\u0027\""), std::string::npos)
      << external;
  EXPECT_EQ(parse_call_descriptor(external).backend, "exec:w --a 'b'");
  // Hand-written text may be non-canonical (any order, more spaces, rand for a small tensor,
  // attrs left out); it prints canonically.
  EXPECT_EQ(format_call_descriptor(parse_call_descriptor(
                "  threads=2   backend=optimized in0=i32:3:p8:rand(9,4,4) op=relu  ")),
            "op=relu attrs={} in0=i32:3:p8:[4*3] backend=optimized threads=2");
}

TEST(CallDescriptor, NonStringAndNonAsciiAttributesRoundTrip) {
  Call call;
  call.op = "sum";
  call.attrs = nlohmann::json::parse(
      R"({"axis": 1, "b": [true, null, -0.0, 1.5e300, 18446744073709551615], "c": "a b\n\u00e9\u0001\u007f'", "d": {"x": "]}"}})");
  call.inputs.push_back(Tensor::from_values({1}, {0}, 1));
  const std::string text = format_call_descriptor(call, "reference", 0);
  EXPECT_TRUE(printable_line(text)) << text;
  const CallDescriptor parsed = parse_call_descriptor(text);
  EXPECT_EQ(call_difference(call, parsed.call), "") << text;
  EXPECT_EQ(format_call_descriptor(parsed), text);
  // An attribute object that is not an object (a broken negative call) is described as it is.
  call.attrs = "(1,)";
  EXPECT_EQ(parse_call_descriptor(format_call_descriptor(call, "", 0)).call.attrs, call.attrs);
}

TEST(CallDescriptor, InvalidUtf8AttributesAreAClearErrorNotACrash) {
  Call call;
  call.op = "sum";
  call.attrs = {{"axis", std::string("\xff\xfe")}};
  try {
    format_call_descriptor(call, "reference", 0);
    FAIL() << "no error";
  } catch (const LogicError& e) {
    EXPECT_NE(std::string(e.what()).find("call descriptor: the attributes"), std::string::npos)
        << e.what();
  }
  std::string why;
  EXPECT_FALSE(compact_call_descriptor(call, "reference", &why).has_value());
  EXPECT_NE(why.find("attributes"), std::string::npos) << why;
}

// Each malformed descriptor is a LogicError whose message starts "call descriptor: " and says
// what is wrong.
TEST(CallDescriptor, MalformedTextIsAClearLogicError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "no op= field"},
      {"   ", "no op= field"},
      {"attrs={}", "no op= field"},
      {"sum", "is not a field"},
      {"op=sum in0", "is not a field"},
      {"op=", "empty value"},
      {"op= attrs={}", "empty value"},
      {"op=sum op=sum", "given twice"},
      {"op=sum colour=red", "unknown field 'colour'"},
      {"op=sum\n", "a newline"},
      {"op=sum attrs={\"a\":\"\xc3\xa9\"}", "not printable ASCII"},
      {"op=s'um", "has the character '''"},
      {"op=\"sum", "unterminated JSON value (an open string)"},
      {"op=sum attrs={\"axis\":\"(1,)\"", "unterminated JSON value (unbalanced brackets)"},
      {"op=sum attrs={\"axis\":}", "attrs: not JSON"},
      {"op=sum attrs={}x", "unexpected 'x' after the value"},
      {"op=sum in0=i16:2:p8:[1,2]", "dtype 'i16' is neither i8 nor i32"},
      {"op=sum in0=i32:2:p8", "expected DTYPE:SHAPE:pPRECISION:VALUES"},
      {"op=sum in0=i32:2:p8:[1,2]:x", "expected DTYPE:SHAPE:pPRECISION:VALUES"},
      {"op=sum in0=i32:2x0:p8:[]", "out of range [1, 2147483647]"},
      {"op=sum in0=i32:2xx3:p8:[1]", "expected an integer, got ''"},
      {"op=sum in0=i32:1x1x1x1x1x1x1:p8:[1]", "in0: tensor"},
      {"op=sum in0=i32:16777217:p8:[0*16777217]", "in0: tensor"},
      {"op=sum in0=i32:99999999999999999999:p8:[1]", "out of range"},
      {"op=sum in0=i32:2:8:[1,2]", "expected the precision as pN"},
      {"op=sum in0=i32:2:px:[1,2]", "expected an integer, got 'x'"},
      {"op=sum in0=i32:3:p8:[1,2]", "2 values for the shape's 3 elements"},
      {"op=sum in0=i32:2:p8:[1,2,3]", "more values than the shape's 2 elements"},
      {"op=sum in0=i32:2:p8:[1*3]", "more values than the shape's 2 elements"},
      {"op=sum in0=i32:2:p8:[1*0,1,1]", "run length: 0 is out of range"},
      {"op=sum in0=i32:2:p8:[1*99999999999999999999]", "run length"},
      {"op=sum in0=i32:2:p8:[1,,2]", "expected an integer, got ''"},
      {"op=sum in0=i32:2:p8:[1,2", "expected the values as"},
      {"op=sum in0=i32:2:p8:1,2", "expected the values as"},
      {"op=sum in0=i32:2:p8:[2147483648,0]", "2147483648 is out of range"},
      {"op=sum in0=i8:2:p8:[128,0]", "128 is out of range [-128, 127]"},
      {"op=sum in0=i32:2:p8:[0x10,0]", "expected an integer"},
      {"op=sum in0=i32:2:p8:rand(1,2)", "expected rand(SEED,LO,HI)"},
      {"op=sum in0=i32:2:p8:rand(1,2,3", "expected rand(SEED,LO,HI)"},
      {"op=sum in0=i32:2:p8:rand(-1,2,3)", "expected a seed"},
      {"op=sum in0=i32:2:p8:rand(18446744073709551616,2,3)", "is not below 2^64"},
      {"op=sum in0=i32:2:p8:rand(1,5,3)", "rand LO 5 is above HI 3"},
      {"op=sum in0=i8:2:p8:rand(1,-5,300)", "rand HI: 300 is out of range"},
      {"op=sum in0=i32:-:p8:[1]", "a tensor without a shape"},
      {"op=sum in1=i32:1:p8:[1]", "there are only 1 inputs"},
      {"op=sum in0=i32:1:p8:[1] in2=i32:1:p8:[1]", "there are only 2 inputs"},
      {"op=sum in01=i32:1:p8:[1]", "no leading zeros"},
      {"op=sum in0=i32:1:p8:[1] in0=i32:1:p8:[1]", "given twice"},
      {"op=sum expect=maybe", "expect: 'maybe' is none of"},
      {"op=sum threads=0", "threads: 0 is out of range"},
      {"op=sum threads=two", "threads: expected an integer"},
      {"op=sum backend=exec:a b", "is not a field"},
      {"op=sum backend=\"exec:a\\x\"", "backend: not a JSON string"},
  };
  for (const auto& [text, expected] : cases) {
    try {
      parse_call_descriptor(text);
      ADD_FAILURE() << "no error for: " << text;
    } catch (const LogicError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("call descriptor: ", 0), 0u) << message;
      EXPECT_NE(message.find(expected), std::string::npos)
          << "for: " << text << "\n  got: " << message << "\n  wanted: " << expected;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a LogicError for: " << text << ": " << e.what();
    }
  }
}

// Random damage to valid descriptors (cut, flipped, inserted and deleted bytes) parses or gives a
// LogicError: never another exception, never a crash (the sanitizer build checks the rest).
TEST(CallDescriptor, DamagedDescriptorsNeverCrash) {
  std::mt19937_64 rng(20240917);
  const std::vector<std::string> seeds = {
      "op=sum attrs={\"axis\":\"(1,)\",\"keepdims\":\"true\"} in0=i8:2x3:p8:[1,-2,0*3,127] "
      "expect=ok backend=optimized/avx2 threads=4",
      "op=conv2d attrs={\"channels\":\"2\",\"kernel_size\":\"(1, 1)\"} in0=i32:1x1x2x2:p8:[1*4] "
      "in1=i32:2x1x1x1:p8:rand(5,-3,3) backend=\"exec:a b\"",
  };
  const std::string alphabet = "=:[](),*x-\"{}pi0123456789 abc\\";
  int parsed = 0, rejected = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text = seeds[round % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0: text.erase(at, 1); break;
        case 1: text[at] = alphabet[rng() % alphabet.size()]; break;
        case 2: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        default: text.resize(at); break;
      }
    }
    try {
      const CallDescriptor d = parse_call_descriptor(text);
      ++parsed;
      // Whatever parses prints canonically, and that prints again the same.
      const std::string canonical = format_call_descriptor(d);
      EXPECT_EQ(format_call_descriptor(parse_call_descriptor(canonical)), canonical) << text;
    } catch (const LogicError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("call descriptor: ", 0), 0u) << text << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a LogicError for: " << text << ": " << e.what();
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

TEST(ValueGenerator, IsSplitmix64AndFixed) {
  // Pinned: a descriptor written today must give the same tensor tomorrow.
  const ValueGenerator gen{42, -100, 100};
  std::vector<int32_t> first;
  for (int64_t i = 0; i < 6; ++i) first.push_back(generated_value(gen, i));
  EXPECT_EQ(first, (std::vector<int32_t>{-45, -51, -67, -34, 24, -49}));
  // Both ends of the int32 range, and a one-value range.
  const ValueGenerator wide{7, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
  const ValueGenerator one{7, 5, 5};
  for (int64_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(generated_value(one, i), 5);
    (void)generated_value(wide, i);
  }
  EXPECT_THROW(generated_tensor(DType::kInt8, {4}, 8, ValueGenerator{1, -200, 0}), LogicError);
  EXPECT_THROW(generated_tensor(DType::kInt32, {4}, 8, ValueGenerator{1, 3, 2}), LogicError);
}

// A large tensor from the value generator prints as rand(SEED,LO,HI): a short line that gives
// back exactly the same tensor.
TEST(CallDescriptor, LargeGeneratedTensorsUseTheGeneratorForm) {
  Call call;
  call.op = "elemwise_add";
  const ValueGenerator a{123456789, -127, 127}, b{18446744073709551615ULL, -128, 127};
  call.inputs.push_back(generated_tensor(DType::kInt32, {64, 1024}, 8, a));
  call.inputs.push_back(generated_tensor(DType::kInt8, {64, 1024}, 8, b));
  const std::string text = format_call_descriptor(call, "optimized", 2);
  EXPECT_EQ(text,
            "op=elemwise_add attrs={} in0=i32:64x1024:p8:rand(123456789,-127,127) "
            "in1=i8:64x1024:p8:rand(18446744073709551615,-128,127) backend=optimized threads=2");
  const CallDescriptor parsed = parse_call_descriptor(text);
  EXPECT_EQ(call_difference(call, parsed.call), "");
  for (int64_t i = 0; i < parsed.call.inputs[0].size(); i += 997) {
    EXPECT_EQ(parsed.call.inputs[0].get(i), generated_value(a, i));
  }
  EXPECT_EQ(format_call_descriptor(parsed), text);
  EXPECT_TRUE(compact_call_descriptor(call, "optimized").has_value());

  // One value changed: no longer the generator's tensor, so it is printed inline (exactly), and
  // that is too long for a compact line, which says why.
  Tensor changed = call.inputs[0];
  changed.set(5, changed.get(5) == 0 ? 1 : 0);
  call.inputs[0] = changed;
  const std::string full = format_call_descriptor(call, "optimized", 0);
  EXPECT_EQ(full.find("in0=i32:64x1024:p8:rand("), std::string::npos);
  EXPECT_EQ(call_difference(call, parse_call_descriptor(full).call), "");
  std::string why;
  EXPECT_FALSE(compact_call_descriptor(call, "optimized", &why).has_value());
  EXPECT_NE(why.find("replay its case directory"), std::string::npos) << why;

  // A bounded descriptor stops at the bound: four million arbitrary values are not printed in
  // full to find out that they do not fit.
  std::vector<int32_t> ramp(1 << 22);
  for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<int32_t>(i % 1000);
  call.inputs = {Tensor::from_values({1 << 22}, ramp, 10)};
  EXPECT_FALSE(compact_call_descriptor(call, "optimized", &why).has_value());
  EXPECT_NE(why.find("4194304 input elements"), std::string::npos) << why;

  // Runs of one value compress, whatever the size.
  call.inputs = {Tensor::zeros(DType::kInt32, {1 << 20}, 1)};
  EXPECT_EQ(format_call_descriptor(call, "", 0), "op=elemwise_add attrs={} in0=i32:1048576:p1:[0*1048576]");
  // A small generated tensor is inline: the printer's form depends on the values alone.
  call.inputs = {generated_tensor(DType::kInt32, {3}, 8, ValueGenerator{1, 0, 0})};
  EXPECT_EQ(format_call_descriptor(call, "", 0), "op=elemwise_add attrs={} in0=i32:3:p8:[0*3]");
}

// threads=N records the thread count the process runs the optimized kernels with (the ISA
// variants too); a thread variant's name fixes its own, and the reference has none.
TEST(CallDescriptor, RecordsTheOptimizedBackendsThreads) {
  registry();  // installs the query
  Call call;
  call.op = "relu";
  call.inputs.push_back(Tensor::from_values({1}, {3}, 8));
  const std::string threads = " threads=" + std::to_string(opt::threads());
  const std::string text = format_call_descriptor(call, "optimized");
  EXPECT_EQ(text.substr(text.size() - threads.size()), threads) << text;
  EXPECT_EQ(parse_call_descriptor(text).threads, opt::threads());
  // The variants fix their own teams (the ISA variants two, optimized@3 three).
  for (const std::string backend : {"optimized/portable", "optimized@3", "reference", "cuda-host"}) {
    EXPECT_EQ(format_call_descriptor(call, backend).find(" threads="), std::string::npos);
  }
}

// ---- findings and the command line ----------------------------------------------------------

int run_cli(const std::string& args, std::string& out) {
  const std::string command = std::string(CVMCHECK_BINARY) + " " + args + " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  out.clear();
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

using testing::registry_with;

TEST(RunCall, ExitStatusesAsRunDir) {
  std::string out;
  // Shell quoting: the attribute's quote is escaped inside the descriptor.
  const std::string ok =
      "'op=sum attrs={\"axis\":\"(1,)\"} in0=i8:2x3:p8:[1,-2,0*3,127] backend=optimized threads=2'";
  ASSERT_EQ(run_cli("run --call " + ok, out), 0) << out;
  auto report = nlohmann::json::parse(out);
  EXPECT_EQ(report["outcome"], "ok");
  EXPECT_EQ(report["matches"], true);
  EXPECT_EQ(report["backend"], "optimized");
  EXPECT_EQ(report["threads"], 2);
  EXPECT_EQ(report["outputs"][0]["shape"], nlohmann::json::array({2}));
  // --backend overrides the descriptor's.
  ASSERT_EQ(run_cli("run --call " + ok + " --backend optimized@3", out), 0) << out;
  EXPECT_EQ(nlohmann::json::parse(out)["backend"], "optimized@3");
  // A rule-breaking call with a quote in its attribute: both give logic_error, which matches.
  Call bad;
  bad.op = "sum";
  bad.attrs = {{"axis", "it's"}};
  bad.inputs.push_back(Tensor::from_values({2}, {1, 2}, 8));
  bad.expected = OutcomeKind::kLogicError;
  ASSERT_EQ(run_cli("run --call '" + format_call_descriptor(bad, "optimized", 0) + "'", out), 0)
      << out;
  EXPECT_EQ(nlohmann::json::parse(out)["outcome"], "logic_error");
  // The expectation is part of the call: the oracle must give it.
  bad.expected = OutcomeKind::kOk;
  EXPECT_EQ(run_cli("run --call '" + format_call_descriptor(bad, "optimized", 0) + "'", out), 1)
      << out;
  EXPECT_EQ(run_cli("run --call 'op=sum in0=i32:3:p8:[1]'", out), 3);  // malformed: unreadable
  EXPECT_EQ(run_cli("run", out), 2);
  EXPECT_EQ(run_cli("run --call " + ok + " --backend no-such-backend", out), 2);
}

// A planted bug's campaign finding carries the descriptor of its shrunk repro call; the table
// prints it, the report's __REPRO lines give both forms, and `cvmcheck run --call` replays it
// (the bug on the planted backend, a pass on the reference).
TEST(RunCall, ACampaignFindingsDescriptorReplaysIt) {
  const PlantedBug* bug = nullptr;
  for (const PlantedBug& b : planted_bugs()) {
    if (!b.invalid_calls && bug == nullptr) bug = &b;
  }
  ASSERT_NE(bug, nullptr);
  const auto r = registry_with(*bug);
  const std::string root = ::testing::TempDir() + "/descriptor-repros";
  std::filesystem::remove_all(root);
  CampaignOptions options;
  options.seconds = 120;
  options.max_cases = 2000;
  options.ops = {bug->op};
  options.backends = {bug->backend};
  options.seed = 4242;
  options.invalid_share = 0;
  options.repro_root = root;
  const CampaignResult result = run_campaign(*r, options);
  ASSERT_EQ(result.findings.size(), 1u) << campaign_table(result);
  const Finding& f = result.findings.front();
  ASSERT_FALSE(f.descriptor.empty()) << f.descriptor_note;
  EXPECT_TRUE(printable_line(f.descriptor));
  EXPECT_NE(campaign_table(result, TableStyle::kFull).find("  call: '" + f.descriptor + "'"),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(campaign_json(result))["findings"][0]["descriptor"],
            f.descriptor);
  EXPECT_NE(f.summary.find("descriptor: " + f.descriptor), std::string::npos) << f.summary;
  EXPECT_NE(f.summary.find("__REPRO: cvmcheck run " + f.repro_dir + " --backend " + bug->backend),
            std::string::npos)
      << f.summary;
  EXPECT_NE(f.summary.find("__REPRO: cvmcheck run --call '" + f.descriptor + "'"),
            std::string::npos)
      << f.summary;
  // The descriptor is the saved repro's call, exactly.
  const CallDescriptor parsed = parse_call_descriptor(f.descriptor);
  EXPECT_EQ(parsed.backend, bug->backend);
  const CaseSpec spec = read_case(f.repro_dir);
  Call saved;
  saved.op = spec.op;
  saved.attrs = spec.attrs;
  saved.inputs = load_inputs(f.repro_dir, spec);
  Call from_descriptor = parsed.call;
  from_descriptor.expected.reset();  // the case directory holds the outcome, not the call's class
  from_descriptor.rule.clear();
  from_descriptor.rule_id.clear();
  EXPECT_EQ(call_difference(saved, from_descriptor), "");

  std::string out;
  const std::string env = "CVMCHECK_PLANTED=" + bug->backend + " ";
  const std::string command = std::string(CVMCHECK_BINARY) + " run --call '" + f.descriptor + "'";
  FILE* pipe = ::popen((env + command + " 2>/dev/null").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1) << out;
  EXPECT_EQ(nlohmann::json::parse(out)["matches"], false) << out;
  ASSERT_EQ(run_cli("run --call '" + f.descriptor + "' --backend reference", out), 0) << out;
}

// With several repros per signature, a shrunk call the finding has saved already (the same
// descriptor) is not written again: every repro directory holds a different call.
TEST(RunCall, RepeatedShrunkCallsAreSavedOnce) {
  const PlantedBug& bug = planted_bugs().front();
  const auto r = registry_with(bug);
  const std::string root = ::testing::TempDir() + "/descriptor-dedup";
  std::filesystem::remove_all(root);
  CampaignOptions options;
  options.seconds = 120;
  options.max_cases = 400;
  options.ops = {bug.op};
  options.backends = {bug.backend};
  options.seed = 99;
  options.invalid_share = bug.invalid_calls ? 1.0 : 0.0;
  options.repro_root = root;
  options.repros_per_signature = 20;
  options.shrink_seconds = 1;
  const CampaignResult result = run_campaign(*r, options);
  ASSERT_FALSE(result.findings.empty());
  std::set<std::string> calls;
  int64_t dirs = 0, duplicates = 0;
  for (const Finding& f : result.findings) {
    duplicates += f.duplicate_repros;
    for (const std::string& dir : f.repro_dirs) {
      const CaseSpec spec = read_case(dir);
      Call call;
      call.op = spec.op;
      call.attrs = spec.attrs;
      call.inputs = load_inputs(dir, spec);
      EXPECT_TRUE(calls.insert(f.key + " " + format_call_descriptor(call, "", 0)).second)
          << dir << " repeats a saved call";
      ++dirs;
    }
  }
  std::cout << bug.backend << ": " << dirs << " repros, " << duplicates
            << " shrunk calls not saved again, " << result.mismatches << " failing calls\n";
  EXPECT_GT(dirs, 0);
  EXPECT_LE(dirs, options.max_repros + static_cast<int64_t>(result.findings.size()));
}

}  // namespace
}  // namespace cvm

namespace cvm {
namespace {

// Every call within the fuzz targets' input bound prints a descriptor, however arbitrary its
// values: the compact bound holds kFuzzMaxElements values of the widest text.
TEST(CallDescriptor, EveryCallWithinTheFuzzBoundHasACompactDescriptor) {
  std::vector<int32_t> values(static_cast<size_t>(kFuzzMaxElements));
  for (size_t i = 0; i < values.size(); ++i) {
    const int32_t k = static_cast<int32_t>(i % 7);  // widest text: 11 characters each
    values[i] = i % 2 == 0 ? -2147483647 + k : 2147483647 - k;
  }
  Call call;
  call.op = "abs";
  call.inputs = {Tensor::from_values({kFuzzMaxElements}, values, 32)};
  std::string why;
  const std::optional<std::string> text = compact_call_descriptor(call, "optimized", &why);
  ASSERT_TRUE(text.has_value()) << why;
  EXPECT_EQ(call_difference(call, parse_call_descriptor(*text).call), "");
}

}  // namespace
}  // namespace cvm
