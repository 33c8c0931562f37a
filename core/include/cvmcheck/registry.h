// The operator registry: one record per operator (name, aliases, arity, attribute schema) and
// the backends with their kernels. A differential test is a loop over backends, all of which
// take the same OpContext and return the same kind of result.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cvmcheck/attrs.h"
#include "cvmcheck/paths.h"
#include "cvmcheck/tensor.h"

namespace cvm {

// A literal tensor in an operator record (examples are written by hand from the contract).
struct ExampleTensor {
  Shape shape;
  std::vector<int32_t> values;  // row-major
  int precision = 32;
  DType dtype = DType::kInt32;
};

enum class OutcomeKind { kOk, kLogicError, kRuntimeError };

// A hand-written case: a worked example (outcome ok, with the expected outputs) or an input
// that breaks exactly one validity rule (outcome logic_error, outputs empty). Every backend
// must reproduce each one; golden fixtures and `cvmcheck run` cases are made from them.
struct Example {
  std::string name;        // stable, descriptive, [a-z0-9_] (a directory name)
  std::string attrs_json;  // the attribute object as JSON text, e.g. R"({"axis": "(1,)"})"
  std::vector<ExampleTensor> inputs;
  OutcomeKind outcome = OutcomeKind::kOk;
  std::vector<ExampleTensor> outputs;
};

struct OpInfo {
  std::string name;     // canonical (the original runtime's name)
  std::string family;   // reduce, broadcast, nn, elementwise, transform, vision, ov
  std::vector<std::string> aliases;
  int min_inputs = 1;
  int max_inputs = 1;   // kUnbounded for variadic operators
  std::vector<AttrSpec> attrs;
  std::vector<Example> examples;
  // The work of one call beyond reading each input element once, in units of one element read:
  // the multiply-adds, window taps, box pairs or repeated writes of the operators that make more
  // than one per element (ops/work.h). The campaign's schedule shares its time by this estimate
  // (harness/engine/call_cost.h). nullptr: reading its inputs is the whole work.
  using ExtraWork = double (*)(const nlohmann::json& attrs, const std::vector<Tensor>& inputs);
  ExtraWork extra_work = nullptr;

  static constexpr int kUnbounded = -1;
};

struct OpContext {
  const OpInfo& op;
  const Attrs& attrs;
  const std::vector<Tensor>& inputs;
};

using Kernel = std::function<std::vector<Tensor>(const OpContext&)>;

struct Outcome;
// An external implementation (an `exec:` worker process) takes the call as the case holds it:
// the operator name unresolved and the attribute object unparsed, so its own checks decide.
using ExternalCall = std::function<Outcome(const std::string& op, const nlohmann::json& attrs,
                                           const std::vector<Tensor>& inputs)>;
// The same call in two halves: sends it and returns what waits for its outcome, so the harness
// runs the reference while the external process computes.
using ExternalBegin = std::function<std::function<Outcome()>(
    const std::string& op, const nlohmann::json& attrs, const std::vector<Tensor>& inputs)>;

// The oracle's backend name (reference/): every verdict compares the other backends with it.
inline constexpr const char* kReferenceBackend = "reference";

struct Backend {
  std::string name;
  std::map<std::string, Kernel> kernels;  // by canonical operator name
  bool available = true;
  std::string unavailable_reason;         // why, when !available (e.g. no GPU)
  // Set on a dispatch variant (e.g. "optimized/avx2" of "optimized"): the same kernels with one
  // run-time choice forced. Per-example test lists cover the base backend only; golden verify,
  // the campaign, the properties and the fuzz targets run every variant.
  std::string variant_of;
  // For a dispatch variant that costs more than its base on every call, however small (a thread
  // team on each: optimized@3's wake-ups and barriers cost more than most calls' work, and far
  // more on a loaded machine), the k of "one call in k" the campaign runs it on; 0: by size
  // (harness/engine/call_cost.h, variant_runs).
  int variant_every = 0;
  // The thread count this backend takes from the process (call descriptors record it); nullptr
  // for one that runs a fixed count (a variant forcing its team) or one thread.
  std::function<int()> threads;
  // False for an external backend whose worker reports no output precision (its handshake says
  // so): the diff then compares values, shapes, dtypes and classes, precisions not.
  bool reports_precision = true;
  // False when the backend cannot run in a process forked after the registry was built (the
  // CUDA runtime, initialized by the device check, does not survive fork): tools that fork jobs
  // then run one process.
  bool fork_safe = true;
  // Set on an external backend: every call goes to it whole (no kernels); external_ops holds
  // the canonical names of the operators its handshake listed.
  ExternalCall external;
  ExternalBegin external_begin;  // optional
  std::set<std::string> external_ops;
  // The operators this backend must compare (for a built-in backend: every listed operator but
  // its kernel exemptions, whatever its kernel map holds). A campaign fails when an available
  // backend skips every call of one of them: a backend that lost a family must not pass with
  // its rows turned to "skipped". Empty: the backend declares nothing.
  std::set<std::string> declared_ops;
  // The kernel paths this backend declares (cvmcheck/paths.h, docs/paths.md): a campaign counts
  // the calls that reached each and fails when one its operators could take was never reached,
  // unless it is in unreachable_paths, with the reason (an ISA this CPU lacks, no device).
  // A variant declares the paths its forced choice can take. Empty: the backend reports none.
  std::vector<std::string> paths;
  std::map<std::string, std::string> unreachable_paths;
  // The sizes that decide between its paths, for the generators to draw on either side of.
  std::vector<PathThreshold> thresholds;

