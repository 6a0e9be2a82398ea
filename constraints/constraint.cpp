#include "appell/constraint.hpp"

#include <algorithm>

namespace appell {

Constraint::Constraint(std::string name, std::vector<int> bodies)
    : name_(std::move(name)), bodies_(distinct_bodies(bodies)) {}

int Constraint::slot(int b) const {
  if (b == kWorld) return -1;
  auto it = std::find(bodies_.begin(), bodies_.end(), b);
  return it == bodies_.end() ? -1 : static_cast<int>(it - bodies_.begin());
}

std::vector<int> distinct_bodies(const std::vector<int>& bodies) {
  std::vector<int> out;
  for (int b : bodies)
    if (b != kWorld && std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  return out;
}

}  // namespace appell
