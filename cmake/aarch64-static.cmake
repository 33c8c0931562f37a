# Included after project() by cmake/aarch64-linux-gnu.cmake: every find_library takes the
# archive (libsqlite3.a, libgomp.a ...) for the static executables that toolchain links.
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
