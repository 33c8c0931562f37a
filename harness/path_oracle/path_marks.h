// The oracle of the kernel path marks (docs/paths.md): for every path a backend declares, rows of
// hand-built calls that must report it and, where a threshold or a boundary decides it, calls
// just on the other side that must not. A wrong mark changes no output, so without these rows
// nothing could see it, and the campaign's "every path reached" would rest on marks nobody
// checked: every campaign runs them on its compared backends (campaign_paths.h), and
// tests/path_marks_test.cc on every backend. Rows are data, by backend family
// (path_rows_optimized.cc, path_rows_cuda.cc); each call is sized from the backend's own
// thresholds, so a variant with other panels or tiles gets its own sides.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cvmcheck/registry.h"

namespace cvm::path_oracle {

// One call, built by hand: operator, attributes as JSON text, inputs.
struct PathCall {
  std::string op;
  std::string attrs;
  std::vector<ExampleTensor> inputs;
};

// A backend's thresholds by name (Backend::thresholds): the rows read the sizes that decide a
// path from here, never from a copy. An unknown name is a failure of the check (and gives 1).
class Sizes {
 public:
  Sizes(const Backend& backend, std::vector<std::string>& failures)
      : backend_(backend), failures_(failures) {}
  int64_t operator[](const std::string& name) const;

 private:
  const Backend& backend_;
  std::vector<std::string>& failures_;
};

using MakeCall = PathCall (*)(const Sizes&);

// A path's row. `path` is the path's id, or a pattern "conv2d.gemm.*": the row of every path of
// that prefix and one more component that no row names (each ISA's GEMM path, one row for all:
// optimized/isa_list.h). `scope` "" applies to every backend declaring the path, unless rows of
// the same path name a scope matching the backend: then only those apply. A scope matches a backend whose
// name ends with it ("@3", "/simple"), or, written "?id", one that can take path id (a dispatch
// picked by CPUID or CVMCHECK_ISA has no name for it). `must_not` is null only where no size
// decides the path within that backend (its ISA or kernel choice does): `one_sided` says why.
struct PathRow {
  PathRow(std::string path_id, std::string scope_suffix, MakeCall must_call,
          MakeCall must_not_call, std::string why_one_sided = "")
      : path(std::move(path_id)), scope(std::move(scope_suffix)), must(must_call),
        must_not(must_not_call), one_sided(std::move(why_one_sided)) {}
  std::string path;
  std::string scope;
  MakeCall must;
  MakeCall must_not;
  std::string one_sided;
};

// A declared path with no row: the reason (an explicit entry, never a silent gap).
struct AbsentPath {
  std::string path;
  std::string reason;
};

const std::vector<PathRow>& optimized_path_rows();
const std::vector<PathRow>& cuda_path_rows();
const std::vector<AbsentPath>& absent_path_rows();

// The rows that apply to `path` on `backend` (empty: none).
std::vector<const PathRow*> rows_for(const std::string& path, const Backend& backend);
// Whether a row's `pattern` ("conv2d.gemm.*") matches `path` (a pattern row applies to a path
// only where no row names it); false for a row naming one path.
bool row_pattern_matches(const std::string& pattern, const std::string& path);
// Whether a row names `path` itself.
bool has_exact_row(const std::string& path);
// The reason `path` has no row, or nullptr.
const AbsentPath* absent_row(const std::string& path);

// What check_path_marks ran on one backend: paths with a call that must take them, paths with
// a call that must not, and paths this machine cannot reach (their reason checked); and every
// failure, one line each ("BACKEND CALL must report PATH; it reported [...]").
struct MarkTally {
  int declared = 0, must = 0, must_not = 0, unreachable = 0;
  // Rows not run on an external backend because they read a threshold it does not declare (the
  // worker protocol carries paths, not thresholds): its rows of fixed sizes still run.
  int unsized = 0;
  std::vector<std::string> failures;
};
// Runs every row of every path `backend` (of `registry`) declares (none when it is unavailable:
// its reason is checked instead), and checks that each call reports only paths it can take.
MarkTally check_path_marks(const Registry& registry, const Backend& backend);

// --- Call builders (values: a fixed pattern in [-2, 2], precision 8 unless given) ---------

ExampleTensor filled(const Shape& shape, int precision = 8, DType dtype = DType::kInt32);
PathCall unary(const std::string& op, const Shape& shape, const std::string& attrs = "{}");
PathCall binary(const std::string& op, const Shape& a, const Shape& b);
// sum over `axis` ("(1,)"); "" for every axis.
PathCall reduce(const std::string& op, const Shape& shape, const std::string& axis);
PathCall transpose(const Shape& shape, const std::string& axes);
PathCall repeat(const Shape& shape, int64_t repeats, int64_t axis);
PathCall dense(int64_t rows, int64_t depth, int64_t units, DType x = DType::kInt32,
               DType w = DType::kInt32, int p_x = 8, int p_w = 8);
// conv2d of one image: in_channels x height x width, a kernel x kernel_w kernel (kernel_w 0:
// square), padding of the rows (pad_h) and of the columns (pad_w), stride 1 on the rows.
struct ConvCall {
  int64_t in_channels = 2, height = 4, width = 8, channels = 4;
  int64_t groups = 1, kernel = 1, kernel_w = 0, pad_h = 0, pad_w = 0, stride_w = 1;
  int p_data = 8, p_weight = 8;
};
PathCall conv(const ConvCall& c);
PathCall take();
PathCall max_pool();
PathCall upsampling(int64_t scale);
PathCall valid_counts();
PathCall nms(int64_t top_k);

}  // namespace cvm::path_oracle