  void add(const std::string& op, Kernel kernel) { kernels[op] = std::move(kernel); }
  bool implements(const std::string& op) const {
    return kernels.count(op) != 0 || external_ops.count(op) != 0;
  }
};

class Registry {
 public:
  void add_op(OpInfo op);
  void add_backend(Backend backend);

  // Resolves canonical names and aliases; nullptr when unknown.
  const OpInfo* find_op(const std::string& name) const;
  // As find_op, but an unknown name is a LogicError.
  const OpInfo& op(const std::string& name) const;
  const std::vector<OpInfo>& ops() const { return ops_; }

  Backend* find_backend(const std::string& name);
  const Backend* find_backend(const std::string& name) const;
  const std::vector<Backend>& backends() const { return backends_; }

 private:
  std::vector<OpInfo> ops_;
  std::vector<Backend> backends_;
};

// The registry of every record and backend built into the binary is assembled in the top
// layer: registry/registry.h.

// Runs one call. Unknown operator, bad attributes and a wrong input count are LogicErrors
// raised before the kernel runs. A kernel's LogicError passes through; any other failure
// (including std::logic_error subclasses such as std::out_of_range, which mean a bug of ours,
// and std::bad_alloc) becomes a RuntimeError. Every message is prefixed with the operator name.
std::vector<Tensor> run_op(const Registry& registry, const std::string& backend,
                           const std::string& op, const nlohmann::json& attrs,
                           const std::vector<Tensor>& inputs);

// The result of a call as data, for the harness: never throws for operator failures.
const char* outcome_name(OutcomeKind kind);
OutcomeKind parse_outcome_name(const std::string& name);  // LogicError if unknown

Tensor to_tensor(const ExampleTensor& example);  // LogicError if it breaks the tensor limits
nlohmann::json parse_attrs_json(const std::string& text);  // LogicError if not JSON

struct Outcome {
  OutcomeKind kind = OutcomeKind::kOk;
  std::string message;
  // For logic_error: the id of the broken rule the backend reported ("sum.axis_out_of_range",
  // "global.value_range"); empty when it reported none (docs/contract.md, "Rule ids").
  std::string rule;
  std::vector<Tensor> outputs;
  // Set when an external worker failed the call rather than answering it: "crash" (it died),
  // "hang" (over the call timeout) or "protocol_error" (a malformed reply). The kind is then
  // runtime_error, and the diff reports the failure as its own finding kind.
  std::string failure;
  // The ids of the kernel paths the call took, as the backend reported them (cvmcheck/paths.h;
  // a worker's reply field, docs/backend-protocol.md); empty when it reports none.
  std::vector<std::string> paths;
};

Outcome run_op_outcome(const Registry& registry, const std::string& backend,
                       const std::string& op, const nlohmann::json& attrs,
                       const std::vector<Tensor>& inputs);

}  // namespace cvm
