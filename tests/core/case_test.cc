// The case format: every example of every operator is written as a case directory, read back
// and run, in process and through the real `cvmcheck run` binary.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "registry/registry.h"
#include "cvmcheck/case.h"
#include "harness/engine/verdict.h"
#include "cvmcheck/errors.h"
#include "cvmcheck/npy.h"
#include "support/call.h"
#include "support/paths.h"

namespace cvm {
namespace {
namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("cvmcheck_case_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  return dir;
}

// Writes `example` as a case directory whose expectation is the example's.
std::string write_example(const OpInfo& op, const Example& example) {
  const fs::path dir = scratch(op.name + "_" + example.name);
  std::vector<Tensor> inputs;
  for (const ExampleTensor& t : example.inputs) inputs.push_back(to_tensor(t));
  Outcome expect;
  expect.kind = example.outcome;
  for (const ExampleTensor& t : example.outputs) expect.outputs.push_back(to_tensor(t));
  write_case(dir.string(), op.name, parse_attrs_json(example.attrs_json), inputs, expect);
  return dir.string();
}

TEST(CaseFormat, EveryExampleRoundTripsThroughACaseDirectory) {
  int cases = 0;
  for (const OpInfo& op : registry().ops()) {
    for (const Example& example : op.examples) {
      const std::string dir = write_example(op, example);
      const CaseResult result = judge_case(registry(), dir, "reference");
      ASSERT_TRUE(result.matches.has_value());
      EXPECT_TRUE(*result.matches) << dir << ": "
                                   << (result.difference ? result.difference->what : "");
      ++cases;
    }
  }
  EXPECT_GT(cases, 0);
}

// Runs the real binary; returns its exit status and fills `out` with stdout.
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

TEST(Cli, RunsOneWorkedAndOneRuleBreakingCasePerOperator) {
  for (const OpInfo& op : registry().ops()) {
    for (OutcomeKind kind : {OutcomeKind::kOk, OutcomeKind::kLogicError}) {
      for (const Example& example : op.examples) {
        if (example.outcome != kind) continue;
        std::string out;
        const std::string dir = write_example(op, example);
        ASSERT_EQ(run_cli("run " + dir, out), 0) << op.name << " " << example.name << ": " << out;
        const auto report = nlohmann::json::parse(out);
        EXPECT_EQ(report["outcome"], outcome_name(kind)) << op.name << " " << example.name;
        EXPECT_EQ(report["matches"], true) << op.name << " " << example.name;
        break;
      }
    }
  }
}

TEST(Cli, MismatchExitsOneAndUnreadableExitsTwo) {
  const OpInfo& sum = registry().op("sum");
  const Example& worked = sum.examples.front();
  const std::string dir = write_example(sum, worked);
  // Expect a logic_error from a case that succeeds: a mismatch.
  std::ofstream(dir + "/case.json") << R"({"op": "sum", "attrs": )" << worked.attrs_json
                                    << R"(, "inputs": [{"file": "input_0.npy", "precision": 8}],
                                        "expect": {"outcome": "logic_error"}})";
  std::string out;
  EXPECT_EQ(run_cli("run " + dir, out), 1) << out;
  EXPECT_EQ(run_cli("run /nonexistent/case", out), 3);  // an unreadable case
  EXPECT_EQ(run_cli("run " + dir + " --backend nonexistent", out), 2);
  EXPECT_EQ(run_cli("frobnicate", out), 2);
}

// A damaged .npy is the case's fault (exit 3, no outcome), never the backend's logic_error; a
// well-formed .npy whose shape breaks the tensor limits is a bad input like any other.
TEST(Cli, DamagedNpyInputIsACaseErrorNotAnOutcome) {
  const OpInfo& sum = registry().op("sum");
  const std::string dir = write_example(sum, sum.examples.front());
  std::ofstream(dir + "/input_0.npy") << "not an npy file";
  std::string out;
  EXPECT_EQ(run_cli("run " + dir + " --backend optimized", out), 3) << out;
  EXPECT_THROW(judge_case(registry(), dir, "optimized"), CaseFileError);
  const std::string good = to_npy(Tensor::zeros(DType::kInt32, {2, 3}, 8));
  std::ofstream(dir + "/input_0.npy", std::ios::binary) << good.substr(0, good.size() - 1);
  EXPECT_THROW(judge_case(registry(), dir, "optimized"), CaseFileError) << "truncated data";
}

TEST(Cli, NpyInputOverTheTensorLimitsIsALogicErrorOutcome) {
  const OpInfo& sum = registry().op("sum");
  const std::string dir = write_example(sum, sum.examples.front());
  // A well-formed header with 7 dims: the contract's rank limit, checked before any data.
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1), }";
  header.resize(118, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) +
                      '\0' + header + std::string(4, '\0');
  std::ofstream(dir + "/input_0.npy", std::ios::binary) << bytes;
  std::string out;
  ASSERT_EQ(run_cli("run " + dir, out), 1) << out;  // the expectation (ok) no longer holds
  EXPECT_EQ(nlohmann::json::parse(out)["outcome"], "logic_error");
}

TEST(Cli, OpsListsEveryOperatorFirstOnItsLine) {
  std::string out;
  ASSERT_EQ(run_cli("ops", out), 0);
  std::set<std::string> listed;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) listed.insert(line.substr(0, line.find(' ')));
  std::set<std::string> names;
  for (const OpInfo& op : registry().ops()) names.insert(op.name);
  EXPECT_EQ(listed, names);
}

TEST(CaseFormat, RejectsBrokenCaseJson) {
  using nlohmann::json;
  for (const json& broken : {json::array(), json{{"op", 1}, {"inputs", json::array()}},
                             json{{"op", "sum"}}, json{{"op", "sum"}, {"inputs", json::array()}, {"x", 1}},
                             json{{"op", "sum"}, {"inputs", {{{"file", "../a.npy"}, {"precision", 8}}}}},
                             json{{"op", "sum"}, {"inputs", json::array()}, {"expect", {{"outcome", "maybe"}}}},
                             json{{"op", "sum"}, {"inputs", json::array()}, {"expect", {{"outcome", "ok"}}}}}) {
    EXPECT_THROW(parse_case_json(broken), CaseFileError) << broken.dump();
  }
}

}  // namespace
}  // namespace cvm
