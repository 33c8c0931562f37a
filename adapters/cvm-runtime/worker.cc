// cvm-runtime-worker: the original CVM runtime (CortexFoundation/cvm-runtime) as a cvmcheck
// backend, speaking the worker protocol v1 (worker_sdk/include/cvmcheck_worker.hpp).
//
//   cvm-runtime-worker --device formal|cpu|gpu [--log FILE] [--fork|--no-fork]
//
// Each call becomes a one-operator model, loaded and run the way the original's own model path
// does it (CVMModel in src/core/model.cc, which the C API's CVMAPILoadModel/CVMAPIInference
// wrap), through the runtime's public entry points only:
//   1. a graph JSON in the original's format (version "cvm_1.0.0", as its compiler writes it):
//      input 0 is the variable node `data`, inputs 1.. are parameters `param_1`, ...; every
//      input carries its declared precision, the operator node carries the call's attribute
//      object unchanged in `op_attrs`;
//   2. the registered global `cvm.runtime.create` (graph, device) builds the graph runtime: its
//      own JSON reader, graph checks, attribute parser, shape, type and precision inference;
//   3. `load_params` with a blob written by the runtime's own `CVMSaveParamsDict` (parameters
//      are range-checked against their precision by the runtime);
//   4. `set_input("data", ...)` (the runtime clamps data to its precision), `run`;
//   5. `get_output(k, ...)` and `get_output_precision`.
// Nothing of the original is reimplemented or corrected here. The one thing the model file needs
// that a call does not carry is each output's shape (the runtime checks the graph's shapes
// against its own inference): it is taken from the operator's own registered FInferShape, run on
// the call's inputs before the graph is built; when that fails, the graph gets a placeholder
// shape and the runtime's load then fails on its own check, in its own order.
//
// Error classes are the original's: its VERIFY macros throw std::logic_error, its CHECK and
// LOG(FATAL) (and ParamError) std::runtime_error, and its C API (API_END in cvm/errors.h) turns
// anything derived from std::logic_error into ERROR_LOGIC and everything else into
// ERROR_RUNTIME. The worker does the same: std::logic_error -> logic_error reply, any other
// exception -> runtime_error reply.
//
// Each call runs in a forked child (unless --no-fork), a fresh one-operator model: the original
// writes out of bounds on some inputs, and without isolation that heap damage made later, valid
// calls crash. A child killed by a signal makes the worker raise the same signal, so a crash of
// the original ends the worker, which the harness reports as a crash finding.
//
// `--device gpu` runs the original's CUDA backend (a library built by `build.sh --cuda`). Its
// calls run in the worker itself unless --fork: a forked child cannot use its parent's CUDA
// context, and a context per call costs more than the call. Without a CUDA device every call is
// a runtime_error reply that says so (gpu_device.h), before the runtime is touched.
//
// Whole models (the protocol's graph request, kFlagGraphs) are model_runner.h's: the C API's
// CVMAPILoadModel/CVMAPIInference for the packed output, the runtime's CvmRuntime for every
// entry; each model in a forked child as calls are.
//
// The original prints to stdout and stderr (LOG(ERROR) on every failed check, GetOps's cout), so
// the protocol runs on a private duplicate of stdout and file descriptors 1 and 2 are pointed at
// the log (/dev/null unless --log FILE).

#include <fcntl.h>
#include <unistd.h>


#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cvm/c_api.h>
#include <cvm/dlpack.h>
#include <cvm/node.h>
#include <cvm/op.h>
#include <cvm/op_attr_types.h>
#include <cvm/runtime/c_runtime_api.h>
#include <cvm/runtime/module.h>
#include <cvm/runtime/packed_func.h>
#include <cvm/runtime/registry.h>
#include <utils/json.h>

#include "cvmcheck/op_list.h"
#include "cvmcheck_worker.hpp"
#include "child_process.h"
#include "gpu_device.h"
#include "messages.h"
#include "model_runner.h"

