#include "model_probe.h"

#include <cstring>
#include <exception>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <cvm/runtime/c_runtime_api.h>
#include <cvm/runtime/param_dict.h>
#include <utils/json.h>
#include <utils/memory_io.h>

// The original's runtime class, from its source tree (src/runtime), as its own C API uses it.
#include "graph_runtime.h"
#include "messages.h"

namespace cvm_runtime_worker {
namespace {

namespace w = cvmcheck_worker;

// A failure of the original: its message and class, and the node it blames.
struct Failure {
  std::string what;
  bool logic = false;
  int32_t node = -1;
};

Failure failure_of(const std::exception& e, int32_t node) {
  Failure f;
  f.what = e.what();
  f.logic = dynamic_cast<const std::logic_error*>(&e) != nullptr;
  f.node = node;
  return f;
}

// An array on the host, owned here (CVMArrayAlloc makes the runtime's NDArray containers, which
// its SetInput requires).
struct HostArray {
  CVMArrayHandle h = nullptr;
  HostArray(const std::vector<int64_t>& shape, int bits) {
    if (CVMArrayAlloc(shape.data(), static_cast<int>(shape.size()), kDLInt, bits, 1, kDLCPU, 0,
                      &h) != 0) {
      throw std::runtime_error(std::string("CVMArrayAlloc failed: ") + CVMGetLastError());
    }
  }
  ~HostArray() {
    if (h) CVMArrayFree(h);
  }
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
};

// The runtime with its protected phases reachable. Nothing is overridden: every step below is the
// runtime's own code, in the order CvmRuntimeCreate, LoadParams and Run call it.
class Probe : public cvm::runtime::CvmRuntime {
 public:
  explicit Probe(int device_type) {
    CVMContext ctx;
    ctx.device_type = static_cast<DLDeviceType>(device_type);
    ctx.device_id = 0;
    SetContext({ctx});
  }

  // cvm.runtime.create: Init (JSON, graph checks, inference) then Setup (storage, executors).
  bool load(const std::string& graph_json, Failure* f) {
    SetGraph(graph_json);
    try {
      std::istringstream is(graph_json);
      utils::JSONReader reader(&is);
      Load(&reader);
    } catch (const std::exception& e) {
      *f = failure_of(e, -1);
      return false;
    }
    const std::vector<Node> as_read = nodes_;
    try {
      PrepareGraphWithVersion();
    } catch (const std::exception& e) {
      *f = failure_of(e, blame_prepare(as_read, e.what()));
      return false;
    }
    const std::vector<Node> prepared = nodes_;
    const GraphAttr declared = attrs_;
    try {
      CheckAttr();
    } catch (const std::exception& e) {
      *f = failure_of(e, blame_inference(prepared, declared, e.what()));
      nodes_ = prepared;
      return false;
    }
    try {
      Setup();
    } catch (const std::exception& e) {
      *f = failure_of(e, -1);
      return false;
    }
    return true;
  }

  bool load_params(const std::string& blob, Failure* f) {
    try {
      LoadParams(blob);
    } catch (const std::exception& e) {
      *f = failure_of(e, blame_params(blob, e.what()));
      return false;
    }
    return true;
  }

  // set_input by name, as the C API's CVMModel sets `data`.
  bool set_input(const std::string& name, const w::Tensor& t, Failure* f) {
    int32_t node = -1;
    try {
      const int index = GetInputIndex(name);
      node = static_cast<int32_t>(input_nodes_[static_cast<size_t>(index)]);
      HostArray a(t.shape, t.dtype == w::DType::kInt8 ? 8 : 32);
      if (!t.data.empty()) std::memcpy(a.h->data, t.data.data(), t.data.size());
      SetData(index, a.h);
    } catch (const std::exception& e) {
      *f = failure_of(e, node);
      return false;
    }
    return true;
  }

  uint32_t entries() const { return num_node_entries(); }
  uint32_t nodes() const { return GetNumOfNodes(); }
  bool is_variable(uint32_t nid) const { return nodes_[nid].is_variable(); }
  uint32_t first_entry(uint32_t nid) const { return entry_id(nid, 0); }
  uint32_t outputs_of(uint32_t nid) const {
    return is_variable(nid) ? 1 : nodes_[nid].param.num_outputs;
  }

  // Node nid's executor alone (Run calls them in node order).
  bool run_node(uint32_t nid, Failure* f) {
    try {
      if (nid < op_execs_.size() && op_execs_[nid]) op_execs_[nid]();
    } catch (const std::exception& e) {
      *f = failure_of(e, static_cast<int32_t>(nid));
      return false;
    }
    return true;
  }

  // Entry eid as it is now, with the precision the loader inferred for it.
  w::Tensor entry(uint32_t eid) const {
    const std::vector<int64_t>& shape = attrs_.shape[eid];
    HostArray out(shape, 32);
    data_entry_[eid].CopyTo(out.h);
    w::Tensor t;
    t.dtype = w::DType::kInt32;
    t.shape = shape;
    t.precision = attrs_.precision[eid];
    t.data.resize(static_cast<size_t>(t.elements()) * 4);
    if (!t.data.empty()) std::memcpy(t.data.data(), out.h->data, t.data.size());
    return t;
  }

