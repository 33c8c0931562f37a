#include "harness/graph/graph_wire.h"

#include "cvmcheck/errors.h"
#include "harness/graph/graph_json.h"
#include "harness/graph/graph_params.h"
#include "harness/worker_client/worker_tensor.h"

namespace cvm::graph {

namespace {

// `text` with every byte that is not part of valid UTF-8 replaced by '?': a worker's message is
// any bytes (the original's quotes a malformed model's operator name), and every report that
// carries it is JSON.
std::string utf8_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n != 0 && i + n <= text.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    if (ok) {
      out.append(text, i, n);
      i += n;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

}  // namespace

namespace wire = cvmcheck_worker;

namespace {

wire::Outcome wire_outcome(OutcomeKind kind) {
  switch (kind) {
    case OutcomeKind::kOk: return wire::Outcome::kOk;
    case OutcomeKind::kLogicError: return wire::Outcome::kLogicError;
    case OutcomeKind::kRuntimeError: break;
  }
  return wire::Outcome::kRuntimeError;
}

OutcomeKind outcome_kind(wire::Outcome outcome) {
  switch (outcome) {
    case wire::Outcome::kOk: return OutcomeKind::kOk;
    case wire::Outcome::kLogicError: return OutcomeKind::kLogicError;
    case wire::Outcome::kRuntimeError: break;
  }
  return OutcomeKind::kRuntimeError;
}

}  // namespace

wire::GraphRequest graph_request(const Graph& g, const ModelInputs& inputs) {
  wire::GraphRequest request;
  request.graph_json = write_graph_json(g);
  const std::string params = write_params(inputs.params);
  request.params.assign(params.begin(), params.end());
  if (inputs.data) request.inputs.emplace_back(kDataName, to_protocol(*inputs.data));
  return request;
}

ModelFiles model_from_request(const wire::GraphRequest& request) {
  ModelFiles model;
  model.graph = parse_graph_json(request.graph_json);
  model.inputs.params =
      parse_params(std::string(request.params.begin(), request.params.end()));
  for (const auto& [name, tensor] : request.inputs) {
    verify(name == kDataName, "model input '", name, "': the only input is '", kDataName, "'");
    verify(!model.inputs.data, "model input '", name, "' given twice");
    model.inputs.data = from_protocol(tensor, concat("model input '", name, "'"));
  }
  return model;
}

wire::ModelReply model_reply_from_run(const GraphRun& run) {
  wire::ModelReply reply;
  if (run.skipped) return wire::ModelReply::error(wire::Outcome::kRuntimeError, run.skip_reason);
  reply.outcome = wire_outcome(run.kind);
  reply.message = run.message;
  reply.rule = run.rule;
  reply.node = run.node;
  reply.entries.reserve(run.entries.size());
  for (const std::optional<Tensor>& e : run.entries) {
    reply.entries.push_back(e ? std::optional<wire::Tensor>(to_protocol(*e)) : std::nullopt);
  }
  if (run.packed) reply.packed = wire::PackedOutput{run.packed->type_size, run.packed->bytes};
  return reply;
}

GraphRun run_from_model_reply(const Graph& g, uint32_t entries, const wire::ModelReply& reply) {
  GraphRun run;
  run.kind = outcome_kind(reply.outcome);
  run.message = utf8_text(reply.message);
  run.rule = reply.rule;
  run.node = reply.node;
  if (reply.node >= 0 && static_cast<size_t>(reply.node) >= g.nodes.size()) {
    throw wire::ProtocolError(concat("model reply blames node ", reply.node, " of a graph of ",
                                     g.nodes.size(), " nodes"));
  }
  if (entries != 0 && !reply.entries.empty() && reply.entries.size() != entries) {
    throw wire::ProtocolError(concat("model reply with ", reply.entries.size(),
                                     " entries for a graph of ", entries));
  }
  run.entries.reserve(reply.entries.size());
  for (size_t i = 0; i < reply.entries.size(); ++i) {
    if (!reply.entries[i]) {
      run.entries.emplace_back();
      continue;
    }
    try {
      run.entries.emplace_back(from_protocol(*reply.entries[i], concat("entry ", i)));
    } catch (const LogicError& e) {
      throw wire::ProtocolError(concat("model reply: ", e.what()));
    }
  }
  if (reply.packed) run.packed = PackedOutput{reply.packed->type_size, reply.packed->bytes};
  return run;
}

}  // namespace cvm::graph
