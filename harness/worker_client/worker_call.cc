#include "harness/worker_client/worker_call.h"


#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cvmcheck/errors.h"
#include "cvmcheck/paths.h"
#include "harness/worker_client/worker_tensor.h"

namespace cvm {

namespace wp = cvmcheck_worker;

wp::Attrs attrs_to_protocol(const nlohmann::json& attrs) {
  wp::Attrs out;
  bool strings_only = attrs.is_object();
  if (strings_only) {
    for (const auto& item : attrs.items()) strings_only = strings_only && item.value().is_string();
  }
  if (!strings_only) {
    out.is_string_object = false;
    out.json = attrs.dump();
    return out;
  }
  for (const auto& item : attrs.items()) {  // nlohmann's object iterates in key order
    out.pairs.emplace_back(item.key(), item.value().get<std::string>());
  }
  return out;
}

nlohmann::json attrs_from_protocol(const wp::Attrs& attrs) {
  if (!attrs.is_string_object) return parse_attrs_json(attrs.json);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& pair : attrs.pairs) {
    // A JSON object cannot hold a key twice; the pairs could, and taking either value would
    // run a call the case never held.
    verify(!out.contains(pair.first), "attribute '", pair.first, "' given twice");
    out[pair.first] = pair.second;
  }
  return out;
}

namespace {

wp::Reply reply_without_paths(const Outcome& outcome) {
  switch (outcome.kind) {
    case OutcomeKind::kOk: {
      std::vector<wp::Tensor> outputs;
      outputs.reserve(outcome.outputs.size());
      for (const Tensor& y : outcome.outputs) outputs.push_back(to_protocol(y));
      return wp::Reply::ok(std::move(outputs));
    }
    case OutcomeKind::kLogicError:
      return wp::Reply::error(wp::Outcome::kLogicError, outcome.message, outcome.rule);
    case OutcomeKind::kRuntimeError:
      break;
  }
  return wp::Reply::error(wp::Outcome::kRuntimeError, outcome.message);
}

}  // namespace

wp::Reply reply_from_outcome(const Outcome& outcome) {
  wp::Reply reply = reply_without_paths(outcome);
  reply.paths = outcome.paths;
  return reply;
}

Outcome outcome_from_reply(const wp::Reply& reply) {
  Outcome out;
  out.paths = reply.paths;
  switch (reply.outcome) {
    case wp::Outcome::kOk:
      out.kind = OutcomeKind::kOk;
      for (size_t k = 0; k < reply.outputs.size(); ++k) {
        out.outputs.push_back(from_protocol(reply.outputs[k], concat("output ", k)));
      }
      return out;
    case wp::Outcome::kLogicError:
      out.kind = OutcomeKind::kLogicError;
      break;
    case wp::Outcome::kRuntimeError:
      out.kind = OutcomeKind::kRuntimeError;
      break;
  }
  out.message = reply.message;
  if (out.kind == OutcomeKind::kLogicError) out.rule = reply.rule;
  return out;
}

std::vector<std::string> served_op_names(const Registry& registry, const std::string& backend) {
  std::vector<std::string> names;
  const Backend* b = registry.find_backend(backend);
  if (b == nullptr || !b->available) return names;
  for (const OpInfo& op : registry.ops()) {
    if (!b->implements(op.name)) continue;
    names.push_back(op.name);
    names.insert(names.end(), op.aliases.begin(), op.aliases.end());
  }
  return names;
}

wp::Reply serve_call(const Registry& registry, const std::string& backend, const wp::Call& call) {
  try {
    const nlohmann::json attrs = attrs_from_protocol(call.attrs);
    std::vector<Tensor> inputs;
    inputs.reserve(call.inputs.size());
    for (size_t k = 0; k < call.inputs.size(); ++k) {
      inputs.push_back(from_protocol(call.inputs[k], concat("input ", k)));
    }
    return reply_from_outcome(run_op_outcome(registry, backend, call.op, attrs, inputs));
  } catch (const LogicError& e) {
    // Before the dispatcher, which prefixes its messages with the operator's name.
    return wp::Reply::error(wp::Outcome::kLogicError, call.op + ": " + e.what(), e.rule());
  } catch (const std::exception& e) {
    return wp::Reply::error(wp::Outcome::kRuntimeError, call.op + ": " + e.what());
  } catch (...) {
    return wp::Reply::error(wp::Outcome::kRuntimeError, call.op + ": unknown exception");
  }
}

// The path table and the protocol hold as many paths, so a backend's declared paths always fit
// a hello.
static_assert(paths::kMaxPaths <= static_cast<int>(wp::kMaxPaths));

std::vector<wp::PathDecl> served_paths(const Registry& registry, const std::string& backend) {
  std::vector<wp::PathDecl> declared;
  const Backend* b = registry.find_backend(backend);
  if (b == nullptr || !b->available) return declared;
  for (const std::string& id : b->paths) {
    // The protocol has no field for a path unreachable on this machine (an ISA the CPU lacks):
    // declared, the harness would count it as never reached, so it is left out.
    if (b->unreachable_paths.count(id) != 0) continue;
    wp::PathDecl decl;
    decl.id = id;
    if (const PathInfo* info = paths::find(id)) {
      for (const std::string& op : info->ops) decl.ops += (decl.ops.empty() ? "" : ",") + op;
      decl.description = info->description.substr(0, wp::kMaxPathTextBytes);
      decl.ops.resize(std::min<size_t>(decl.ops.size(), wp::kMaxPathTextBytes));
    }
    declared.push_back(std::move(decl));
  }
  return declared;
}

int serve_backend(const Registry& registry, const std::string& backend, int in_fd, int out_fd) {
  const auto handler = [&registry, &backend](const wp::Call& call) {
    return serve_call(registry, backend, call);
  };
  const std::vector<std::string> ops = served_op_names(registry, backend);
  const Backend* b = registry.find_backend(backend);
  if (b == nullptr || !b->available || b->paths.empty()) {
    return wp::serve(backend, ops, handler, wp::kFlagReportsRules, in_fd, out_fd);
  }
  return wp::serve_with_paths(backend, ops, served_paths(registry, backend), handler,
                              wp::kFlagReportsRules, in_fd, out_fd);
}

int take_stdout_for_protocol() {
  std::cout.flush();
  std::fflush(stdout);
  const int protocol_fd = ::dup(1);
  if (protocol_fd < 0 || ::dup2(2, 1) < 0) return -1;
  return protocol_fd;
}

}  // namespace cvm
