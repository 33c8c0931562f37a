#include "model_runner.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

#include <cvm/c_api.h>
#include <cvm/dlpack.h>

#include "messages.h"
#include "model_probe.h"

namespace cvm_runtime_worker {
namespace {

namespace w = cvmcheck_worker;

// The C API prints an exception's text on stdout ("ERROR: <what>") and returns only its class:
// stdout goes to a temporary file around the calls, and the text is taken back from it.
class StdoutCapture {
 public:
  StdoutCapture() {
    std::fflush(stdout);
    file_ = std::tmpfile();
    saved_ = ::dup(1);
    if (file_ != nullptr && saved_ >= 0) ::dup2(::fileno(file_), 1);
  }
  ~StdoutCapture() { restore(); }
  StdoutCapture(const StdoutCapture&) = delete;
  StdoutCapture& operator=(const StdoutCapture&) = delete;

  // The text after the last "ERROR: " printed so far.
  std::string last_error() {
    restore();
    if (file_ == nullptr) return "";
    std::string text;
    std::rewind(file_);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) text.append(buf, n);
    std::fclose(file_);
    file_ = nullptr;
    const size_t at = text.rfind("ERROR: ");
    if (at == std::string::npos) return "";
    std::string what = text.substr(at + 7);
    while (!what.empty() && what.back() == '\n') what.pop_back();
    return what;
  }

 private:
  void restore() {
    std::fflush(stdout);
    if (saved_ >= 0) {
      ::dup2(saved_, 1);
      ::close(saved_);
      saved_ = -1;
    }
  }
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

int api_device(int device_type) {
  switch (device_type) {
    case kDLCPU: return 0;
    case kDLGPU: return 1;
    default: return 2;  // kDLFORMAL
  }
}

struct ApiResult {
  int status = SUCCEED;  // SUCCEED, ERROR_LOGIC or ERROR_RUNTIME
  std::string what;
  std::string stage;
  uint32_t type_size = 0;
  std::string packed;
};

// The data input as CVMAPIInference takes it: int8 or int32 bytes by the model's input type
// size (an int8 value is the int32 one saturated: the runtime clamps data to its precision, at
// most 8 bits where the type is int8, so the result is the same).
std::string packed_input(const w::GraphRequest& request, unsigned long long type_size) {
  std::string bytes;
  for (const auto& [name, t] : request.inputs) {
    if (name != "data") continue;
    for (int64_t i = 0; i < t.elements(); ++i) {
      const int32_t v = t.at(i);
      if (type_size == 1) {
        bytes.push_back(static_cast<char>(static_cast<int8_t>(std::clamp(v, -128, 127))));
      } else {
        bytes.append(reinterpret_cast<const char*>(&v), 4);
      }
    }
  }
  return bytes;
}

// What CVMAPIInference writes past the length CVMAPIGetOutputLength reports is detected with a
// guard of this pattern, large enough for every layout its post-processing can write.
constexpr unsigned char kGuard = 0xA5;

ApiResult run_api(const cvmcheck_worker::GraphRequest& request, int device_type) {
  ApiResult r;
  StdoutCapture capture;
  void* net = nullptr;
  r.stage = "CVMAPILoadModel";
  r.status = CVMAPILoadModel(request.graph_json.data(), static_cast<int>(request.graph_json.size()),
                             reinterpret_cast<const char*>(request.params.data()),
                             static_cast<int>(request.params.size()), &net,
                             api_device(device_type), 0);
  if (r.status != SUCCEED) {
    r.what = capture.last_error();
    return r;
  }
  unsigned long long in_type = 0, out_len = 0, out_type = 0, storage = 0;
  r.stage = "the model's sizes";
  r.status = CVMAPIGetInputTypeSize(net, &in_type);
  if (r.status == SUCCEED) r.status = CVMAPIGetOutputLength(net, &out_len);
  if (r.status == SUCCEED) r.status = CVMAPIGetOutputTypeSize(net, &out_type);
  if (r.status == SUCCEED) r.status = CVMAPIGetStorageSize(net, &storage);
  if (r.status == SUCCEED) {
    std::string input = packed_input(request, in_type);
    // Every head's elements in int32: the most any post-processing writes.
    const size_t room = static_cast<size_t>(std::max<unsigned long long>(out_len, storage)) + 64;
    std::string output(room, static_cast<char>(kGuard));
    std::fill(output.begin(), output.begin() + static_cast<std::ptrdiff_t>(out_len), '\0');
    r.stage = "CVMAPIInference";
    r.status = CVMAPIInference(net, input.data(), static_cast<int>(input.size()), output.data());
    if (r.status == SUCCEED) {
      size_t past = 0;
      for (size_t i = out_len; i < room; ++i) {
        if (static_cast<unsigned char>(output[i]) != kGuard) past = i + 1 - out_len;
      }
      if (past > 0) {
        r.status = ERROR_RUNTIME;
        r.what = "wrote " + std::to_string(past) +
                 " bytes past the output length CVMAPIGetOutputLength reports (" +
                 std::to_string(out_len) + ")";
      }
      r.type_size = static_cast<uint32_t>(out_type);
      r.packed = output.substr(0, static_cast<size_t>(out_len));
    }
  }
  if (r.status != SUCCEED && r.what.empty()) r.what = capture.last_error();
  CVMAPIFreeModel(net);
  return r;
}

w::Outcome outcome_of(int status) {
  return status == ERROR_LOGIC ? w::Outcome::kLogicError : w::Outcome::kRuntimeError;
}

}  // namespace

w::ModelReply run_model(const w::GraphRequest& request, int device_type) {
  w::ModelReply result;
  ApiResult api;
  ProbeResult probe;
  try {
    api = run_api(request, device_type);
    probe = probe_model(request, device_type);
  } catch (const std::exception& e) {
    result.outcome = w::Outcome::kRuntimeError;
    result.message = std::string("cvm-runtime worker: ") + e.what();
    return result;
  }
  result.entries = std::move(probe.entries);
  if (probe.failed) {
    // The probe ran the same load and nodes and knows the node: its failure is the model's.
    result.outcome = probe.logic ? w::Outcome::kLogicError : w::Outcome::kRuntimeError;
    result.message = "cvm-runtime: " + brief(probe.what);
    result.node = probe.node;
    if (api.status == SUCCEED || outcome_of(api.status) != result.outcome) {
      result.message += " (the C API: " +
                        (api.status == SUCCEED ? std::string("ok")
                                               : api.stage + " " + brief(api.what)) + ")";
    }
    return result;
  }
  if (api.status != SUCCEED) {
    // A failure of the C API alone. Its packing's own refusal (SaveTensor's VERIFY, e.g. heads
    // it cannot concatenate) leaves the model's run ok with no packed output, as the harness's
    // packing does (docs/graphs.md, "The packed output"); the message says why. Any other
    // failure (its load's own checks, a write past the output length) is the model's outcome.
    const bool packing_refused = api.stage == "CVMAPIInference" && api.status == ERROR_LOGIC;
    result.outcome = packing_refused ? w::Outcome::kOk : outcome_of(api.status);
    result.message = "cvm-runtime: " + api.stage + ": " +
                     (api.what.empty() ? std::string("failed without a message") : brief(api.what));
    return result;
  }
  w::PackedOutput packed;
  packed.type_size = api.type_size;
  packed.bytes.assign(api.packed.begin(), api.packed.end());
  result.packed = std::move(packed);
  return result;
}

}  // namespace cvm_runtime_worker
