// cvmcheck mrt's screen table: one row per operator family, one column per backend, and the
// identity of every mismatch on its own MISMATCH line, so a folded row hides no failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness/mrt/mrt_run.h"

namespace cvm::mrt {
namespace {

MrtRow row(const std::string& identity, const std::string& backend, int64_t cases,
           int64_t mismatches, const std::string& skipped = "") {
  MrtRow r;
  r.identity = identity;
  r.backend = backend;
  r.cases = skipped.empty() ? cases : 0;
  r.mismatches = mismatches;
  r.skipped = skipped;
  if (mismatches > 0) r.first_mismatch = "case 4: value differs";
  return r;
}

// The line of the table that starts with `name`, or "".
std::string line_of(const std::string& table, const std::string& name) {
  const size_t at = table.find("\n" + name);
  if (at == std::string::npos) return "";
  return table.substr(at + 1, table.find('\n', at + 1) - at - 1);
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while ((i = line.find_first_not_of(' ', i)) != std::string::npos) {
    const size_t end = line.find(' ', i);
    out.push_back(line.substr(i, end - i));
    i = end;
  }
  return out;
}

TEST(MrtTable, OneRowPerFamilyAndEveryMismatchNamed) {
  const std::vector<MrtRow> rows = {
      row("conv2d_layer_xsym_wsym", "reference", 10, 0),
      row("conv2d_layer_xsym_wsym", "optimized", 10, 3),
      row("conv2d_channel_xsym_wsym", "reference", 7, 0),
      row("conv2d_channel_xsym_wsym", "optimized", 7, 0),
      row("relu_layer_xsym", "reference", 5, 0),
      row("relu_layer_xsym", "optimized", 5, 0, "unavailable: no device"),
      row("relu_channel_xsym", "reference", 4, 0),
      row("relu_channel_xsym", "optimized", 4, 0),
  };
  const std::string table = mrt_table(rows, 1, "");
  EXPECT_EQ(words(line_of(table, "conv2d_* (2)")),
            (std::vector<std::string>{"conv2d_*", "(2)", "17", "ok", "x3"}))
      << table;
  EXPECT_EQ(words(line_of(table, "relu_* (2)")),
            (std::vector<std::string>{"relu_*", "(2)", "9", "ok", "ok", "1/2"}))
      << table;
  EXPECT_NE(table.find("MISMATCH conv2d_layer_xsym_wsym on optimized"), std::string::npos)
      << table;
  EXPECT_NE(table.find("skipped backend optimized: unavailable: no device"), std::string::npos);
  // --table full keeps a row per identity x backend.
  const std::string full = mrt_table(rows, 1, "", true);
  EXPECT_EQ(std::count(full.begin(), full.end(), '\n'), 1 + 1 + 8 + 1) << full;
}

}  // namespace
}  // namespace cvm::mrt