 private:
  // PrepareGraphWithVersion names no node. Its per-node step is each operator's lookup and
  // attribute parsing: the first node whose own step, on a copy, fails with the same message is
  // blamed; a storage conflict names its output node in the message.
  int32_t blame_prepare(const std::vector<Node>& as_read, const std::string& what) {
    for (size_t i = 0; i < as_read.size() && i < attrs_.op_attrs.size(); ++i) {
      Node copy = as_read[i];
      try {
        copy.LoadOpAndAttrs(attrs_.op_attrs[i]);
      } catch (const std::exception& e) {
        return same_error(what, e.what()) ? static_cast<int32_t>(i) : -1;
      }
    }
    const std::string marker = " output: (";
    const size_t at = what.find(marker);
    if (at != std::string::npos && what.find("used same storage_id") != std::string::npos) {
      return static_cast<int32_t>(std::strtol(what.c_str() + at + marker.size(), nullptr, 10));
    }
    return -1;
  }

  // CheckAttr infers node by node: it runs again on ever longer prefixes of the node list, and
  // the node that ends the first prefix to fail with the same message is blamed.
  int32_t blame_inference(const std::vector<Node>& prepared, const GraphAttr& declared,
                          const std::string& what) {
    int32_t blamed = -1;
    for (size_t k = 1; k <= prepared.size() && blamed < 0; ++k) {
      nodes_.assign(prepared.begin(), prepared.begin() + static_cast<std::ptrdiff_t>(k));
      attrs_ = declared;
      try {
        CheckAttr();
      } catch (const std::exception& e) {
        if (same_error(what, e.what())) blamed = static_cast<int32_t>(k - 1);
      }
    }
    nodes_ = prepared;
    attrs_ = declared;
    return blamed;
  }

  // LoadParams again, one parameter at a time (the same calls in the same order).
  int32_t blame_params(const std::string& blob, const std::string& what) {
    std::string copy = blob;
    std::vector<std::string> names;
    std::vector<cvm::runtime::NDArray> values;
    try {
      utils::MemoryStringStream strm(&copy);
      cvm::runtime::load_param_dict(&strm, names, values);
    } catch (const std::exception&) {
      return -1;
    }
    std::vector<bool> set(input_nodes_.size(), false);
    for (size_t i = 0; i < names.size(); ++i) {
      int index = -1;
      try {
        index = GetInputIndex(names[i]);
      } catch (const std::exception&) {
        return -1;
      }
      set[static_cast<size_t>(index)] = true;
      try {
        SetInput(index, const_cast<DLTensor*>(values[i].operator->()));
      } catch (const std::exception& e) {
        const uint32_t node = input_nodes_[static_cast<size_t>(index)];
        return same_error(what, e.what()) ? static_cast<int32_t>(node) : -1;
      }
    }
    for (size_t i = 0; i < set.size(); ++i) {
      const uint32_t node = input_nodes_[i];
      if (!set[i] && !nodes_[node].is_data()) return static_cast<int32_t>(node);
    }
    return -1;
  }
};

void record(const Failure& f, ProbeResult* r) {
  r->failed = true;
  r->logic = f.logic;
  r->what = f.what;
  r->node = f.node;
}

// The reply must fit one protocol frame: entries past that budget are left out (not present).
constexpr uint64_t kEntryBudget = cvmcheck_worker::kMaxFrameBytes / 2;

}  // namespace

ProbeResult probe_model(const cvmcheck_worker::GraphRequest& request, int device_type) {
  ProbeResult r;
  auto probe = std::make_unique<Probe>(device_type);
  Failure f;
  if (!probe->load(request.graph_json, &f)) {
    record(f, &r);
    return r;
  }
  r.entries.resize(probe->entries());
  uint64_t bytes = 0;
  auto keep = [&](uint32_t nid) {
    for (uint32_t k = 0; k < probe->outputs_of(nid); ++k) {
      const uint32_t eid = probe->first_entry(nid) + k;
      w::Tensor t = probe->entry(eid);
      bytes += t.data.size() + 64;
      if (bytes > kEntryBudget) return;
      r.entries[eid] = std::move(t);
    }
  };
  if (!probe->load_params(std::string(request.params.begin(), request.params.end()), &f)) {
    record(f, &r);
    return r;
  }
  for (const auto& [name, tensor] : request.inputs) {
    if (!probe->set_input(name, tensor, &f)) {
      record(f, &r);
      return r;
    }
  }
  for (uint32_t nid = 0; nid < probe->nodes(); ++nid) {
    if (probe->is_variable(nid)) keep(nid);
  }
  for (uint32_t nid = 0; nid < probe->nodes(); ++nid) {
    if (probe->is_variable(nid)) continue;
    if (!probe->run_node(nid, &f)) {
      record(f, &r);
      return r;
    }
    keep(nid);
  }
  return r;
}

}  // namespace cvm_runtime_worker
