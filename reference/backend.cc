#include "kernels.h"

namespace cvm::ref {

Backend make_backend() {
  Backend backend;
  backend.name = kReferenceBackend;
#define CVMCHECK_FAMILY_KERNELS(family) add_##family,
  for (auto add : {CVMCHECK_FAMILIES(CVMCHECK_FAMILY_KERNELS)}) {
#undef CVMCHECK_FAMILY_KERNELS
    add(backend);
  }
  return backend;
}

}  // namespace cvm::ref
