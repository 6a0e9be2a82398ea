#include "cli/outputs.hpp"

namespace appell::cli {

void Csv::row(const std::vector<double>& values) {
  buffer_.format(values);
  write(buffer_.data(), buffer_.size());
}

}  // namespace appell::cli