namespace {

namespace w = cvmcheck_worker;
using cvm_runtime_worker::in_child;
using cvm::runtime::Module;
using cvm::runtime::PackedFunc;

int g_device_type = kDLFORMAL;

// The operators the original registers (src/top), by cvmcheck's canonical names: cvmcheck's
// operator list (cvmcheck/op_list.h) less what the original lacks: a `pad` operator (it has
// only unregistered kernels) and `ov_strided_slice`.
const std::vector<std::string> kNotInOriginal = {"pad", "ov_strided_slice"};

std::vector<std::string> original_ops() {
  std::vector<std::string> ops;
  for (const cvm::ListedOp& op : cvm::kOperatorList) {
    const std::string name(op.name);
    if (std::find(kNotInOriginal.begin(), kNotInOriginal.end(), name) == kNotInOriginal.end()) {
      ops.push_back(name);
    }
  }
  return ops;
}

const std::vector<std::string> kOps = original_ops();

// ---------------------------------------------------------------------------------------------
// JSON text

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// The attribute object as the graph's `op_attrs` entry holds it: a JSON text.
std::string attrs_json(const w::Attrs& attrs) {
  if (!attrs.is_string_object) return attrs.json;  // passed on unchanged: the runtime judges it
  std::string out = "{";
  for (size_t i = 0; i < attrs.pairs.size(); ++i) {
    if (i) out += ", ";
    out += quote(attrs.pairs[i].first) + ": " + quote(attrs.pairs[i].second);
  }
  return out + "}";
}

template <typename T>
std::string list(const std::vector<T>& v) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
  out << "]";
  return out.str();
}

// ---------------------------------------------------------------------------------------------
// The output shapes, from the operator's own registered shape inference.

// The runtime's graph loader looks an operator up by its `func_name` with one trailing
// `_<digits>` suffix removed (the compiler numbers node names that way); the same rule here, so
// that the lookup below finds what the loader will find.
std::string registry_name(const std::string& name) {
  size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (i > 0 && name[i - 1] == '_') return name.substr(0, i - 1);
  return name;
}

// The runtime's own limits on every shape in a graph (PrepareGraphWithVersion): inference is
// only tried on inputs it would accept, so it never sees an input the runtime refuses first.
bool within_graph_limits(const std::vector<int64_t>& shape) {
  if (shape.empty() || shape.size() > 6) return false;
  uint64_t size = 1;
  for (int64_t d : shape) {
    if (d <= 0 || d > (int64_t{1} << 24)) return false;
    size *= static_cast<uint64_t>(d);
    if (size > (uint64_t{1} << 30)) return false;
  }
  return true;
}

struct Inferred {
  bool ok = false;
  size_t num_outputs = 1;
  std::vector<std::vector<int64_t>> shapes;
};

