// Reference kernels of the broadcast family: broadcast_add, broadcast_sub, broadcast_mul,
// broadcast_div, broadcast_max, broadcast_greater. Naive loops over the contract's formula: both
// shapes are right-aligned and padded with leading 1s; each output element reads each operand at
// its own index, or at 0 along the operand's size-1 dims. Values are computed in int64.
#include <algorithm>

#include "common.h"
#include "kernels.h"

namespace cvm::ref {
namespace {

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMax, kGreater };

// Both input shapes padded with leading 1s to the output rank, and the output shape.
struct BroadcastPlan {
  Shape a;
  Shape b;
  Shape out;
};

Shape pad_leading_ones(const Shape& shape, size_t rank) {
  Shape padded(rank - shape.size(), 1);
  padded.insert(padded.end(), shape.begin(), shape.end());
  return padded;
}

BroadcastPlan plan_broadcast(const Tensor& a, const Tensor& b) {
  const size_t rank = std::max(a.shape().size(), b.shape().size());
  BroadcastPlan plan;
  plan.a = pad_leading_ones(a.shape(), rank);
  plan.b = pad_leading_ones(b.shape(), rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = plan.a[i];
    const int64_t db = plan.b[i];
    verify_rule(da == db || da == 1 || db == 1, "shapes_not_broadcastable", "shapes ",
                shape_str(a.shape()), " and ", shape_str(b.shape()),
                " do not broadcast: aligned dims ", da, " and ", db, " differ");
    plan.out.push_back(std::max(da, db));
  }
  return plan;
}

// Contract precision of each operator (may exceed 32; the caller rejects that).
int output_precision(BinaryOp op, int p0, int p1) {
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub: return std::max(p0, p1) + 1;
    case BinaryOp::kMul: return p0 + p1;
    case BinaryOp::kDiv: return p0;
    case BinaryOp::kMax: return std::max(p0, p1);
    case BinaryOp::kGreater: return std::max(p0, 2);
  }
  fail_runtime("unknown broadcast operator");
}

int64_t apply(BinaryOp op, int64_t x, int64_t y) {
  switch (op) {
    case BinaryOp::kAdd: return x + y;
    case BinaryOp::kSub: return x - y;
    case BinaryOp::kMul: return x * y;  // |x|, |y| < 2^31: the product fits int64
    case BinaryOp::kDiv: return y == 0 ? 0 : x / y;  // C++ division truncates toward zero
    case BinaryOp::kMax: return std::max(x, y);
    case BinaryOp::kGreater: return x > y ? 1 : 0;
  }
  fail_runtime("unknown broadcast operator");
}

// Index into an operand of (padded) shape `dims` for output index `out_index`.
Index operand_index(const Index& out_index, const Shape& dims) {
  Index index(out_index.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) index[i] = dims[i] == 1 ? 0 : out_index[i];
  return index;
}

template <BinaryOp op>
std::vector<Tensor> broadcast(const OpContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const BroadcastPlan plan = plan_broadcast(a, b);
  const int precision = output_precision(op, a.precision(), b.precision());
  verify_rule(precision <= kMaxPrecision, rules::kOutputPrecision, "output precision ", precision,
              " (from input precisions ", a.precision(), " and ", b.precision(), ") exceeds 32");
  Tensor y = make_output(plan.out, precision);  // checks the output shape limits first
  for (int64_t o = 0; o < y.size(); ++o) {
    const Index out_index = unravel(o, plan.out);
    const int64_t x0 = a.get(ravel(operand_index(out_index, plan.a), plan.a));
    const int64_t x1 = b.get(ravel(operand_index(out_index, plan.b), plan.b));
    const int64_t value = apply(op, x0, x1);
    check(value >= INT32_MIN && value <= INT32_MAX, "broadcast value ", value, " overflows int32");
    y.set(o, static_cast<int32_t>(value));
  }
  return {y};
}

}  // namespace

void add_broadcast(Backend& backend) {
  backend.add("broadcast_add", kernel(broadcast<BinaryOp::kAdd>));
  backend.add("broadcast_sub", kernel(broadcast<BinaryOp::kSub>));
  backend.add("broadcast_mul", kernel(broadcast<BinaryOp::kMul>));
  backend.add("broadcast_div", kernel(broadcast<BinaryOp::kDiv>));
  backend.add("broadcast_max", kernel(broadcast<BinaryOp::kMax>));
  backend.add("broadcast_greater", kernel(broadcast<BinaryOp::kGreater>));
}

}  // namespace cvm::ref
