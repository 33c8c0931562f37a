// The `worker_reply` fuzz target's check (fuzz/worker_codec_check.h) and its seed corpus: every
// seed decodes as the message its name says and passes the check, and the check catches a codec
// whose encoder loses a byte (a planted bug), so a passing fuzz run means something.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cvmcheck_worker.hpp"
#include "fuzz/worker_codec_check.h"
#include "support/paths.h"

namespace cvm {
namespace {

namespace fs = std::filesystem;
namespace wp = cvmcheck_worker;

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(WorkerReplyFuzzCorpus, EverySeedDecodesAsItsNameSaysAndPassesTheCheck) {
  const fs::path dir = fs::path(CVMCHECK_SOURCE_DIR) / "corpus" / "worker_reply";
  int seeds = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const std::string payload = read_bytes(entry.path());
    ++seeds;
    EXPECT_FALSE(worker_codec_finding(payload).has_value()) << name;
    if (name.rfind("hello", 0) == 0) {
      EXPECT_NO_THROW(wp::decode_hello(payload)) << name;
    } else if (name.rfind("call", 0) == 0) {
      EXPECT_NO_THROW(wp::decode_call(payload)) << name;
    } else if (name.rfind("reply", 0) == 0) {
      EXPECT_NO_THROW(wp::decode_reply(payload)) << name;
    } else {
      EXPECT_EQ(name, "bye");
      EXPECT_EQ(payload, "Q");
    }
  }
  EXPECT_GE(seeds, 10);
}

// A planted bug: the reply encoder drops the last byte of every error message.
std::string lossy_encode_reply(const wp::Reply& reply) {
  wp::Reply copy = reply;
  if (!copy.message.empty()) copy.message.pop_back();
  return wp::encode_reply(copy);
}

TEST(WorkerReplyFuzzCorpus, TheCheckCatchesALossyEncoder) {
  wp::Reply reply = wp::Reply::error(wp::Outcome::kLogicError, "abs: bad input");
  const std::string payload = wp::encode_reply(reply).substr(4);
  EXPECT_FALSE(worker_codec_finding(payload).has_value());
  WorkerCodecFunctions planted;
  planted.encode_reply = lossy_encode_reply;
  const std::optional<std::string> finding = worker_codec_finding(payload, planted);
  ASSERT_TRUE(finding.has_value());
  EXPECT_NE(finding->find("reply of"), std::string::npos) << *finding;
}

// A planted bug in the path field: the encoder drops a reply's last path.
std::string pathless_encode_reply(const wp::Reply& reply, uint32_t flags) {
  wp::Reply copy = reply;
  if (!copy.paths.empty()) copy.paths.pop_back();
  return wp::encode_reply(copy, flags);
}

TEST(WorkerReplyFuzzCorpus, TheCheckCoversTheKernelPathField) {
  wp::Reply reply = wp::Reply::error(wp::Outcome::kLogicError, "abs: bad input");
  reply.paths = {"abs.negative"};
  const std::string payload = wp::encode_reply(reply, wp::kFlagPaths).substr(4);
  EXPECT_FALSE(worker_codec_finding(payload).has_value());
  WorkerCodecFunctions planted;
  planted.encode_reply_flags = pathless_encode_reply;
  const std::optional<std::string> finding = worker_codec_finding(payload, planted);
  ASSERT_TRUE(finding.has_value());
  EXPECT_NE(finding->find("reply with paths of"), std::string::npos) << *finding;
}

TEST(WorkerReplyFuzzCorpus, MalformedPayloadsAreRefusedWithoutAFinding) {
  for (const std::string& payload : {std::string(), std::string("R"), std::string(64, '\xff'),
                                     std::string("H\x01\x00\x00\x00", 5)}) {
    EXPECT_FALSE(worker_codec_finding(payload).has_value());
  }
}

}  // namespace
}  // namespace cvm
