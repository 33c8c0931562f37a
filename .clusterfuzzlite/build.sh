#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: the same fuzz targets as the `fuzz` CMake preset, compiled
# with the engine's $CC/$CXX/$CXXFLAGS (sanitizer and coverage flags included) and linked with
# $LIB_FUZZING_ENGINE. Seed corpora, the dictionary and the libFuzzer options go next to each
# target.
deps=$WORK/deps
for dep in rapidcheck nlohmann-json CLI11; do
  cmake -S "$SRC/$dep" -B "$WORK/build-$dep" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$deps" -DBUILD_TESTING=OFF -DJSON_BuildTests=OFF \
    -DCLI11_BUILD_TESTS=OFF -DCLI11_BUILD_EXAMPLES=OFF -DRC_ENABLE_TESTS=OFF
  cmake --build "$WORK/build-$dep"
  cmake --install "$WORK/build-$dep"
done
cmake -S "$SRC/cvmcheck" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_PREFIX_PATH="$deps" -DCVMCHECK_FUZZ=ON -DCVMCHECK_TESTS=OFF \
  -DCVMCHECK_FUZZ_INSTRUMENT=OFF -DCVMCHECK_FUZZ_ENGINE="$LIB_FUZZING_ENGINE"
cmake --build "$WORK/build"
for target in "$SRC"/cvmcheck/corpus/*/; do
  name=$(basename "$target")
  cp "$WORK/build/bin/fuzz_$name" "$OUT/"
  cp "$SRC/cvmcheck/fuzz/attrs.dict" "$OUT/fuzz_$name.dict"
  cp "$SRC/cvmcheck/fuzz/libfuzzer.options" "$OUT/fuzz_$name.options"
  (cd "$target" && zip -q -r "$OUT/fuzz_${name}_seed_corpus.zip" .)
done
