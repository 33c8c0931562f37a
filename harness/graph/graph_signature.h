// What a model's difference is (docs/graphs.md, "Signatures"): the first differing node run
// again as a single call (its operator, attributes and the input values the reference's run
// recorded, through the same backend, judged by judge_call). Where the call differs alone, the
// finding is that call's, with the signature the campaign gives it (harness/findings/finding.h)
// and the expectation lists' verdict as for any call; where it does not, the difference exists
// only in the model: a graph-level finding, signature "graph|<op>|<backend>|<kind>" ("graph" for
// <op> when the graph as a whole differs).
#pragma once

#include <string>

#include "cvmcheck/registry.h"
#include "harness/findings/expectations.h"
#include "harness/graph/graph.h"
#include "harness/graph/graph_diff.h"
#include "harness/graph/graph_run.h"

namespace cvm::graph {

struct GraphSignature {
  std::string signature;
  bool graph_level = true;
  std::string op;           // the first differing node's operator; "graph" for the graph itself
  std::string expected_by;  // a known difference: the entry's "FILE:LINE: reason"; else empty
  std::string call_report;  // the single call's failure report, where it differs alone
};

// "graph|<op>|<backend>|<kind>": a difference that exists only in a model.
// The expectation entry (its "FILE:LINE: reason") that explains a graph-level difference of
// `signature`, seen as operator `op` (`graph|<op>`) and case `case_name` ("after:,OP,...," the
// operators run before the differing node; "malformed"); "" when none does.
std::string graph_expectation(const ExpectationSet& expectations, const std::string& backend,
                              const std::string& op, const std::string& case_name,
                              const std::string& signature);

std::string graph_level_signature(const std::string& op, const std::string& backend,
                                  const std::string& kind);

// The signature of `d`, the first difference of `actual` (on `backend`) from `expected` (the
// reference's run of `g`). `expectations` may be empty; a single call's signature is matched as
// the campaign matches its calls, a graph-level one as operator "graph|<op>", case "graph" (so
// that sig: entries name it, and an entry for an operator's calls does not).
GraphSignature classify_difference(const Registry& registry, const Graph& g,
                                   const GraphRun& expected, const GraphRun& actual,
                                   const std::string& backend, const GraphDifference& d,
                                   const ExpectationSet& expectations);

}  // namespace cvm::graph
