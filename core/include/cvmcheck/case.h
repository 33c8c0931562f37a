// The one case format (docs/case-format.md): a directory holding case.json and .npy files.
//   {"op": "sum", "attrs": {"axis": "(1,)"},
//    "inputs": [{"file": "input_0.npy", "precision": 8}],
//    "expect": {"outcome": "ok", "outputs": [{"file": "output_0.npy", "precision": 10}]}}
// "expect" is optional; it may instead be {"outcome": "logic_error"} or {"outcome":
// "runtime_error"}, and a logic_error may name the one rule the case breaks: {"outcome":
// "logic_error", "rule": "sum.axis_out_of_range"} (docs/contract.md, "Rule ids"). Golden fixtures,
// crash repros and corpus exports all use it.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cvmcheck/compare.h"
#include "cvmcheck/registry.h"

namespace cvm {

// The case directory itself is unusable (no case.json, bad JSON, missing keys or files).
// Distinct from the contract's error classes: it is not an operator outcome.
class CaseFileError : public std::runtime_error {
 public:
  explicit CaseFileError(const std::string& what) : std::runtime_error(what) {}
};

struct TensorFile {
  std::string file;
  int precision = 0;
};

struct CaseExpect {
  OutcomeKind outcome = OutcomeKind::kOk;
  std::vector<TensorFile> outputs;
  // logic_error only, optional: the id of the one rule the case breaks. A backend that reports a
  // rule id must report this one; one that reports none is judged by the class.
  std::string rule;
};

struct CaseSpec {
  std::string op;
  nlohmann::json attrs = nlohmann::json::object();
  std::vector<TensorFile> inputs;
  std::optional<CaseExpect> expect;
  std::string note;  // optional free text ("note" key), e.g. the rule a negative case breaks
};

CaseSpec parse_case_json(const nlohmann::json& json);  // CaseFileError
nlohmann::json case_json(const CaseSpec& spec);
CaseSpec read_case(const std::string& dir);              // CaseFileError

// Loads the inputs. A missing file is a CaseFileError; a malformed .npy is a LogicError (bad
// input), which the runner reports as a logic_error outcome.
std::vector<Tensor> load_inputs(const std::string& dir, const CaseSpec& spec);

// Writes a case directory: case.json, input_K.npy and, when `expect` is given, its outputs
// as output_K.npy (and for a logic_error its rule, when not empty). Creates `dir`. RuntimeError
// if it cannot write.
void write_case(const std::string& dir, const std::string& op, const nlohmann::json& attrs,
                const std::vector<Tensor>& inputs, const std::optional<Outcome>& expect,
                const std::string& note = "");

// The outcome a case expects, its outputs loaded. CaseFileError when an output is unreadable:
// the case is damaged, which is never a result of a backend.
Outcome load_expected(const std::string& dir, const CaseExpect& expect);

// What running a case on one backend gave (harness/engine/verdict.h, judge_case, runs and judges it).
struct CaseResult {
  Outcome outcome;
  std::optional<bool> matches;        // set when the case has "expect"
  std::optional<Difference> difference;
};

}  // namespace cvm
