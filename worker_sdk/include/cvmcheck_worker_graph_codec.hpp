// cvmcheck worker protocol, version 1: the whole-model messages (docs/backend-protocol.md,
// "Whole models (flag bit 3)"). A worker whose hello has kFlagGraphs takes a graph request `G`
// (the graph JSON, the params blob, the inputs by name) and answers a model reply `M` (the
// outcome, the node blamed, every entry as the node that made it wrote it, the packed output).
// Header-only, C++17, no dependency beyond the standard library; included by
// cvmcheck_worker.hpp after the codec.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cvmcheck_worker_codec.hpp"

namespace cvmcheck_worker {

// Entries in one model reply at most.
constexpr uint32_t kMaxGraphEntries = 1u << 20;

// `G`: one model to run.
struct GraphRequest {
  uint64_t id = 0;
  std::string graph_json;        // the graph JSON text as a file holds it
  std::vector<uint8_t> params;   // the params blob (CVMSaveParamsDict's format)
  std::vector<std::pair<std::string, Tensor>> inputs;  // by variable name (today one: "data")
};

// What CVMAPIInference writes: the heads in order, each row-major, after the graph's
// post-processing, as int8 (type_size 1) or int32 (4) by the heads' precision.
struct PackedOutput {
  uint32_t type_size = 4;
  std::vector<uint8_t> bytes;
};

// `M`: the model's outcome and what the worker computed.
struct ModelReply {
  uint64_t id = 0;  // the graph request's
  Outcome outcome = Outcome::kOk;
  std::string message;
  std::string rule;  // may be empty
  int32_t node = -1;  // the node blamed; -1 for the graph as a whole or none
  // Every entry of the graph in entry order, as the node that made it wrote it right after that
  // node ran; empty for an entry the worker did not compute (after a failure) or a variable it
  // does not echo. An outcome other than ok may still carry the entries computed before it.
  std::vector<std::optional<Tensor>> entries;
  std::optional<PackedOutput> packed;

  static ModelReply error(Outcome outcome, std::string message, std::string rule = "",
                          int32_t node = -1) {
    ModelReply r;
    r.outcome = outcome;
    r.message = std::move(message);
    r.rule = std::move(rule);
    r.node = node;
    return r;
  }
};

inline std::string encode_graph(const GraphRequest& g) {
  Writer w(MessageType::kGraph);
  w.u64(g.id);
  w.str(g.graph_json);
  w.blob(g.params.data(), g.params.size());
  w.u32(static_cast<uint32_t>(g.inputs.size()));
  for (const auto& [name, t] : g.inputs) {
    w.str(name);
    w.tensor(t);
  }
  return w.frame();
}

inline GraphRequest decode_graph(const std::string& payload) {
  Reader r(payload);
  r.expect_type(MessageType::kGraph);
  GraphRequest g;
  g.id = r.u64("graph id");
  g.graph_json = r.str("graph JSON");
  g.params = r.blob("params blob");
  const uint32_t k = r.count("graph inputs");
  for (uint32_t i = 0; i < k; ++i) {
    std::string name = r.str("graph input name");
    g.inputs.emplace_back(std::move(name), r.tensor("graph input"));
  }
  r.finish("graph request");
  return g;
}

// No kernel paths in a model reply, whatever the hello's flags.
inline std::string encode_model_reply(const ModelReply& m) {
  Writer w(MessageType::kModel);
  w.u64(m.id);
  w.u8(static_cast<uint8_t>(m.outcome));
  w.str(m.message);
  w.str(m.rule);
  w.i32(m.node);
  w.u32(static_cast<uint32_t>(m.entries.size()));
  for (const std::optional<Tensor>& e : m.entries) {
    w.u8(e.has_value() ? 1 : 0);
    if (e.has_value()) w.tensor(*e);
  }
  w.u8(m.packed.has_value() ? 1 : 0);
  if (m.packed.has_value()) {
    w.u32(m.packed->type_size);
    w.blob(m.packed->bytes.data(), m.packed->bytes.size());
  }
  return w.frame();
}

inline ModelReply decode_model_reply(const std::string& payload) {
  Reader r(payload);
  r.expect_type(MessageType::kModel);
  ModelReply m;
  m.id = r.u64("model reply graph id");
  const uint8_t outcome = r.u8("model outcome");
  if (outcome > 2) throw ProtocolError("unknown model outcome code " + std::to_string(outcome));
  m.outcome = static_cast<Outcome>(outcome);
  m.message = r.str("model message");
  m.rule = r.str("model rule");
  m.node = r.i32("model blamed node");
  if (m.node < -1) throw ProtocolError("model blamed node " + std::to_string(m.node));
  const uint32_t n = r.count("model entries", kMaxGraphEntries);
  m.entries.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t present = r.u8("model entry present flag");
    if (present > 1) throw ProtocolError("model entry present flag " + std::to_string(present));
    if (present == 1) m.entries[i] = r.tensor("model entry");
  }
  const uint8_t packed = r.u8("model packed flag");
  if (packed > 1) throw ProtocolError("model packed flag " + std::to_string(packed));
  if (packed == 1) {
    PackedOutput out;
    out.type_size = r.u32("packed type size");
    if (out.type_size != 1 && out.type_size != 4) {
      throw ProtocolError("packed type size " + std::to_string(out.type_size) + " (1 or 4)");
    }
    out.bytes = r.blob("packed output");
    if (out.bytes.size() % out.type_size != 0) {
      throw ProtocolError("packed output of " + std::to_string(out.bytes.size()) +
                          " bytes is not whole elements of " + std::to_string(out.type_size));
    }
    m.packed = std::move(out);
  }
  r.finish("model reply");
  return m;
}

}  // namespace cvmcheck_worker
