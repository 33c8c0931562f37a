// cvmcheck worker protocol, version 1 (docs/backend-protocol.md): the wire codec, header-only,
// C++17, no dependency beyond the standard library. Workers include cvmcheck_worker.hpp, which
// adds the serve loop; the harness (harness/worker_client/worker_client.cc) uses the same codec,
// so the two sides cannot drift apart.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cvmcheck_worker_codec.hpp: the codec copies little-endian integers as they are in memory"
#endif

namespace cvmcheck_worker {

constexpr uint32_t kProtocolVersion = 1;
// A frame's payload is at most this many bytes (a call past it is not sent; a reply past it is
// a protocol error).
constexpr uint32_t kMaxFrameBytes = 1u << 30;
constexpr uint32_t kMaxDims = 16;        // the codec's bound; the contract allows 1..6
constexpr uint32_t kMaxListLength = 1u << 16;  // operators, attributes, inputs, outputs
// Handshake flags (Hello::flags).
constexpr uint32_t kFlagReportsRules = 1u;  // error replies carry the contract's rule id
// Outputs carry no precision (a runtime without the notion, e.g. ONNX): the harness compares
// values, shapes, dtypes and error classes, not precisions, and says so in its tables.
constexpr uint32_t kFlagNoPrecision = 2u;
// The hello declares the worker's kernel paths and every reply names the paths its call took
// (Hello::paths, Reply::paths): the campaign counts calls per path (core/include/cvmcheck/paths.h).
constexpr uint32_t kFlagPaths = 4u;
// The worker runs whole models: it takes graph requests (`G`) and answers model replies (`M`)
// (cvmcheck_worker_graph_codec.hpp). A worker without it never receives a graph request.
constexpr uint32_t kFlagGraphs = 8u;
// Paths declared in a hello, and paths named in one reply, at most (the harness's path table,
// cvm::paths::kMaxPaths, holds as many); a path's id, operator list or description at most
// kMaxPathTextBytes bytes, and an id never empty.
constexpr uint32_t kMaxPaths = 512;
constexpr uint32_t kMaxPathTextBytes = 4096;

enum class MessageType : uint8_t {
  kHello = 'H', kCall = 'C', kReply = 'R', kBye = 'Q', kGraph = 'G', kModel = 'M'
};
enum class DType : uint8_t { kInt8 = 0, kInt32 = 1 };
enum class Outcome : uint8_t { kOk = 0, kLogicError = 1, kRuntimeError = 2 };

class ProtocolError : public std::runtime_error {
 public:
  explicit ProtocolError(const std::string& what) : std::runtime_error(what) {}
};

// Thrown by a handler for a bad model or input: becomes a logic_error reply.
class LogicError : public std::runtime_error {
 public:
  explicit LogicError(const std::string& what, std::string rule = "")
      : std::runtime_error(what), rule(std::move(rule)) {}
  std::string rule;  // the contract's rule id, e.g. "conv2d.weight_shape"; may be empty
};

inline size_t dtype_bytes(DType dtype) { return dtype == DType::kInt8 ? 1 : 4; }

// A dense row-major tensor as raw little-endian bytes.
struct Tensor {
  DType dtype = DType::kInt32;
  std::vector<int64_t> shape;
  int32_t precision = 0;
  std::vector<uint8_t> data;

