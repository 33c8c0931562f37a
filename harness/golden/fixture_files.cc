#include "harness/golden/fixture_files.h"

#include <openssl/evp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <sstream>
#include <vector>

#include "cvmcheck/errors.h"

namespace cvm {
namespace fs = std::filesystem;

std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  check(EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) == 1,
        "sha256 failed");
  std::ostringstream out;
  for (unsigned int i = 0; i < length; ++i) {
    out << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(digest[i]);
  }
  return out.str();
}

std::string fixture_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  check(in.good(), "cannot read ", path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void make_empty_output_dir(const std::string& dir) {
  std::error_code ec;
  check(!fs::exists(dir, ec) || fs::is_empty(dir, ec), dir,
        " exists and is not empty; generate into a new directory");
  fs::create_directories(dir, ec);
}

nlohmann::json hash_folder(const std::string& dir, int64_t& files, int64_t& bytes) {
  std::vector<fs::path> paths;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  nlohmann::json hashes = nlohmann::json::object();
  for (const fs::path& path : paths) {
    const std::string content = fixture_bytes(path.string());
    hashes[path.filename().string()] = sha256_hex(content);
    ++files;
    bytes += static_cast<int64_t>(content.size());
  }
  return hashes;
}

}  // namespace cvm
