#include "optimized/cpu_features.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#define CVM_X86 1
#include <cpuid.h>
#elif defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace cvm::opt {
namespace {

// A cap state: the ISA, plus kEmulated for its SIMDe twin; -1 for none.
constexpr int kEmulated = 16;

struct Support {
  bool isa[kIsaCount] = {true, false, false, false, false};
};

Support detect() {
  Support s;
#if defined(__aarch64__)
  // The kernel's view (HWCAP_ASIMDDP: SDOT/UDOT), which is also what qemu-aarch64 reports for
  // the CPU it emulates (QEMU_CPU=cortex-a53 has none).
  s.isa[static_cast<int>(Isa::kNeonDot)] = (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
#endif
#ifdef CVM_X86
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  s.isa[static_cast<int>(Isa::kAvx2)] = avx2;
  // AVX-VNNI is CPUID leaf 7, sub-leaf 1, EAX bit 4 (clang 14's __builtin_cpu_supports does not
  // know it); its VEX registers are AVX2's, whose OS support avx2 above already checked.
  unsigned a = 0, b = 0, c = 0, d = 0;
  const bool leaf = __get_cpuid_count(7, 1, &a, &b, &c, &d) != 0;
  s.isa[static_cast<int>(Isa::kAvxVnni)] = avx2 && leaf && (a & (1u << 4)) != 0;
  s.isa[static_cast<int>(Isa::kAvx512Vnni)] =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
#endif
  return s;
}

const Support& support() {
  static const Support s = detect();
  return s;
}

// The best supported ISA ranked at or below `cap`.
Isa best_at_most(int cap) {
  for (int i = cap; i > 0; --i) {
    if (support().isa[i]) return static_cast<Isa>(i);
  }
  return Isa::kPortable;
}

// -1: no programmatic cap.
std::atomic<int> g_cap{-1};

int env_cap() {
  const char* text = std::getenv("CVMCHECK_ISA");
  if (text == nullptr) return -1;
  for (int i = 0; i < kIsaCount; ++i) {
    const std::string name = isa_name(static_cast<Isa>(i));
    if (name == text) return i;
    if (isa_has_twin(static_cast<Isa>(i)) && name + "~simde" == text) return i | kEmulated;
  }
  return -1;
}

int cap_now() {
  const int cap = g_cap.load(std::memory_order_relaxed);
  return cap < 0 ? env_cap() : cap;
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kAvx512Vnni: return "avx512vnni";
    case Isa::kAvxVnni: return "avxvnni";
    case Isa::kAvx2: return "avx2";
    case Isa::kNeonDot: return "neon-dotprod";
    case Isa::kPortable: break;
  }
  return "portable";
}

bool isa_built(Isa isa) {
  switch (isa) {
    case Isa::kPortable: return true;
#ifdef CVM_X86
    case Isa::kAvx2:
    case Isa::kAvxVnni:
    case Isa::kAvx512Vnni: return true;
#elif defined(__aarch64__)
    case Isa::kNeonDot: return true;
#endif
    default: break;
  }
  return false;
}

bool isa_supported(Isa isa) {
  const int i = static_cast<int>(isa);
  return i >= 0 && i < kIsaCount && support().isa[i];
}

bool isa_has_twin(Isa isa) {
  return isa_built(isa) && (isa == Isa::kAvxVnni || isa == Isa::kAvx512Vnni);
}

Isa detected_isa() { return best_at_most(kIsaCount - 1); }

Isa active_isa() {
  const int cap = cap_now();
  if (cap < 0) return detected_isa();
  if ((cap & kEmulated) != 0) return static_cast<Isa>(cap & ~kEmulated);
  return best_at_most(cap);
}

bool active_isa_emulated() {
  const int cap = cap_now();
  return cap >= 0 && (cap & kEmulated) != 0;
}

const char* active_isa_name() { return isa_name(active_isa()); }

void set_isa_cap(Isa cap, bool emulated) {
  const int isa = static_cast<int>(cap);
  g_cap.store(isa | (emulated && isa_has_twin(cap) ? kEmulated : 0), std::memory_order_relaxed);
}

void clear_isa_cap() { g_cap.store(-1, std::memory_order_relaxed); }

int isa_cap_state() { return g_cap.load(std::memory_order_relaxed); }

void restore_isa_cap_state(int state) { g_cap.store(state, std::memory_order_relaxed); }

}  // namespace cvm::opt