  int64_t elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  // Element i widened to int32.
  int32_t at(int64_t i) const {
    if (dtype == DType::kInt8) return static_cast<int8_t>(data[static_cast<size_t>(i)]);
    int32_t v;
    std::memcpy(&v, data.data() + 4 * static_cast<size_t>(i), 4);
    return v;
  }
  std::vector<int32_t> values() const {
    std::vector<int32_t> out(static_cast<size_t>(elements()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = at(static_cast<int64_t>(i));
    return out;
  }
  static Tensor int32(std::vector<int64_t> shape, const std::vector<int32_t>& values,
                      int32_t precision) {
    Tensor t;
    t.dtype = DType::kInt32;
    t.shape = std::move(shape);
    t.precision = precision;
    t.data.resize(values.size() * 4);
    if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
    return t;
  }
};

// The attributes exactly as the case holds them. Nearly always a JSON object of strings (the CVM
// graph-file syntax): then `pairs` holds them in key order. A negative case may hold anything
// else (a number value, an array, null): then `is_string_object` is false and `json` holds the
// compact JSON text, which the implementation must reject as a bad model.
struct Attrs {
  bool is_string_object = true;
  std::vector<std::pair<std::string, std::string>> pairs;
  std::string json;  // set only when !is_string_object

  const std::string* find(const std::string& key) const {
    for (const auto& [k, v] : pairs)
      if (k == key) return &v;
    return nullptr;
  }
};

struct Call {
  uint64_t id = 0;
  std::string op;  // as the case names it: canonical, an alias, or an unknown name
  Attrs attrs;
  std::vector<Tensor> inputs;
};

struct Reply {
  uint64_t id = 0;
  Outcome outcome = Outcome::kOk;
  std::vector<Tensor> outputs;  // ok only
  std::string message;          // errors only
  std::string rule;             // errors only; empty when not reported
  // The ids of the kernel paths the call took, ok or error alike; on the wire only when the
  // worker's hello has kFlagPaths (encode_reply and decode_reply take those flags).
  std::vector<std::string> paths;

  static Reply ok(std::vector<Tensor> outputs) {
    Reply r;
    r.outputs = std::move(outputs);
    return r;
  }
  static Reply error(Outcome outcome, std::string message, std::string rule = "") {
    Reply r;
    r.outcome = outcome;
    r.message = std::move(message);
    r.rule = std::move(rule);
    return r;
  }
};

// A kernel path a worker declares: an id ("conv2d.gemm.partial_panel"), the operators whose
// calls can take it (comma-separated canonical names) and one line on what a call must be like
// to take it.
struct PathDecl {
  std::string id;
  std::string ops;
  std::string description;
};

struct Hello {
  uint32_t version = kProtocolVersion;
  std::string name;               // worker -> harness: the implementation's name
  uint32_t flags = 0;             // worker -> harness: kFlag*
  std::vector<std::string> ops;   // worker -> harness: the operators it implements
  std::vector<PathDecl> paths;    // worker -> harness, with kFlagPaths: its kernel paths
};

// ---------------------------------------------------------------------------------------------
// Encoding: a payload is built in a Writer; frame() prefixes its u32 length.

class Writer {
 public:
  explicit Writer(MessageType type) { u8(static_cast<uint8_t>(type)); bytes_.reserve(256); }
  void u8(uint8_t v) { bytes_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void i32(int32_t v) { raw(&v, 4); }
  void i64(int64_t v) { raw(&v, 8); }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    bytes_.append(s);
  }
  void tensor(const Tensor& t) {
    u8(static_cast<uint8_t>(t.dtype));
    u8(static_cast<uint8_t>(t.shape.size()));
    for (int64_t d : t.shape) i64(d);
    i32(t.precision);
    u64(t.data.size());
    bytes_.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  }
  // A tensor from parts, so the harness encodes its own tensors without a copy to Tensor.
  void blob(const void* data, size_t bytes) {
    u64(bytes);
    bytes_.append(static_cast<const char*>(data), bytes);
  }
  void tensor_parts(DType dtype, const std::vector<int64_t>& shape, int32_t precision,
                    const void* data, size_t bytes) {
    u8(static_cast<uint8_t>(dtype));
    u8(static_cast<uint8_t>(shape.size()));
    for (int64_t d : shape) i64(d);
    i32(precision);
    u64(bytes);
    bytes_.append(static_cast<const char*>(data), bytes);
  }
  // The frame: u32 payload length, then the payload.
  std::string frame() const {
    if (bytes_.size() > kMaxFrameBytes) throw ProtocolError("message over the frame limit");
    std::string out(4, '\0');
    const auto n = static_cast<uint32_t>(bytes_.size());
    std::memcpy(out.data(), &n, 4);
    out += bytes_;
    return out;
  }
  const std::string& payload() const { return bytes_; }

 private:
  void raw(const void* p, size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  std::string bytes_;
};

// Decoding: every read is bounds-checked; a short, oversized or inconsistent field throws
// ProtocolError naming it.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  explicit Reader(const std::string& payload)
      : Reader(reinterpret_cast<const uint8_t*>(payload.data()), payload.size()) {}

  uint8_t u8(const char* what) { uint8_t v; raw(&v, 1, what); return v; }
  uint32_t u32(const char* what) { uint32_t v; raw(&v, 4, what); return v; }
  uint64_t u64(const char* what) { uint64_t v; raw(&v, 8, what); return v; }
  int32_t i32(const char* what) { int32_t v; raw(&v, 4, what); return v; }
  int64_t i64(const char* what) { int64_t v; raw(&v, 8, what); return v; }
  std::string str(const char* what) { return text(u32(what), what); }
  uint32_t count(const char* what, uint32_t limit = kMaxListLength) {
    const uint32_t n = u32(what);
    if (n > limit) fail(std::string(what) + " count " + std::to_string(n) + " over the limit");
    return n;
  }
  // A path's id (never empty), operator list or description: a str of at most
  // kMaxPathTextBytes bytes.
  std::string path_text(const char* what, bool is_id) {
    const uint32_t len = u32(what);
    if (len > kMaxPathTextBytes || (is_id && len == 0)) {
      fail(std::string(what) + " of " + std::to_string(len) + " bytes (" + (is_id ? "1.." : "0..") +
           std::to_string(kMaxPathTextBytes) + ")");
    }
    return text(len, what);
  }
  void expect_type(MessageType type) {
    const uint8_t t = u8("message type");
    if (t != static_cast<uint8_t>(type)) {
      fail(std::string("message type '") + printable(t) + "' where '" +
           static_cast<char>(type) + "' was expected");
    }
  }
  Tensor tensor(const char* what) {
    Tensor t;
    const uint8_t dtype = u8(what);
    if (dtype > 1) fail(std::string(what) + ": unknown dtype code " + std::to_string(dtype));
    t.dtype = static_cast<DType>(dtype);
    const uint8_t ndim = u8(what);
    if (ndim > kMaxDims) fail(std::string(what) + ": " + std::to_string(ndim) + " dims");
    uint64_t elements = 1;
    for (uint8_t i = 0; i < ndim; ++i) {
      const int64_t d = i64(what);
      if (d < 0 || d > (int64_t{1} << 31)) {
        fail(std::string(what) + ": dim " + std::to_string(d) + " out of range");
      }
      t.shape.push_back(d);
      elements *= static_cast<uint64_t>(d);
      if (elements > (uint64_t{1} << 31)) fail(std::string(what) + ": too many elements");
    }
    t.precision = i32(what);
    const uint64_t bytes = u64(what);
    const uint64_t want = elements * dtype_bytes(t.dtype);
    if (bytes != want) {
      fail(std::string(what) + ": " + std::to_string(bytes) + " data bytes for " +
           std::to_string(elements) + " elements of " + (dtype == 0 ? "int8" : "int32"));
    }
    need(bytes, what);
    t.data.assign(p_ + pos_, p_ + pos_ + bytes);
    pos_ += static_cast<size_t>(bytes);
    return t;
  }
  // A u64 byte count and that many bytes (a params blob, a packed output).
  std::vector<uint8_t> blob(const char* what) {
    const uint64_t bytes = u64(what);
    need(bytes, what);
    std::vector<uint8_t> out(p_ + pos_, p_ + pos_ + bytes);
    pos_ += static_cast<size_t>(bytes);
    return out;
  }
  // Every byte consumed: trailing bytes are a protocol error.
  void finish(const char* what) {
    if (pos_ != n_) fail(std::to_string(n_ - pos_) + " trailing bytes after the " + what);
  }

 private:
  static std::string printable(uint8_t c) {
    return c >= 32 && c < 127 ? std::string(1, static_cast<char>(c))
                              : "\\x" + std::to_string(static_cast<int>(c));
  }
  void need(uint64_t n, const char* what) {
    if (n > n_ - pos_) {
      fail(std::string("message ends inside the ") + what + " (" + std::to_string(n) +
           " bytes wanted, " + std::to_string(n_ - pos_) + " left)");
    }
  }
  std::string text(uint32_t len, const char* what) {
    need(len, what);
    std::string s(reinterpret_cast<const char*>(p_ + pos_), len);
    pos_ += len;
    return s;
  }
  void raw(void* out, size_t n, const char* what) {
    need(n, what);
    std::memcpy(out, p_ + pos_, n);
    pos_ += n;
  }
  [[noreturn]] static void fail(const std::string& what) { throw ProtocolError(what); }

  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
};

inline std::string encode_hello(const Hello& h) {
  Writer w(MessageType::kHello);
  w.u32(h.version);
  w.str(h.name);
  w.u32(h.flags);
  w.u32(static_cast<uint32_t>(h.ops.size()));
  for (const std::string& op : h.ops) w.str(op);
  if ((h.flags & kFlagPaths) != 0) {
    w.u32(static_cast<uint32_t>(h.paths.size()));
    for (const PathDecl& p : h.paths) {
      w.str(p.id);
      w.str(p.ops);
      w.str(p.description);
    }
  }
  return w.frame();
}

inline Hello decode_hello(const std::string& payload) {
  Reader r(payload);
  r.expect_type(MessageType::kHello);
  Hello h;
  h.version = r.u32("hello version");
  h.name = r.str("hello name");
  h.flags = r.u32("hello flags");
  const uint32_t n = r.count("hello operators");
  for (uint32_t i = 0; i < n; ++i) h.ops.push_back(r.str("hello operator name"));
  if ((h.flags & kFlagPaths) != 0) {
    const uint32_t m = r.count("hello paths", kMaxPaths);
    for (uint32_t i = 0; i < m; ++i) {
      PathDecl p;
      p.id = r.path_text("hello path id", true);
      p.ops = r.path_text("hello path operators", false);
      p.description = r.path_text("hello path description", false);
      h.paths.push_back(std::move(p));
    }
  }
  r.finish("hello");
  return h;
}

inline void encode_attrs(Writer& w, const Attrs& a) {
  w.u8(a.is_string_object ? 0 : 1);
  if (!a.is_string_object) {
    w.str(a.json);
    return;
  }
  w.u32(static_cast<uint32_t>(a.pairs.size()));
  for (const auto& [k, v] : a.pairs) {
    w.str(k);
    w.str(v);
  }
}

inline std::string encode_call(const Call& c) {
  Writer w(MessageType::kCall);
  w.u64(c.id);
  w.str(c.op);
  encode_attrs(w, c.attrs);
  w.u32(static_cast<uint32_t>(c.inputs.size()));
  for (const Tensor& t : c.inputs) w.tensor(t);
  return w.frame();
}

inline Call decode_call(const std::string& payload) {
  Reader r(payload);
  r.expect_type(MessageType::kCall);
  Call c;
  c.id = r.u64("call id");
  c.op = r.str("operator");
  const uint8_t form = r.u8("attribute form");
  if (form > 1) throw ProtocolError("unknown attribute form " + std::to_string(form));
  c.attrs.is_string_object = form == 0;
  if (form == 1) {
    c.attrs.json = r.str("attribute JSON");
  } else {
    const uint32_t n = r.count("attributes");
    for (uint32_t i = 0; i < n; ++i) {
      std::string k = r.str("attribute name");
      c.attrs.pairs.emplace_back(std::move(k), r.str("attribute value"));
    }
  }
  const uint32_t n = r.count("inputs");
  for (uint32_t i = 0; i < n; ++i) c.inputs.push_back(r.tensor("input"));
  r.finish("call");
  return c;
}

// `flags`: the worker's hello flags; with kFlagPaths the reply ends with its paths.
inline std::string encode_reply(const Reply& rep, uint32_t flags) {
  Writer w(MessageType::kReply);
  w.u64(rep.id);
  w.u8(static_cast<uint8_t>(rep.outcome));
  if (rep.outcome == Outcome::kOk) {
    w.u32(static_cast<uint32_t>(rep.outputs.size()));
    for (const Tensor& t : rep.outputs) w.tensor(t);
  } else {
    w.str(rep.message);
    w.str(rep.rule);
  }
  if ((flags & kFlagPaths) != 0) {
    w.u32(static_cast<uint32_t>(rep.paths.size()));
    for (const std::string& id : rep.paths) w.str(id);
  }
  return w.frame();
}
inline std::string encode_reply(const Reply& rep) { return encode_reply(rep, 0); }

inline Reply decode_reply(const std::string& payload, uint32_t flags) {
  Reader r(payload);
  r.expect_type(MessageType::kReply);
  Reply rep;
  rep.id = r.u64("reply call id");
  const uint8_t outcome = r.u8("reply outcome");
  if (outcome > 2) throw ProtocolError("unknown outcome code " + std::to_string(outcome));
  rep.outcome = static_cast<Outcome>(outcome);
  if (rep.outcome == Outcome::kOk) {
    const uint32_t n = r.count("outputs");
    for (uint32_t i = 0; i < n; ++i) rep.outputs.push_back(r.tensor("output"));
  } else {
    rep.message = r.str("error message");
    rep.rule = r.str("error rule");
  }
  if ((flags & kFlagPaths) != 0) {
    const uint32_t n = r.count("reply paths", kMaxPaths);
    for (uint32_t i = 0; i < n; ++i) rep.paths.push_back(r.path_text("reply path id", true));
  }
  r.finish("reply");
  return rep;
}
inline Reply decode_reply(const std::string& payload) { return decode_reply(payload, 0); }

inline std::string encode_bye() { return Writer(MessageType::kBye).frame(); }

}  // namespace cvmcheck_worker
