#include "cuda/paths.h"

namespace cvm::cuda::path {
namespace {

struct KindPath {
  StepKind kind;
  int index;
};

#define CVMCHECK_CUDA_PATH_DEFINE(kind, id, ops, description) \
  KindPath{StepKind::kind, paths::define(id, ops, description)},
const KindPath kPaths[] = {CVMCHECK_CUDA_PATHS(CVMCHECK_CUDA_PATH_DEFINE)};
#undef CVMCHECK_CUDA_PATH_DEFINE

}  // namespace

int of(StepKind kind) {
  for (const KindPath& p : kPaths) {
    if (p.kind == kind) return p.index;
  }
  return kPaths[0].index;  // unreachable: every kind is listed (a test checks the list)
}

void declare(Backend& backend) {
  for (const PathInfo& p : paths::defined()) {
    if (p.id.rfind("cuda.step.", 0) == 0) backend.paths.push_back(p.id);
  }
}

}  // namespace cvm::cuda::path
