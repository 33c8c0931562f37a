#include "kernels.h"

namespace cvm::ref {

Backend make_backend() {
  Backend backend;
  backend.name = "reference";
  for (auto add : {add_reduce, add_broadcast, add_elementwise, add_nn, add_transform_shape,
                   add_transform_index, add_vision, add_ov}) {
    add(backend);
  }
  return backend;
}

}  // namespace cvm::ref
