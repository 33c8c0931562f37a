// The call descriptor: one canonical line that names one operator call exactly, as benchdnn
// prints a problem descriptor (docs/call-descriptor.md):
//
//   op=sum attrs={"axis":"(1,)","keepdims":"true"} in0=i8:2x3:p8:[1,-2,0*3,127] backend=optimized/avx2 threads=4
//
// Fields, separated by one space: op, attrs (the attribute object as case.json holds it,
// compact JSON), in0..inN-1 (dtype:shape:pPRECISION:values), and optionally expect, rule,
// rule_id (a generated invalid call's rule), backend and threads. Values are inline
// ([v,v,v*count], runs of 3 or more compressed) or, for a large tensor made by the value
// generator, rand(SEED,LO,HI) (splitmix64, below). The text is printable ASCII without a single
// quote, so '...' quotes it for a shell whatever the call holds. print -> parse -> print is the
// identity, and parse(print(call)) gives the same call (op, attrs, inputs bit for bit with dtype
// and precision, expect, rule, rule_id).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "harness/engine/call.h"

namespace cvm {

struct CallDescriptor {
  Call call;
  std::string backend;  // empty: none named
  int threads = 0;      // 0: not recorded (the process default)
};

// The whole descriptor, of any size: tensors inline unless the value generator made them (then
// rand(...) when inline would take more than kMaxInlineItems items). Throws LogicError only for
// attributes that are not valid UTF-8 (no JSON text holds them; a case.json cannot either).
std::string format_call_descriptor(const CallDescriptor& descriptor);
// With the thread count the process runs `backend` on (backend_threads below).
std::string format_call_descriptor(const Call& call, const std::string& backend);
std::string format_call_descriptor(const Call& call, const std::string& backend, int threads);

// Parses a descriptor. A malformed one is a LogicError whose message starts with
// "call descriptor: " and names the field and what is wrong; never a crash. Tensors are checked
// against the tensor limits before their values are read.
CallDescriptor parse_call_descriptor(const std::string& text);

// The descriptor for reports and __REPRO lines, when it is short enough to print on one line
// (at most kMaxCompactDescriptorChars); otherwise nullopt and `why_not` says why. The bound holds
// every call within the campaign's and the fuzz targets' input bounds (a few thousand arbitrary
// int32 values at most, about 12 characters each), so every finding prints its descriptor; it
// stops a huge case (e.g. millions of arbitrary values in a hand-made case) from becoming a
// multi-megabyte line. The campaign's table shows descriptors up to kTableDescriptorChars.
inline constexpr size_t kMaxCompactDescriptorChars = 128 * 1024;
inline constexpr size_t kTableDescriptorChars = 2048;
inline constexpr size_t kMaxInlineItems = 64;
std::optional<std::string> compact_call_descriptor(const Call& call, const std::string& backend,
                                                   std::string* why_not = nullptr);

// The thread count the process runs `backend` with, recorded as threads=N so a replay takes the
// same path; 0 where it is no process setting (the reference, a thread variant such as
// optimized@3 whose name fixes it, external workers). The top layer (registry/registry.cc)
// installs the query for the optimized backend; without one it is always 0.
using BackendThreadsQuery = std::function<int(const std::string& backend)>;
void set_backend_threads_query(BackendThreadsQuery query);
int backend_threads(const std::string& backend);

// The value generator of the rand(SEED,LO,HI) form: element i is
// LO + splitmix64(SEED + (i + 1) * 0x9e3779b97f4a7c15) mod (HI - LO + 1), for LO <= HI.
struct ValueGenerator {
  uint64_t seed = 0;
  int32_t lo = 0, hi = 0;
};
int32_t generated_value(const ValueGenerator& gen, int64_t index);
// A tensor filled by `gen` (LogicError for a shape over the limits, LO > HI, or int8 values out
// of range). The tensor is remembered (by content, in a bounded table checked by regenerating),
// so that printing it again gives rand(...) rather than its values.
Tensor generated_tensor(DType dtype, const Shape& shape, int precision, const ValueGenerator& gen);

}  // namespace cvm
