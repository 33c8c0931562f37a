// What the published fixture sets (golden/, golden-graphs/, mrt-golden/) do alike on disk: start
// in a new or empty directory, read a file's bytes, and list a folder in the manifest as the
// sha256 of every file in it, so that a consumer can tell a damaged copy.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace cvm {

std::string sha256_hex(const std::string& bytes);

// The file's bytes; RuntimeError when it cannot be read.
std::string fixture_bytes(const std::string& path);

// Creates `dir`; RuntimeError when it exists and is not empty (a generator never mixes sets).
void make_empty_output_dir(const std::string& dir);

// {file name: sha256} of every regular file directly in `dir`, in name order; adds their count
// and bytes to `files` and `bytes`.
nlohmann::json hash_folder(const std::string& dir, int64_t& files, int64_t& bytes);

}  // namespace cvm
