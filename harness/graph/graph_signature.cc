#include "harness/graph/graph_signature.h"

#include <set>

#include "harness/engine/call.h"
#include "harness/engine/verdict.h"
#include "harness/findings/finding.h"
#include "harness/graph/graph_load.h"

namespace cvm::graph {
namespace {

// The node as a single call, its inputs as the reference recorded them (else the other side);
// nullopt when an input was never computed or the node cannot be resolved.
std::optional<Call> node_call(const Registry& registry, const Graph& g, const GraphRun& expected,
                              const GraphRun& actual, int node) {
  LoadedGraph l;
  try {
    l = check_graph(g, registry);
  } catch (const LogicError&) {
    return std::nullopt;
  }
  for (const LoadedOp& op : l.ops) {
    if (static_cast<int>(op.node) != node) continue;
    Call call;
    call.op = op.op;
    call.attrs = op.attrs;
    for (uint32_t eid : op.inputs) {
      const GraphRun& side = eid < expected.entries.size() && expected.entries[eid] ? expected : actual;
      if (eid >= side.entries.size() || !side.entries[eid]) return std::nullopt;
      call.inputs.push_back(*side.entries[eid]);
    }
    // A node the reference refuses is an invalid call: a logic_error is its expected class.
    if (expected.kind == OutcomeKind::kLogicError && expected.node == node) call.expected = OutcomeKind::kLogicError;
    return call;
  }
  return std::nullopt;
}

// "after:,OP,OP,...,": the distinct operators of the nodes run before node `node`, sorted: the
// case name a graph-level difference is listed by. A node that broke a later one need not be its
// ancestor: the cpu non_max_suppression overwrites its input, which a sibling reads after it
// (`case=*,non_max_suppression,*`). Where the graph as a whole differs (node -1: a hang, a crash,
// the packed output), every operator of the model ran or may have.
std::string operators_before(const Graph& g, int node) {
  std::set<std::string> ops;
  const size_t end = node < 0 ? g.nodes.size() : static_cast<size_t>(node);
  for (size_t n = 0; n < end && n < g.nodes.size(); ++n) {
    if (!g.nodes[n].is_variable()) ops.insert(g.nodes[n].operator_name());
  }
  std::string text = "after:,";
  for (const std::string& op : ops) text += op + ",";
  return text;
}

std::string matching_entry(const ExpectationSet& expectations, const std::string& backend,
                            const FailureFacts& facts) {
  const ExpectationEntry* e = expectations.empty() ? nullptr : expectations.match(backend, facts);
  return e == nullptr ? std::string() : e->source + ": " + e->reason;
}

}  // namespace

std::string graph_expectation(const ExpectationSet& expectations, const std::string& backend,
                              const std::string& op, const std::string& case_name,
                              const std::string& signature) {
  return matching_entry(expectations, backend, FailureFacts{op, case_name, "", signature, nullptr});
}

std::string graph_level_signature(const std::string& op, const std::string& backend,
                                  const std::string& kind) {
  return "graph|" + op + "|" + backend + "|" + kind;
}

GraphSignature classify_difference(const Registry& registry, const Graph& g,
                                   const GraphRun& expected, const GraphRun& actual,
                                   const std::string& backend, const GraphDifference& d,
                                   const ExpectationSet& expectations) {
  GraphSignature s;
  s.op = "graph";
  if (d.node >= 0 && static_cast<size_t>(d.node) < g.nodes.size()) {
    const Node& n = g.nodes[static_cast<size_t>(d.node)];
    s.op = n.is_variable() ? "variable" : n.operator_name();
  }
  const std::optional<Call> call =
      d.node >= 0 ? node_call(registry, g, expected, actual, d.node) : std::nullopt;
  if (call) {
    const OpInfo* info = registry.find_op(call->op);
    const std::string op = info == nullptr ? call->op : info->name;
    const CallVerdict verdict = judge_call(registry, *call, {backend});
    if (!verdict.passed) {
      s.graph_level = false;
      s.op = op;
      s.signature = finding_signature(op, verdict, call->rule);
      s.call_report = verdict.report;
      std::string facts_signature;
      for (const BackendRun& run : verdict.diff.runs) {
        if (run.skipped || !run.difference) continue;
        facts_signature = difference_signature(op, run.backend, *run.difference,
                                               verdict.diff.reference, run.outcome);
      }
      if (!verdict.diff.expectation_failure) {
        const FailureFacts facts{op, campaign_case_name(call->rule), call->rule_id, facts_signature, &*call};
        s.expected_by = matching_entry(expectations, backend, facts);
      }
      return s;
    }
  }
  s.signature = graph_level_signature(s.op, backend, d.kind);
  // Seen as operator "graph|<op>", case "after:,OP,...,": an entry for the operator's calls
  // (`where/*`) does not explain a difference only a model shows; sig: entries name graph-level
  // ones, their conditions read the node's call as the model ran it (its inputs as recorded).
  s.expected_by = matching_entry(expectations, backend,
                                 FailureFacts{"graph|" + s.op, operators_before(g, d.node), "",
                                              s.signature, call ? &*call : nullptr});
  return s;
}

}  // namespace cvm::graph