Inferred infer_outputs(const w::Call& call, const std::string& attr_text) {
  Inferred r;
  try {
    cvm::NodeAttrs attrs;
    attrs.name = "op";
    attrs.op = cvm::Op::Get(registry_name(call.op));
    std::istringstream is(attr_text);
    utils::JSONReader reader(&is);
    reader.Read(&attrs.dict);
    if (attrs.op->attr_parser) attrs.op->attr_parser(&attrs);
    r.num_outputs = attrs.op->get_num_outputs ? attrs.op->get_num_outputs(attrs)
                                              : attrs.op->num_outputs;
    // Inference runs only where the runtime's load would reach its own inference: the checks
    // that come first in PrepareGraphWithVersion (attributes of an operator without a parser,
    // the input count, every shape within the limits, every precision -1 or in [1, 32]) fail
    // there with the runtime's own error, and an inference function may not survive inputs
    // that they exclude (e.g. StridedSliceInferShape reads input 0 of an empty list).
    if (!attrs.op->attr_parser && !attrs.dict.empty()) return r;
    uint32_t want = attrs.op->get_num_inputs ? attrs.op->get_num_inputs(attrs)
                                             : attrs.op->num_inputs;
    if (want == cvm::kVarg) want = static_cast<uint32_t>(call.inputs.size());
    if (want != call.inputs.size()) return r;
    for (const w::Tensor& t : call.inputs) {
      if (!within_graph_limits(t.shape)) return r;
      if (t.precision != -1 && (t.precision < 1 || t.precision > 32)) return r;
    }
    static auto& finfer = cvm::Op::GetAttr<cvm::FInferShape>("FInferShape");
    auto f = finfer.get(attrs.op, nullptr);
    if (f == nullptr) return r;
    std::vector<cvm::TShape> in, out(r.num_outputs);
    for (const w::Tensor& t : call.inputs) in.emplace_back(t.shape.begin(), t.shape.end());
    if (!f(attrs, &in, &out)) return r;
    // The runtime's SetupShape reads out[i] for i < num_outputs whatever the vector's size. One
    // inference function (NMSShape, src/top/nn/nms.cc) clears the vector and then assigns
    // element 0 past its end, and the runtime's load works only because the capacity is kept
    // (bug "nms-shape-clear", docs/conformance/cvm-runtime.md). Read the same memory the
    // runtime's check reads, so the graph carries the shape the runtime will compare with.
    if (out.size() < r.num_outputs && out.capacity() < r.num_outputs) return r;
    for (size_t j = 0; j < r.num_outputs; ++j) {
      const cvm::TShape& s = out.data()[j];
      std::vector<int64_t> shape;
      for (int i = 0; i < static_cast<int>(s.ndim()); ++i) shape.push_back(static_cast<int64_t>(s[i]));
      r.shapes.push_back(shape);
    }
    r.ok = true;
  } catch (...) {
    // The runtime's load runs the same lookup, parser and inference and reports the failure
    // with its own error class.
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// The graph

std::string shape_text(const std::vector<int64_t>& s) { return list(s); }

// heads: which of the operator's outputs the graph returns.
std::string graph_json(const w::Call& call, const std::string& attr_text, const Inferred& inf,
                       const std::vector<size_t>& heads) {
  const size_t n = call.inputs.size();
  const size_t k = inf.num_outputs;
  std::ostringstream g;
  g << "{\"nodes\": [";
  for (size_t i = 0; i < n; ++i) {
    g << "{\"op\": \"null\", \"name\": \"" << (i == 0 ? std::string("data") : "param_" + std::to_string(i))
      << "\", \"inputs\": []}, ";
  }
  g << "{\"op\": \"cvm_op\", \"name\": \"op\", \"attrs\": {\"flatten_data\": \"0\", \"func_name\": "
    << quote(call.op) << ", \"num_inputs\": \"" << n << "\", \"num_outputs\": \"" << k
    << "\"}, \"inputs\": [";
  for (size_t i = 0; i < n; ++i) g << (i ? ", " : "") << "[" << i << ", 0, 0]";
  g << "]}], ";
  std::vector<size_t> args, row_ptr, storage;
  for (size_t i = 0; i < n; ++i) args.push_back(i);
  for (size_t i = 0; i <= n; ++i) row_ptr.push_back(i);
  row_ptr.push_back(n + k);
  for (size_t i = 0; i < n + k; ++i) storage.push_back(i);
  g << "\"arg_nodes\": " << list(args) << ", \"node_row_ptr\": " << list(row_ptr)
    << ", \"heads\": [";
  for (size_t j = 0; j < heads.size(); ++j) g << (j ? ", " : "") << "[" << n << ", " << heads[j] << ", 0]";
  g << "], \"attrs\": {\"dltype\": [\"list_str\", [";
  for (size_t i = 0; i < n + k; ++i) g << (i ? ", " : "") << "\"int32\"";
  g << "]], \"storage_id\": [\"list_int\", " << list(storage) << "], \"shape\": [\"list_shape\", [";
  for (size_t i = 0; i < n; ++i) g << (i ? ", " : "") << shape_text(call.inputs[i].shape);
  for (size_t j = 0; j < k; ++j) {
    g << (n + j ? ", " : "") << (inf.ok ? shape_text(inf.shapes[j]) : std::string("[1]"));
  }
  g << "]], \"precision\": [\"list_int\", [";
  for (size_t i = 0; i < n; ++i) g << (i ? ", " : "") << call.inputs[i].precision;
  for (size_t j = 0; j < k; ++j) g << (n + j ? ", " : "") << -1;
  g << "]], \"op_attrs\": [\"list_str\", [";
  for (size_t i = 0; i < n; ++i) g << "\"{}\", ";
  g << quote(attr_text) << "]]}, \"version\": \"cvm_1.0.0\"}";
  return g.str();
}

// ---------------------------------------------------------------------------------------------
// Arrays through the runtime's C API

void api(int status, const char* what) {
  if (status != 0) throw std::runtime_error(std::string(what) + " failed: " + CVMGetLastError());
}

struct Array {
  CVMArrayHandle h = nullptr;
  Array(const std::vector<int64_t>& shape, int bits, int device_type) {
    api(CVMArrayAlloc(shape.data(), static_cast<int>(shape.size()), kDLInt, bits, 1, device_type,
                      0, &h),
        "CVMArrayAlloc");
  }
  ~Array() {
    if (h) CVMArrayFree(h);
  }
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
};

std::unique_ptr<Array> host_array(const w::Tensor& t) {
  auto a = std::make_unique<Array>(t.shape, t.dtype == w::DType::kInt8 ? 8 : 32, kDLCPU);
  if (!t.data.empty()) std::memcpy(a->h->data, t.data.data(), t.data.size());
  return a;
}

Module create(const std::string& graph) {
  const PackedFunc* creator = cvm::runtime::Registry::Get("cvm.runtime.create");
  if (creator == nullptr) throw std::runtime_error("cvm.runtime.create is not registered");
  Module m = (*creator)(graph, g_device_type, 0);
  return m;
}

int32_t output_precision(Module& m) {
  int32_t p = -1;
  m.GetFunction("get_output_precision")(static_cast<void*>(&p));
  return p;
}

w::Reply run_call(const w::Call& call) {
  const std::string attr_text = attrs_json(call.attrs);
  const Inferred inf = infer_outputs(call, attr_text);
  std::vector<size_t> all_heads;
  for (size_t j = 0; j < inf.num_outputs; ++j) all_heads.push_back(j);

  // 1-2. The model: graph checks, attribute parsing, inference, storage (CVMModel's constructor).
  Module m = create(graph_json(call, attr_text, inf, all_heads));

  // 3. Parameters: inputs 1.., serialized by the runtime's own CVMSaveParamsDict.
  {
    std::vector<std::unique_ptr<Array>> arrays;
    std::vector<std::string> names;
    std::vector<const void*> items;
    for (size_t i = 1; i < call.inputs.size(); ++i) {
      arrays.push_back(host_array(call.inputs[i]));
      names.push_back("param_" + std::to_string(i));
    }
    for (size_t i = 0; i < arrays.size(); ++i) {
      items.push_back(names[i].c_str());
      items.push_back(arrays[i]->h);
    }
    CVMByteArray blob;
    api(CVMSaveParamsDict(items.data(), static_cast<int>(items.size()), &blob),
        "CVMSaveParamsDict");
    const std::string bytes(blob.data, blob.size);
    CVMByteArray arg;
    arg.data = bytes.data();
    arg.size = bytes.size();
    m.GetFunction("load_params")(arg);
  }

  // 4. The data input, then run.
  if (!call.inputs.empty()) {
    auto data = host_array(call.inputs[0]);
    m.GetFunction("set_input")(std::string("data"), static_cast<DLTensor*>(data->h));
  }
  m.GetFunction("run")();

  // 5. Outputs and their precisions.
  std::vector<w::Tensor> outputs;
  uint64_t reply_bytes = 0;
  for (size_t j = 0; j < inf.num_outputs; ++j) {
    // The shape the loaded graph holds for the output (the runtime checked it against its own
    // inference), through the runtime's get_output_shape.
    std::vector<int64_t> shape;
    {
      DLTensor t{};
      t.shape = nullptr;
      m.GetFunction("get_output_shape")(static_cast<int>(j), &t);
      shape.assign(t.shape, t.shape + t.ndim);
      delete[] t.shape;
    }
    // A reply must fit one protocol frame; an output past it (the original accepts e.g.
    // upsampling scale 4096, whose output can exceed 1 GiB) is reported, not sent.
    uint64_t elements = 1;
    for (int64_t d : shape) elements *= static_cast<uint64_t>(d);
    reply_bytes += elements * 4 + 64;
    if (reply_bytes > w::kMaxFrameBytes - 4096) {
      throw std::runtime_error("worker: the original's outputs (" + std::to_string(reply_bytes) +
                               " bytes) exceed the protocol's frame limit");
    }
    Array out(shape, 32, kDLCPU);
    m.GetFunction("get_output")(static_cast<int>(j), static_cast<DLTensor*>(out.h));
    w::Tensor t;
    t.dtype = w::DType::kInt32;
    t.shape = shape;
    const size_t bytes = static_cast<size_t>(t.elements()) * 4;
    t.data.resize(bytes);
    std::memcpy(t.data.data(), out.h->data, bytes);
    outputs.push_back(std::move(t));
  }
  if (inf.num_outputs == 1) {
    outputs[0].precision = output_precision(m);
  } else {
    // get_output_precision answers the maximum over the graph's heads: one graph per output.
    for (size_t j = 0; j < inf.num_outputs; ++j) {
      Module single = create(graph_json(call, attr_text, inf, {j}));
      outputs[j].precision = output_precision(single);
    }
  }
  return w::Reply::ok(std::move(outputs));
}

// One call in this process: the original's exceptions become error replies (std::logic_error ->
// logic_error, anything else -> runtime_error), as its C API classes them.
w::Reply call_here(const w::Call& call) {
  if (g_device_type == kDLGPU) {
    // Asked in the process that runs the call (a forked child must not inherit CUDA state).
    static const std::string no_device = cvm_runtime_worker::cuda_unavailable_reason();
    if (!no_device.empty()) {
      return w::Reply::error(w::Outcome::kRuntimeError, "cvm-runtime/gpu: " + no_device);
    }
  }
  try {
    return run_call(call);
  } catch (const std::logic_error& e) {
    return w::Reply::error(w::Outcome::kLogicError,
                           std::string("cvm-runtime: ") + cvm_runtime_worker::brief(e.what()));
  } catch (const std::exception& e) {
    return w::Reply::error(w::Outcome::kRuntimeError,
                           std::string("cvm-runtime: ") + cvm_runtime_worker::brief(e.what()));
  } catch (...) {
    return w::Reply::error(w::Outcome::kRuntimeError, "cvm-runtime: a non-standard exception");
  }
}

bool g_fork = true;

w::Reply handle(const w::Call& call) {
  if (!g_fork) return call_here(call);
  return w::decode_reply(in_child([&] { return w::encode_reply(call_here(call)); }));
}

// One model (model_runner.h), in a child process as calls are.
w::ModelReply model_here(const w::GraphRequest& request) {
  if (g_device_type == kDLGPU) {
    static const std::string no_device = cvm_runtime_worker::cuda_unavailable_reason();
    if (!no_device.empty()) {
      return w::ModelReply::error(w::Outcome::kRuntimeError, "cvm-runtime/gpu: " + no_device);
    }
  }
  return cvm_runtime_worker::run_model(request, g_device_type);
}

w::ModelReply handle_graph(const w::GraphRequest& request) {
  if (!g_fork) return model_here(request);
  return w::decode_model_reply(
      in_child([&] { return w::encode_model_reply(model_here(request)); }));
}

int usage() {
  std::fprintf(stderr,
               "usage: cvm-runtime-worker --device formal|cpu|gpu [--log FILE] [--fork|--no-fork]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device = "formal", log = "/dev/null";
  int fork_choice = -1;  // -1: the device's default
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--device" && i + 1 < argc) {
      device = argv[++i];
    } else if (a == "--log" && i + 1 < argc) {
      log = argv[++i];
    } else if (a == "--no-fork") {
      fork_choice = 0;
    } else if (a == "--fork") {
      fork_choice = 1;
    } else {
      return usage();
    }
  }
  if (device == "formal") {
    g_device_type = kDLFORMAL;
  } else if (device == "cpu") {
    g_device_type = kDLCPU;
  } else if (device == "gpu") {
    g_device_type = kDLGPU;
  } else {
    return usage();
  }
  g_fork = fork_choice == -1 ? g_device_type != kDLGPU : fork_choice == 1;
  // The protocol gets its own descriptor; the original's prints go to the log.
  const int proto_out = ::dup(1);
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (proto_out < 0 || log_fd < 0) {
    std::perror("cvm-runtime-worker");
    return 2;
  }
  ::dup2(log_fd, 1);
  ::dup2(log_fd, 2);
  ::close(log_fd);
  return w::serve_graphs("cvm-runtime/" + device, kOps, handle, handle_graph, 0, {}, 0, proto_out);
}
