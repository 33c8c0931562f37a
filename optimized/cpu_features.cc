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
static_assert(kIsaCount <= kEmulated, "a cap state holds the ISA below the twin bit");

// Whether this CPU (and OS) runs `isa`'s native kernels: one test per ISA of this build's
// processor (isa_list.h); another processor's ISAs, never.
bool cpu_runs(Isa isa) {
  switch (isa) {
    case Isa::kPortable: return true;
#ifdef CVM_X86
    case Isa::kAvx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::kAvxVnni: {
      // AVX-VNNI is CPUID leaf 7, sub-leaf 1, EAX bit 4 (clang 14's __builtin_cpu_supports does
      // not know it); its VEX registers are AVX2's, whose OS support the AVX2 test checks.
      unsigned a = 0, b = 0, c = 0, d = 0;
      const bool leaf = __get_cpuid_count(7, 1, &a, &b, &c, &d) != 0;
      return cpu_runs(Isa::kAvx2) && leaf && (a & (1u << 4)) != 0;
    }
    case Isa::kAvx512Vnni:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
#elif defined(__aarch64__)
    // The kernel's view (HWCAP_ASIMDDP: SDOT/UDOT), which is also what qemu-aarch64 reports for
    // the CPU it emulates (QEMU_CPU=cortex-a53 has none).
    case Isa::kNeonDot: return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
#endif
    default: break;
  }
  return false;
}

struct Support {
  bool isa[kIsaCount] = {};
};

Support detect() {
#ifdef CVM_X86
  __builtin_cpu_init();
#endif
  Support s;
  for (int i = 0; i < kIsaCount; ++i) s.isa[i] = cpu_runs(static_cast<Isa>(i));
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

bool isa_supported(Isa isa) {
  const int i = static_cast<int>(isa);
  return i >= 0 && i < kIsaCount && support().isa[i];
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
