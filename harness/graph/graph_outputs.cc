#include "harness/graph/graph_outputs.h"

#include <algorithm>
#include <cstring>

#include "cvmcheck/errors.h"

namespace cvm::graph {
namespace {

// The original reads its postprocess method back through a 32-byte C string.
std::string method_of(const Graph& g) {
  if (!g.postprocess) return "";
  return g.postprocess->substr(0, 31);
}

int64_t last_dim(const Tensor& t) { return t.shape().back(); }

int64_t output_length(const std::string& method, const std::vector<Tensor>& heads,
                      uint32_t type_size) {
  int64_t elements = 0;
  if (method == "argmax") {
    for (const Tensor& h : heads) elements += h.size() / last_dim(h);
  } else if (method == "detection") {
    const Tensor& first = heads.front();
    const int64_t rows = first.ndim() >= 2 ? first.shape()[first.shape().size() - 2] : 0;
    for (const Tensor& h : heads) elements += last_dim(h);
    elements *= rows;
  } else {
    for (const Tensor& h : heads) elements += h.size();
  }
  return elements * type_size;
}

// Writes elements one after another into a buffer of at least `capacity` elements.
class Sink {
 public:
  Sink(uint32_t type_size, int64_t capacity)
      : type_size_(type_size), bytes_(static_cast<size_t>(capacity) * type_size, 0) {}
  void put(int32_t v) {
    const size_t at = static_cast<size_t>(written_) * type_size_;
    if (type_size_ == 1) {
      bytes_[at] = static_cast<uint8_t>(static_cast<int8_t>(v));
    } else {
      std::memcpy(&bytes_[at], &v, 4);
    }
    ++written_;
  }
  std::vector<uint8_t> take(int64_t length_bytes) {
    bytes_.resize(static_cast<size_t>(length_bytes));
    return std::move(bytes_);
  }

 private:
  uint32_t type_size_;
  std::vector<uint8_t> bytes_;
  int64_t written_ = 0;
};

void write_argmax(Sink& out, const std::vector<Tensor>& heads) {
  for (const Tensor& h : heads) {
    const int64_t last = last_dim(h);
    const int64_t rows = h.size() / last;
    for (int64_t i = 0; i < rows; i += last) {  // the original's stride, kept
      int64_t max_id = 0;
      for (int64_t j = i; j < i + last; ++j) {
        if (static_cast<int8_t>(h.get(j)) > static_cast<int8_t>(h.get(i + max_id))) max_id = j - i;
      }
      out.put(static_cast<int32_t>(max_id));
    }
  }
}

void write_concatenated(Sink& out, const std::vector<Tensor>& heads) {
  const int64_t rows = heads.front().size() / last_dim(heads.front());
  bool can_concat = heads.size() > 1;
  for (const Tensor& h : heads) can_concat = can_concat && h.size() / last_dim(h) == rows;
  if (!can_concat) {
    throw LogicError(concat("the ", heads.size(), " head(s) cannot be concatenated row by row ",
                            "(detection model output cannot concat)"),
                     "graph.postprocess");
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (const Tensor& h : heads) {
      const int64_t width = last_dim(h);
      for (int64_t i = 0; i < width; ++i) out.put(h.get(r * width + i));
    }
  }
}

}  // namespace

PackedOutput pack_outputs(const Graph& g, const std::vector<Tensor>& heads) {
  verify(!heads.empty(), "a model without heads has no packed output");
  const std::string method = method_of(g);
  int precision = 0;
  for (const Tensor& h : heads) precision = std::max(precision, h.precision());
  PackedOutput packed;
  packed.type_size = precision > 8 || method == "argmax" || method == "detection" ? 4 : 1;
  const int64_t length = output_length(method, heads, packed.type_size);
  // Every way of writing writes at most all the heads' elements; the buffer holds them all, so
  // the detection writes past GetOutputLength land in it and are cut off at the end.
  int64_t all = 0;
  for (const Tensor& h : heads) all += h.size();
  Sink out(packed.type_size, std::max(all, length / packed.type_size));
  if (method == "argmax") {
    write_argmax(out, heads);
  } else if (method == "detection" || heads.size() > 1) {
    write_concatenated(out, heads);
  } else {
    for (int64_t i = 0; i < heads.front().size(); ++i) out.put(heads.front().get(i));
  }
  packed.bytes = out.take(length);
  return packed;
}

}  // namespace cvm::graph
