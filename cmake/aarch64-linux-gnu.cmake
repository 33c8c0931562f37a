# Cross build for aarch64 Linux with Debian's toolchain (g++-aarch64-linux-gnu) and multiarch
# libraries (libsqlite3-dev:arm64 ...), which ci/setup.sh --arm64 installs; header-only packages
# (nlohmann-json, CLI11, SIMDe) are shared with the host. ci/arm64.sh builds with it and runs the
# binaries under qemu-aarch64 (user mode), which is also what ctest uses to run them.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Debian's cross compiler searches the multiarch paths (/usr/lib/aarch64-linux-gnu,
# /usr/include/aarch64-linux-gnu) and /usr/include itself; CMake's find_* must look there too,
# for packages only (never for programs: those run on the host).
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# The target's loader and libraries for qemu (-L): the cross toolchain's libc, plus the multiarch
# libraries, which the loader finds by the path the target's ld.so.conf names.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/usr/aarch64-linux-gnu)
# Never the host's libraries: pkg-config (FindOpenSSL asks it) and find_library would otherwise
# return /usr/lib/x86_64-linux-gnu ones, which link fails on.
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
# Static executables: under qemu-aarch64 7.2 (Debian 12) a dynamically linked aarch64 program
# hangs as it starts its first thread (std::thread or OpenMP alike; the static one runs), so every
# library is taken as its archive (libcrypto.a, libsqlite3.a, libgomp.a ...).
# CMake's Linux platform file sets the suffixes again after this file: aarch64-static.cmake
# sets them once project() has run.
set(CMAKE_PROJECT_INCLUDE ${CMAKE_CURRENT_LIST_DIR}/aarch64-static.cmake)
set(OPENSSL_USE_STATIC_LIBS TRUE)
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
