// Generators of MRT identity cases (RapidCheck) and the check of one case on one backend:
// the expansion (mrt/mrt_identity.h) run on the backend must equal the direct formula
// exactly. Shared by the properties (tests/mrt/), `cvmcheck mrt` and the MRT golden fixtures.
#pragma once

#include <rapidcheck.h>

#include <optional>
#include <string>

#include "mrt/mrt_identity.h"

namespace cvm::mrt {

// Valid instances of `scheme`: random shapes, strides, dilations, paddings, integer buffers,
// zero-point offsets and merge multipliers, sized so that every step of the expansion stays
// within its operator's contract (conv2d/dense inputs of precision <= 8, every inferred
// precision <= 32). One random draw per statement, so generation does not depend on the
// compiler's evaluation order.
rc::Gen<IdentityCase> identity_case(const Scheme& scheme);

// Why `backend` cannot run the expansion of `scheme` ("" when it can): unavailable, or an
// operator the expansion uses is not implemented.
std::string skip_reason(const Backend& backend, const Scheme& scheme);

// Runs the expansion of `c` on `backend` (with `bug` planted) and compares it with the direct
// formula: nullopt when equal, else a report naming the first difference.
std::optional<std::string> check_identity(const Registry& registry, const IdentityCase& c,
                                          const std::string& backend,
                                          PlantedBug bug = PlantedBug::kNone);

// A short description of a case (scheme, shapes, attributes, offsets, small tensors).
std::string describe(const IdentityCase& c);

}  // namespace cvm::mrt
