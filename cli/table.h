// runc's tables: Go's tabwriter with a minimum width of 12 and a padding of
// 3, so scripts that cut columns by position read vigil's and runc's alike.
#pragma once

#include <string>
#include <vector>

namespace vigil::cli {

// Prints `rows` (the header first) to standard output.
void PrintTable(const std::vector<std::vector<std::string>>& rows);

}  // namespace vigil::cli
