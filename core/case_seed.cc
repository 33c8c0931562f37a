#include "cvmcheck/case_seed.h"

#include <iomanip>
#include <sstream>

namespace cvm {

uint64_t case_seed(uint64_t seed, uint64_t index) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string seed_hex(uint64_t seed) {
  std::ostringstream out;
  out << std::hex << std::setw(16) << std::setfill('0') << seed;
  return out.str();
}

}  // namespace cvm
