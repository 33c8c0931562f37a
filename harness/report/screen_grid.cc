#include "harness/report/screen_grid.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace cvm {
namespace {

constexpr size_t kLineWidth = 100, kNameWidth = 24, kCountWidth = 9, kCellWidth = 8;

std::string legend(const std::vector<std::string>& backends) {
  std::string text = "backends:", line = text;
  for (size_t k = 0; k < backends.size(); ++k) {
    std::string entry = " ";  // appended piecewise: gcc 12 warns (-Wrestrict) on " " + string
    entry += std::to_string(k + 1);
    entry += '=';
    entry += backends[k];
    if (line.size() + entry.size() > kLineWidth) {
      text += "\n         ";
      line = "         ";
    }
    text += entry;
    line += entry;
  }
  return text + "\n";
}

struct Widths {
  size_t name = kNameWidth, count = kCountWidth, cell = kCellWidth;
};

// The default widths while the line fits 100 columns; with more backends (twelve with the CUDA
// variants) the columns shrink to what the grid's own texts need, one space apart.
Widths widths_of(const ScreenGrid& grid) {
  Widths w;
  const size_t n = grid.backends.size();
  if (n == 0 || w.name + w.count + n * w.cell <= kLineWidth) return w;
  size_t name = grid.name_header.size(), count = grid.count_header.size();
  size_t cell = std::to_string(n).size();
  for (const ScreenGridRow& row : grid.rows) {
    name = std::max(name, row.name.size());
    count = std::max(count, std::to_string(row.count).size());
    for (const std::string& c : row.cells) cell = std::max(cell, c.size());
  }
  for (const std::string& c : grid.footer) cell = std::max(cell, c.size());
  w.name = std::min(kNameWidth, name + 1);
  w.count = std::min(kCountWidth, count + 2);
  if (w.name + w.count < grid.footer_name.size() + 1) {
    w.name = grid.footer_name.size() + 1 - w.count;  // the footer's name spans both columns
  }
  const size_t room = kLineWidth > w.name + w.count ? (kLineWidth - w.name - w.count) / n : 0;
  w.cell = std::min(kCellWidth, std::max(cell + 1, room));
  return w;
}

}  // namespace

std::string render_screen_grid(const ScreenGrid& grid) {
  const Widths w = widths_of(grid);
  const auto cell_w = static_cast<int>(w.cell);
  std::ostringstream out;
  out << legend(grid.backends) << std::left << std::setw(static_cast<int>(w.name))
      << grid.name_header << std::right << std::setw(static_cast<int>(w.count))
      << grid.count_header;
  for (size_t k = 0; k < grid.backends.size(); ++k) out << std::setw(cell_w) << k + 1;
  out << "\n";
  for (const ScreenGridRow& row : grid.rows) {
    out << std::left << std::setw(static_cast<int>(w.name)) << row.name << std::right
        << std::setw(static_cast<int>(w.count)) << row.count;
    for (const std::string& cell : row.cells) out << std::setw(cell_w) << cell;
    out << "\n";
  }
  if (!grid.footer.empty()) {
    out << std::left << std::setw(static_cast<int>(w.name + w.count)) << grid.footer_name
        << std::right;
    for (const std::string& cell : grid.footer) out << std::setw(cell_w) << cell;
    out << "\n";
  }
  return out.str();
}

}  // namespace cvm
