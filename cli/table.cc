#include "cli/table.h"

#include <algorithm>
#include <cstdio>

namespace vigil::cli {

void PrintTable(const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return;
  constexpr std::size_t kMinWidth = 12;
  constexpr std::size_t kPadding = 3;
  std::vector<std::size_t> widths(rows.front().size(), kMinWidth);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size() + kPadding);
    }
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i + 1 < row.size(); ++i) {
      line += row[i];
      line.append(widths[i] - row[i].size(), ' ');
    }
    line += row.back();
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace vigil::cli
