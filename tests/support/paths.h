// Paths the tests need: the cvmcheck binary, the example workers, the source tree and a Python
// with numpy. Each is the build's own (Debian's /usr/bin/python3) by default; an environment variable of the same name replaces it, so the
// test binary also runs from a relocated bundle (ci/gpu-bundle.sh) on a machine without the
// build tree.
#pragma once

#include <cstdlib>
#include <string>

namespace cvm::test {

inline const char* path_from_env(const char* variable, const char* built) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? value : built;
}

}  // namespace cvm::test

#define CVMCHECK_BINARY ::cvm::test::path_from_env("CVMCHECK_BINARY", CVMCHECK_BUILT_BINARY)
#define CVMCHECK_SOURCE_DIR \
  ::cvm::test::path_from_env("CVMCHECK_SOURCE_DIR", CVMCHECK_BUILT_SOURCE_DIR)
#define CVMCHECK_EXAMPLE_CPP_WORKER \
  ::cvm::test::path_from_env("CVMCHECK_EXAMPLE_CPP_WORKER", CVMCHECK_BUILT_EXAMPLE_CPP_WORKER)
#define CVMCHECK_BROKEN_WORKER \
  ::cvm::test::path_from_env("CVMCHECK_BROKEN_WORKER", CVMCHECK_BUILT_BROKEN_WORKER)
#define CVMCHECK_BREAKING_PROXY \
  ::cvm::test::path_from_env("CVMCHECK_BREAKING_PROXY", CVMCHECK_BUILT_BREAKING_PROXY)
#define CVMCHECK_WRONG_STORAGE_WORKER                                      \
  ::cvm::test::path_from_env("CVMCHECK_WRONG_STORAGE_WORKER",               \
                             CVMCHECK_BUILT_WRONG_STORAGE_WORKER)
#define CVMCHECK_PYTHON ::cvm::test::path_from_env("CVMCHECK_PYTHON", "/usr/bin/python3")
