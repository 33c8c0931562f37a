// How a campaign's calls are cut into blocks, so that the same seed makes the same calls however
// the campaign is cut (docs/campaign-schedule.md, "Blocks"). Call index i is in block
// i / block_calls; a block is drawn by one schedule from its first call to its last, and the
// blocks are dealt to the shards (block b to shard b mod N) and, within a shard, to its jobs in
// turn. So which arm draws index i depends on the seed, i and the calls of its block before it,
// never on how many shards or jobs share the campaign or where a run stopped and resumed.
#pragma once

#include <cstdint>

#include "cvmcheck/errors.h"

namespace cvm {

// The default block: about 3-6 s of one core's calls, so that the most expensive schedule arms
// (aimed sum and max calls, one in tens of thousands) still get their share of the time, where a
// short block would give each arm at least one call per block.
inline constexpr uint64_t kDefaultBlockCalls = 65536;

class CallBlocks {
 public:
  // Job `job` (0-based) of `jobs` in shard `shard` of `shards`, blocks of `block_calls` calls.
  CallBlocks(uint64_t block_calls, int shard, int shards, int job, int jobs)
      : size_(block_calls),
        shard_(static_cast<uint64_t>(shard)),
        shards_(static_cast<uint64_t>(shards)),
        job_(static_cast<uint64_t>(job)),
        jobs_(static_cast<uint64_t>(jobs)) {
    check(size_ >= 1, "a block holds at least one call");
    check(shards >= 1 && shard >= 0 && shard < shards, "shard ", shard + 1, " of ", shards);
    check(jobs >= 1 && job >= 0 && job < jobs, "job ", job + 1, " of ", jobs);
  }

  // The campaign index of this job's `local`-th call (0-based): its (local / size)-th block,
  // at local % size within it.
  uint64_t index(uint64_t local) const {
    const uint64_t turn = local / size_;
    const uint64_t block = (turn * jobs_ + job_) * shards_ + shard_;
    return block * size_ + local % size_;
  }
  // The place of this job's `local`-th call in its block (0 at a block's first call).
  uint64_t offset(uint64_t local) const { return local % size_; }
  uint64_t size() const { return size_; }

 private:
  uint64_t size_, shard_, shards_, job_, jobs_;
};

}  // namespace cvm
