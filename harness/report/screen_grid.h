// A table for a terminal that fits a screen: one row per name (an operator, an MRT identity),
// a count column, and one numbered column per backend whose names a legend above gives, each
// cell a short text ("ok", "skip", "x3"). Lines stay within 100 columns: beyond eight backends
// the columns narrow to the texts they hold (twelve fit, at six columns a cell).
#pragma once

#include <string>
#include <vector>

namespace cvm {

struct ScreenGridRow {
  std::string name;
  int64_t count = 0;
  std::vector<std::string> cells;  // one per backend, in the grid's order
};

struct ScreenGrid {
  std::string name_header;   // "operator"
  std::string count_header;  // "calls"
  std::vector<std::string> backends;
  std::vector<ScreenGridRow> rows;
  std::vector<std::string> footer;  // a last row's cells, one per backend (may be empty)
  std::string footer_name;
};

std::string render_screen_grid(const ScreenGrid& grid);

}  // namespace cvm
