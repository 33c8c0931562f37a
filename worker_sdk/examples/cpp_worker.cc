// An example external backend in C++: four elementwise operators (docs/ops/elementwise.md)
// written straight from the contract, served over the worker protocol with nothing but
// worker_sdk/include/cvmcheck_worker.hpp and the standard library. It shows what a worker must do
// besides the arithmetic: check every input and attribute and refuse a bad one with LogicError,
// so that its error classes agree with the reference's.
//
//   build/bin/example_cpp_worker          (speaks the protocol on stdin/stdout)
//   cvmcheck campaign --ops abs,negative,clip,cvm_clip --backends exec:"build/bin/example_cpp_worker"
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cvmcheck_worker.hpp"

namespace {

using cvmcheck_worker::Call;
using cvmcheck_worker::LogicError;
using cvmcheck_worker::Reply;
using cvmcheck_worker::Tensor;

int64_t alpha(int precision) { return (int64_t{1} << (precision - 1)) - 1; }

// Bits of |v| (0 for 0), as the contract's bitlen.
int bitlen(int64_t v) {
  int bits = 0;
  for (uint64_t m = static_cast<uint64_t>(v < 0 ? -v : v); m != 0; m >>= 1) ++bits;
  return bits;
}

// The contract's tensor limits and input rules (docs/contract.md, "Tensors").
void check_input(const Tensor& x) {
  if (x.shape.empty() || x.shape.size() > 6) throw LogicError("input needs 1 to 6 dims");
  int64_t elements = 1;
  for (int64_t d : x.shape) {
    if (d < 1 || d > (int64_t{1} << 24)) throw LogicError("input dim outside [1, 2^24]");
    elements *= d;
    if (elements > (int64_t{1} << 30)) throw LogicError("input over 2^30 elements");
  }
  if (x.precision < 1 || x.precision > 32) throw LogicError("input precision outside [1, 32]");
  if (x.dtype == cvmcheck_worker::DType::kInt8 && x.precision > 8) {
    throw LogicError("int8 input with precision above 8");
  }
  const int64_t a = alpha(x.precision);
  for (int64_t i = 0; i < elements; ++i) {
    const int64_t v = x.at(i);
    if (v < -a || v > a) throw LogicError("input value outside its precision");
  }
}

// Attribute text without the surrounding whitespace the contract ignores.
std::string trimmed(const std::string& raw) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  size_t begin = 0, end = raw.size();
  while (begin < end && space(raw[begin])) ++begin;
  while (end > begin && space(raw[end - 1])) --end;
  return raw.substr(begin, end - begin);
}

// The contract's int kind: optional sign, then decimal digits; must fit int32.
int32_t parse_int(const std::string& raw) {
  const std::string text = trimmed(raw);
  size_t begin = 0;
  const size_t end = text.size();
  bool negative = false;
  if (begin < end && (text[begin] == '+' || text[begin] == '-')) negative = text[begin++] == '-';
  if (begin == end) throw LogicError("malformed int '" + raw + "'");
  int64_t magnitude = 0;
  for (size_t i = begin; i < end; ++i) {
    if (text[i] < '0' || text[i] > '9') throw LogicError("malformed int '" + raw + "'");
    magnitude = magnitude * 10 + (text[i] - '0');
    if (magnitude > (int64_t{1} << 31)) throw LogicError("int '" + raw + "' out of range");
  }
  const int64_t value = negative ? -magnitude : magnitude;
  if (value < INT32_MIN || value > INT32_MAX) throw LogicError("int '" + raw + "' out of range");
  return static_cast<int32_t>(value);
}

// The attributes must be a string object holding only `allowed` keys; returns them in order,
// nullptr for an absent key.
std::vector<const std::string*> attrs_of(const Call& call, const std::vector<std::string>& allowed) {
  if (!call.attrs.is_string_object) throw LogicError("attributes are not an object of strings");
  for (const auto& pair : call.attrs.pairs) {
    if (std::find(allowed.begin(), allowed.end(), pair.first) == allowed.end()) {
      throw LogicError("unknown attribute '" + pair.first + "'");
    }
  }
  std::vector<const std::string*> values;
  for (const std::string& key : allowed) values.push_back(call.attrs.find(key));
  return values;
}

int32_t required_int(const std::string* text, const char* name) {
  if (text == nullptr) throw LogicError(std::string("missing attribute '") + name + "'");
  return parse_int(*text);
}

// One output of x's shape: f(v) for each element v.
template <typename F>
Reply map_values(const Tensor& x, int precision, F f) {
  std::vector<int32_t> values = x.values();
  for (int32_t& v : values) v = static_cast<int32_t>(f(int64_t{v}));
  return Reply::ok({Tensor::int32(x.shape, values, precision)});
}

Reply call_op(const Call& call) {
  const std::string& op = call.op;
  if (op != "abs" && op != "negative" && op != "clip" && op != "cvm_clip") {
    throw LogicError("unknown operator '" + op + "'");
  }
  std::vector<const std::string*> attrs;
  if (op == "clip") attrs = attrs_of(call, {"a_min", "a_max"});
  else if (op == "cvm_clip") attrs = attrs_of(call, {"precision", "is_sign"});
  else attrs = attrs_of(call, {});
  if (call.inputs.size() != 1) throw LogicError(op + " takes exactly one input");
  const Tensor& x = call.inputs[0];
  check_input(x);

  if (op == "abs") return map_values(x, x.precision, [](int64_t v) { return v < 0 ? -v : v; });
  if (op == "negative") return map_values(x, x.precision, [](int64_t v) { return -v; });
  if (op == "clip") {
    const int64_t lo = required_int(attrs[0], "a_min");
    const int64_t hi = required_int(attrs[1], "a_max");
    if (lo < -INT32_MAX || hi < -INT32_MAX) throw LogicError("clip bound is INT32_MIN");
    if (lo >= hi) throw LogicError("a_min must be below a_max");
    const int precision = bitlen(std::max(lo < 0 ? -lo : lo, hi < 0 ? -hi : hi) + 1) + 1;
    if (precision > 32) throw LogicError("clip output precision above 32");
    return map_values(x, precision, [lo, hi](int64_t v) { return std::min(std::max(v, lo), hi); });
  }
  // cvm_clip: is_sign is accepted and ignored, but it must still be a bool.
  const int precision = required_int(attrs[0], "precision");
  if (precision < 1 || precision > 32) throw LogicError("cvm_clip precision outside [1, 32]");
  if (attrs[1] != nullptr) {
    const std::string b = trimmed(*attrs[1]);
    if (b != "true" && b != "false" && b != "True" && b != "False" && b != "1" && b != "0") {
      throw LogicError("malformed bool '" + *attrs[1] + "'");
    }
  }
  const int64_t a = alpha(precision);
  return map_values(x, precision, [a](int64_t v) { return std::min(std::max(v, -a), a); });
}

}  // namespace

int main() {
  return cvmcheck_worker::serve("example-cpp", {"abs", "negative", "clip", "cvm_clip"}, call_op);
}
