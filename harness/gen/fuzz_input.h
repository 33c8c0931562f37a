// The byte format the libFuzzer targets decode into one operator call, and its encoder (so that
// corpora are seeded from examples, golden cases and generated calls, and any fuzz input can be
// turned back into a case directory by `cvmcheck repro`). Every byte controls one small decision,
// which keeps libFuzzer's mutations local. Layout (all little-endian, a missing byte reads as 0):
//
//   u8  op selector        index into the target's operator names (aliases and one unknown
//                          name included), modulo their count
//   u8  mode               bit 7 set: generator mode, else explicit mode
//   generator mode:        u64 seed, u8 size, u8 rule (0: a valid call, k: invalid rule k-1)
//                          -> the call is drawn from the operator's RapidCheck generators,
//                          none of its tensors over kFuzzMaxTensorElements
//   explicit mode:         u8 attribute count, then per attribute: u8 key selector (schema
//                          index, or >= schema size: an unknown key), u8 length, the text bytes;
//                          u8 input count, then per input: u8 dtype (bit 0: int8), u8 precision,
//                          u8 ndim, ndim x u16 dims, u16 value count, value count x i32 values
//                          (the remaining elements repeat the given values, or are 0)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/call.h"

namespace cvm {

// Bounds that keep every decoded call in the milliseconds.
inline constexpr int64_t kFuzzMaxElements = 4096;  // all inputs together
inline constexpr size_t kFuzzMaxInputs = 8;
// Any one tensor the reference makes (an output, or an intermediate of a composed operator).
// The inputs above bound the work of every operator except through its attributes: a scale or
// a padding can multiply the output a millionfold. Over this cap the call is skipped. At the cap
// the slowest case measured (conv2d: 2^16 outputs, each over a 63x63 kernel) takes about 1 s in
// the sanitizer build over all backends.
inline constexpr int64_t kFuzzMaxTensorElements = int64_t{1} << 16;

struct FuzzTarget {
  std::string name;                 // "all" or a family name
  std::vector<std::string> names;   // operator names the selector picks from
};

// The targets: "all" and one per family. The names include aliases, and "all" one unknown name.
const std::vector<FuzzTarget>& fuzz_targets();
const FuzzTarget* find_fuzz_target(const std::string& name);
// The target `name`; std::invalid_argument naming it when there is none (a command's option).
const FuzzTarget& fuzz_target_named(const std::string& name);

// nullopt when the bytes describe no call worth running (over the bounds, or a generator that
// gave up). Never throws for any input.
std::optional<Call> decode_fuzz_input(const FuzzTarget& target, const uint8_t* data, size_t size);

// Explicit-mode bytes that decode to `call` (which must be within the bounds).
std::string encode_fuzz_input(const FuzzTarget& target, const Call& call);
// Generator-mode bytes.
std::string encode_generator_input(const FuzzTarget& target, const std::string& op, uint64_t seed,
                                   uint8_t size, uint8_t rule);

// The reference's outcome for `call` with kFuzzMaxTensorElements in scope, or nullopt when it
// would make a tensor over that cap (the call is then out of the fuzz bounds).
std::optional<Outcome> bounded_reference(const Registry& registry, const Call& call);

// Runs one decoded call through the diff engine on every backend of `registry`; returns a report
// when it is a finding: a backend disagreeing with the reference, the reference giving
// runtime_error (our bug), or (generator mode) the reference not giving the call's expected
// class. A call over the tensor cap is no finding.
std::optional<std::string> fuzz_one(const Registry& registry, const Call& call);
// As fuzz_one, comparing only `backends` with the reference (e.g. one external worker).
std::optional<std::string> fuzz_one(const Registry& registry, const Call& call,
                                    const std::vector<std::string>& backends);

}  // namespace cvm
