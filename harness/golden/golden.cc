#include "harness/golden/golden.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cvmcheck/case.h"
#include "cvmcheck/compare.h"
#include "harness/engine/call_descriptor.h"
#include "harness/engine/verdict.h"
#include "harness/findings/finding.h"
#include "harness/golden/fixture_files.h"
#include "cvmcheck/errors.h"
#include "cvmcheck/case_seed.h"
#include "harness/gen/generators.h"
#include "harness/jobs/stop_signal.h"
#include "harness/worker_client/exec_backend.h"

namespace cvm {
namespace fs = std::filesystem;

namespace {

// FNV-1a: a stable per-operator seed offset (std::hash is not stable across libraries).
uint64_t stable_hash(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  return h;
}

nlohmann::json example_attrs(const Example& e) {
  try {
    return parse_attrs_json(e.attrs_json);
  } catch (const LogicError&) {
    return e.attrs_json;  // not JSON: kept as text, which is itself a logic_error
  }
}

struct Writer {
  const Registry& registry;
  fs::path root;
  nlohmann::json cases = nlohmann::json::array();
  nlohmann::json omitted = nlohmann::json::array();
  GoldenSummary summary;

  void write(const std::string& op, const std::string& name, const nlohmann::json& attrs,
             const std::vector<Tensor>& inputs, const Outcome& expect, const std::string& note) {
    int64_t input_bytes = 0;
    for (const Tensor& t : inputs) input_bytes += t.size() * (t.dtype() == DType::kInt8 ? 1 : 4);
    if (input_bytes > kGoldenMaxCaseInputBytes) {
      omitted.push_back({{"op", op}, {"name", name}, {"input_bytes", input_bytes},
                         {"reason", "inputs larger than the suite's per-case budget"}});
      ++summary.omitted;
      return;
    }
    const fs::path dir = root / op / name;
    write_case(dir.string(), op, attrs, inputs, expect, note);
    const nlohmann::json files = hash_folder(dir.string(), summary.files, summary.bytes);
    cases.push_back({{"op", op},
                     {"name", name},
                     {"dir", op + "/" + name},
                     {"outcome", outcome_name(expect.kind)},
                     {"files", files}});
    ++summary.cases;
    ++summary.cases_per_op[op];
  }
};

}  // namespace

GoldenSummary generate_golden(const Registry& registry, const GoldenOptions& options) {
  // Values drawn per element through RapidCheck, not by the fast fill (value_fill.h): the
  // published fixtures' bytes and names depend on that draw, and must stay reproducible.
  const gen::ScopedPerElementValues frozen_values;
  const fs::path root(options.out);
  make_empty_output_dir(options.out);
  Writer writer{registry, root};
  for (const OpInfo& op : registry.ops()) {
    // 1. The record's hand-written examples: worked examples and one per validity rule.
    for (const Example& e : op.examples) {
      std::vector<Tensor> inputs;
      for (const ExampleTensor& t : e.inputs) inputs.push_back(to_tensor(t));
      const nlohmann::json attrs = example_attrs(e);
      const Outcome reference = run_op_outcome(registry, kReferenceBackend, op.name, attrs, inputs);
      Outcome expect;
      expect.kind = e.outcome;
      for (const ExampleTensor& t : e.outputs) expect.outputs.push_back(to_tensor(t));
      const auto difference = compare_outcomes(reference, expect, kReferenceBackend, "record");
      check(!difference, op.name, " example ", e.name, ": ", difference ? difference->what : "");
      // A negative example breaks exactly one rule, so the reference's id is that rule's.
      if (expect.kind == OutcomeKind::kLogicError) {
        check(!reference.rule.empty(), op.name, " example ", e.name,
              ": no rule id from the reference");
        expect.rule = reference.rule;
      }
      writer.write(op.name, "example_" + e.name, attrs, inputs, expect, "hand-written example");
    }
    const OpGenerators* gens = generators_for(op);
    if (gens == nullptr) continue;
    const uint64_t base = options.seed ^ stable_hash(op.name);
    // 2. Generated valid calls, sizes spread over the generator's range.
    for (int k = 0; k < options.random_per_op; ++k) {
      const int size = options.random_per_op > 1 ? k * 100 / (options.random_per_op - 1) : 50;
      const Call call = gens->valid(rc::Random(case_seed(base, static_cast<uint64_t>(k))), size).value();
      const Outcome reference = run_op_outcome(registry, kReferenceBackend, call.op, call.attrs, call.inputs);
      check(reference.kind == OutcomeKind::kOk, op.name, " generated valid call ", k, " gave ",
            outcome_name(reference.kind), ": ", reference.message);
      writer.write(op.name, "random_" + std::to_string(k), call.attrs, call.inputs, reference,
                   "generated valid call, seed " + std::to_string(options.seed) + ", size " +
                       std::to_string(size));
    }
    // 3. Generated calls breaking one rule each.
    for (size_t r = 0; r < gens->invalid.size(); ++r) {
      const InvalidGenerator& rule = gens->invalid[r];
      for (int k = 0; k < options.per_rule; ++k) {
        const uint64_t seed = case_seed(base, 1000 + r * 100 + static_cast<uint64_t>(k));
        const Call call = rule.gen(rc::Random(seed), 30).value();
        const Outcome reference =
            run_op_outcome(registry, kReferenceBackend, call.op, call.attrs, call.inputs);
        check(reference.kind == OutcomeKind::kLogicError, op.name, " rule ", rule.rule,
              " gave ", outcome_name(reference.kind), " on the reference");
        check(reference.rule == call.rule_id, op.name, " rule ", rule.rule, " is ", call.rule_id,
              " but the reference raised '", reference.rule, "'");
        const std::string name =
            "invalid_" + rule.rule + (options.per_rule > 1 ? "_" + std::to_string(k) : "");
        writer.write(op.name, name, call.attrs, call.inputs, reference, "breaks " + rule.rule);
      }
    }
  }
  nlohmann::json manifest;
  manifest["format"] = kGoldenFormat;
  manifest["format_version"] = kGoldenFormatVersion;
  manifest["contract_version"] = kContractVersion;
  manifest["generator"] = {{"command", "cvmcheck golden generate"},
                           {"seed", options.seed},
                           {"random_per_op", options.random_per_op},
                           {"per_rule", options.per_rule}};
  manifest["cases"] = writer.cases;
  manifest["omitted"] = writer.omitted;
  std::ofstream out(root / "MANIFEST.json");
  out << manifest.dump(1) << "\n";
  check(out.good(), "cannot write MANIFEST.json");
  return writer.summary;
}

bool GoldenVerifyResult::ok() const {
  for (const GoldenCaseResult& c : cases) {
    if (c.status == "fail" || c.status == "corrupt") return false;
  }
  return true;
}

namespace {

// What an expected-failure entry is matched on for a case run on `backend`: for a failing case
// also its difference's signature and its call (inputs loaded), which sig: selectors and
// conditions need.
FailureFacts golden_failure_facts(const GoldenCaseResult& c, const std::string& dir,
                                  const CaseSpec& spec, const CaseResult& run,
                                  const std::string& backend, Call& call) {
  FailureFacts facts{c.op, c.name, spec.expect ? spec.expect->rule : std::string(), "", nullptr};
  if (run.matches.value_or(false) || !run.difference || !spec.expect) return facts;
  Outcome reference;
  reference.kind = spec.expect->outcome;
  reference.rule = spec.expect->rule;
  facts.signature = difference_signature(c.op, backend, *run.difference, reference, run.outcome);
  call.op = spec.op;
  call.attrs = spec.attrs;
  try {
    call.inputs = load_inputs(dir, spec);
    facts.call = &call;
  } catch (const LogicError&) {
    // Inputs that are no tensors: conditions on them cannot hold.
  }
  return facts;
}

// Runs the case on `backend` and sets `c`'s status; a failing case also gets what the findings
// store keeps of it: its difference's signature, the case directory and the call's descriptor.
void judge_golden_case(const Registry& registry, const std::string& case_dir,
                       const std::string& backend, const ExpectationSet& expected,
                       GoldenCaseResult& c, std::map<const ExpectationEntry*, EntryUse>& uses) {
  try {
    const CaseResult run = judge_case(registry, case_dir, backend);
    const bool matches = run.matches.value_or(false);
    const CaseSpec spec = read_case(case_dir);
    Call call;
    const FailureFacts facts = golden_failure_facts(c, case_dir, spec, run, backend, call);
    const ExpectationEntry* known = expected.match(backend, facts);
    c.status = matches ? (known ? "xpass" : "pass") : (known ? "xfail" : "fail");
    if (known) {
      c.expectation = known->source + ": " + known->reason;
      ++(matches ? uses[known].passes : uses[known].failures);
    }
    if (matches) return;
    if (run.difference) c.detail = run.difference->what;
    c.signature = facts.signature;
    c.case_dir = case_dir;
    if (facts.call != nullptr) {
      Call described = call;  // as `cvmcheck run --call` judges the case: with its expectation
      described.expected = spec.expect->outcome;
      described.rule_id = spec.expect->rule;
      c.descriptor = compact_call_descriptor(described, backend).value_or("");
    }
  } catch (const CaseFileError& e) {
    // An unreadable case (e.g. a damaged .npy whose sha256 was not checked) is the suite's
    // fault, never a result of the backend.
    c.status = "corrupt";
    c.detail = e.what();
  }
}

}  // namespace

GoldenVerifyResult verify_golden(const Registry& registry, const std::string& dir,
                                 const std::string& backend,
                                 const ExpectationSet& expected,
                                 const GoldenVerifyPart& part) {
  const fs::path root(dir);
  const nlohmann::json manifest = nlohmann::json::parse(fixture_bytes((root / "MANIFEST.json").string()));
  check(manifest.value("format", "") == kGoldenFormat, dir, " is not a cvmcheck golden suite");
  const Backend* b = registry.find_backend(backend);
  check(b != nullptr, "unknown backend '", backend, "'");
  check(part.job_count >= 1 && part.job_index >= 0 && part.job_index < part.job_count,
        "golden verify: job ", part.job_index, " of ", part.job_count);
  GoldenVerifyResult result;
  result.precision_compared = b->reports_precision;
  std::map<const ExpectationEntry*, EntryUse>& uses = result.uses;
  size_t index = 0;
  for (const nlohmann::json& entry : manifest.at("cases")) {
    if (stop_signal() != 0) break;  // a graceful stop (stop_signal.h): the cases judged so far
    if (index++ % static_cast<size_t>(part.job_count) != static_cast<size_t>(part.job_index)) {
      continue;  // another job's case
    }
    GoldenCaseResult c;
    c.op = entry.at("op").get<std::string>();
    c.name = entry.at("name").get<std::string>();
    const fs::path case_dir = root / entry.at("dir").get<std::string>();
    for (const auto& [file, sha] : entry.at("files").items()) {
      std::error_code ec;
      if (!fs::exists(case_dir / file, ec)) {
        c.status = "corrupt";
        c.detail = "missing " + file;
      } else if (sha256_hex(fixture_bytes((case_dir / file).string())) != sha.get<std::string>()) {
        c.status = "corrupt";
        c.detail = file + " does not match its sha256";
      }
    }
    const OpInfo* op = registry.find_op(c.op);
    if (c.status.empty() && (!b->available || op == nullptr || !b->implements(op->name))) {
      c.status = "skipped";
      c.detail = b->available ? "not implemented" : "unavailable: " + b->unavailable_reason;
    }
    if (c.status.empty()) {
      judge_golden_case(registry, case_dir.string(), backend, expected, c, uses);
    }
    ++result.per_op[c.op][c.status];
    result.cases.push_back(std::move(c));
  }
  result.stale = stale_entries(expected, uses);
  return result;
}

std::string golden_table(const GoldenVerifyResult& result, const std::string& backend) {
  std::ostringstream out;
  const char* statuses[] = {"pass", "fail", "xfail", "xpass", "skipped", "corrupt"};
  out << std::left << std::setw(22) << "operator" << std::right;
  for (const char* s : statuses) out << std::setw(9) << s;
  out << "   (backend " << backend << ")\n";
  std::map<std::string, int64_t> totals;
  for (const auto& [op, counts] : result.per_op) {
    out << std::left << std::setw(22) << op << std::right;
    for (const char* s : statuses) {
      const auto it = counts.find(s);
      const int64_t n = it == counts.end() ? 0 : it->second;
      totals[s] += n;
      out << std::setw(9) << n;
    }
    out << "\n";
  }
  out << std::left << std::setw(22) << "total" << std::right;
  for (const char* s : statuses) out << std::setw(9) << totals[s];
  out << "\n";
  std::set<std::string> unavailable;  // an unavailable backend skips every case for one reason
  for (const GoldenCaseResult& c : result.cases) {
    if (c.status == "skipped" && c.detail.rfind("unavailable", 0) == 0) unavailable.insert(c.detail);
  }
  for (const std::string& reason : unavailable) {
    out << "skipped backend " << backend << ": " << reason << "\n";
  }
  if (!result.precision_compared) {
    out << "precision not compared: backend " << backend << kPrecisionNotCompared << "\n";
  }
  for (const GoldenCaseResult& c : result.cases) {
    if (c.status == "fail" || c.status == "corrupt" || c.status == "xpass") {
      out << c.status << ": " << c.op << "/" << c.name << (c.detail.empty() ? "" : ": " + c.detail)
          << (c.status == "xpass" ? " (listed as expected to fail by " + c.expectation +
                                        "; remove the entry)"
                                  : "")
          << "\n";
    }
  }
  for (const std::string& line : result.stale) out << line << "\n";
  return out.str();
}

}  // namespace cvm
