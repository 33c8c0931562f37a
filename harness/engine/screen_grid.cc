#include "harness/engine/screen_grid.h"

#include <iomanip>
#include <sstream>

namespace cvm {
namespace {

constexpr size_t kLineWidth = 100, kNameWidth = 24, kCountWidth = 9, kCellWidth = 8;

std::string legend(const std::vector<std::string>& backends) {
  std::string text = "backends:", line = text;
  for (size_t k = 0; k < backends.size(); ++k) {
    const std::string entry = " " + std::to_string(k + 1) + "=" + backends[k];
    if (line.size() + entry.size() > kLineWidth) {
      text += "\n         ";
      line = "         ";
    }
    text += entry;
    line += entry;
  }
  return text + "\n";
}

}  // namespace

std::string render_screen_grid(const ScreenGrid& grid) {
  std::ostringstream out;
  out << legend(grid.backends) << std::left << std::setw(kNameWidth) << grid.name_header
      << std::right << std::setw(kCountWidth) << grid.count_header;
  for (size_t k = 0; k < grid.backends.size(); ++k) out << std::setw(kCellWidth) << k + 1;
  out << "\n";
  for (const ScreenGridRow& row : grid.rows) {
    out << std::left << std::setw(kNameWidth) << row.name << std::right << std::setw(kCountWidth)
        << row.count;
    for (const std::string& cell : row.cells) out << std::setw(kCellWidth) << cell;
    out << "\n";
  }
  if (!grid.footer.empty()) {
    out << std::left << std::setw(kNameWidth + kCountWidth) << grid.footer_name << std::right;
    for (const std::string& cell : grid.footer) out << std::setw(kCellWidth) << cell;
    out << "\n";
  }
  return out.str();
}

}  // namespace cvm
