// Each family file adds its reference kernels to the backend (reference/<family>.cc).
#pragma once

#include "cvmcheck/registry.h"

namespace cvm::ref {

void add_reduce(Backend& backend);
void add_broadcast(Backend& backend);
void add_elementwise(Backend& backend);
void add_nn(Backend& backend);
void add_transform_shape(Backend& backend);
void add_transform_index(Backend& backend);
void add_vision(Backend& backend);
void add_ov(Backend& backend);

// The reference backend, named "reference", with every family above.
Backend make_backend();

}  // namespace cvm::ref
