// One operator call over the worker protocol (worker_sdk/include/cvmcheck_worker.hpp), in terms of
// the in-process types: attributes as a JSON value, outcomes as cvm::Outcome. `cvmcheck worker`
// serves a built-in backend with serve_call; the harness's client builds its calls and reads its
// replies with the same conversions, so both sides mean the same thing by a call.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cvmcheck/registry.h"
#include "cvmcheck_worker.hpp"

namespace cvm {

// A JSON object of strings (the CVM graph-file form) becomes its pairs in key order; anything
// else (a number value, an array, null: a negative case) travels as its compact JSON text.
cvmcheck_worker::Attrs attrs_to_protocol(const nlohmann::json& attrs);
// The reverse. JSON text that does not parse, or a key given twice, is a LogicError (a bad
// model, as a malformed attribute is in process).
nlohmann::json attrs_from_protocol(const cvmcheck_worker::Attrs& attrs);

// ok: the outputs as protocol tensors; an error: its class and message (no rule id: the
// built-in backends report none, so `cvmcheck worker` sets no kFlagReportsRules).
cvmcheck_worker::Reply reply_from_outcome(const Outcome& outcome);
// The reverse. An output that breaks the tensor limits cannot become a cvm::Tensor: LogicError
// naming it (for the caller to report as the worker's fault, not the call's).
Outcome outcome_from_reply(const cvmcheck_worker::Reply& reply);

// The names a worker serving `backend` announces in its hello: each operator the backend
// implements, canonical name first, then its aliases, in registration order. Empty for an
// unknown or unavailable backend.
std::vector<std::string> served_op_names(const Registry& registry, const std::string& backend);

// The kernel paths `backend` declares (Backend::paths) as its hello declares them, with their
// operators and description from the path table (cvmcheck/paths.h; an id no code defined goes
// with neither), less those unreachable on this machine (Backend::unreachable_paths). Empty
// for a backend that declares none or is unknown.
std::vector<cvmcheck_worker::PathDecl> served_paths(const Registry& registry,
                                                    const std::string& backend);

// Runs one protocol call on a registered backend exactly as run_op_outcome runs it in process
// and answers with the reply. Never throws: an input that breaks the tensor limits or attributes
// that are not JSON are a logic_error reply; anything unexpected a runtime_error reply.
cvmcheck_worker::Reply serve_call(const Registry& registry, const std::string& backend,
                                  const cvmcheck_worker::Call& call);

// Serves `backend` on in_fd/out_fd until bye or the end of input, as `cvmcheck worker --backend`
// does: every operator it implements with their aliases, rule ids, and, where it declares kernel
// paths, kFlagPaths with its paths and each call's (run_op_outcome's Outcome::paths). Returns
// the exit status (cvmcheck_worker::serve's).
int serve_backend(const Registry& registry, const std::string& backend, int in_fd, int out_fd);

// For a worker process: moves stdout to a new descriptor, returned, for the protocol's frames and
// points descriptor 1 at stderr, so that a stray print (a kernel's, a library's) lands in the
// worker's log instead of in the middle of a frame. -1 when the descriptors cannot be moved.
int take_stdout_for_protocol();

}  // namespace cvm
