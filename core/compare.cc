#include "cvmcheck/compare.h"

#include <sstream>

#include "cvmcheck/errors.h"

namespace cvm {

std::string format_index(const std::vector<int64_t>& index) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < index.size(); ++i) out << (i ? ", " : "") << index[i];
  out << ']';
  return out.str();
}

static std::vector<int64_t> coords(int64_t flat, const Shape& shape) {
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t i = shape.size(); i-- > 0;) {
    index[i] = flat % shape[i];
    flat /= shape[i];
  }
  return index;
}

std::optional<Difference> compare_outcomes(const Outcome& actual, const Outcome& expected,
                                           const std::string& a, const std::string& e) {
  if (!actual.failure.empty()) {  // a worker that died, hung or garbled its reply
    return Difference{concat(a, " ", actual.failure, ": ", actual.message), -1, -1,
                      actual.failure};
  }
  if (actual.kind != expected.kind) {
    return Difference{concat("outcome: ", a, " ", outcome_name(actual.kind), " vs ", e, " ",
                             outcome_name(expected.kind)),
                      -1, -1, "class"};
  }
  if (actual.kind == OutcomeKind::kLogicError && !expected.rule.empty() && !actual.rule.empty() &&
      actual.rule != expected.rule) {
    return Difference{concat("rule: ", a, " ", actual.rule, " vs ", e, " ", expected.rule), -1, -1,
                      "rule"};
  }
  if (actual.kind != OutcomeKind::kOk) return std::nullopt;
  if (actual.outputs.size() != expected.outputs.size()) {
    return Difference{concat("output count: ", a, " ", actual.outputs.size(), " vs ", e, " ",
                             expected.outputs.size()),
                      -1, -1, "output_count"};
  }
  for (size_t k = 0; k < actual.outputs.size(); ++k) {
    const Tensor& x = actual.outputs[k];
    const Tensor& y = expected.outputs[k];
    const int out = static_cast<int>(k);
    if (x.shape() != y.shape()) {
      return Difference{concat("output ", k, " shape: ", a, " ", shape_str(x.shape()), " vs ", e,
                               " ", shape_str(y.shape())),
                        out, -1, "shape"};
    }
    if (x.precision() != y.precision()) {
      return Difference{concat("output ", k, " precision: ", a, " ", x.precision(), " vs ", e,
                               " ", y.precision()),
                        out, -1, "precision"};
    }
    if (x.dtype() != y.dtype()) {
      return Difference{concat("output ", k, " dtype: ", a, " ", dtype_name(x.dtype()), " vs ", e,
                               " ", dtype_name(y.dtype())),
                        out, -1, "dtype"};
    }
    for (int64_t i = 0; i < x.size(); ++i) {
      if (x.get(i) != y.get(i)) {
        return Difference{concat("output ", k, " value at index ", i, " (coords ",
                                 format_index(coords(i, x.shape())), "): ", a, " ", x.get(i),
                                 " vs ", e, " ", y.get(i)),
                          out, i, "value"};
      }
    }
  }
  return std::nullopt;
}

}  // namespace cvm
