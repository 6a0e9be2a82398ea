// How gtest shows appell's enums (parameters, failed comparisons): by name, not as bytes.
// Inline and in one header, so every test file that prints a Formulation prints it alike
// (a printer seen by one file only would make gtest's printer differ between files).
#pragma once

#include <appell/settings.hpp>
#include <ostream>

namespace appell {

inline void PrintTo(Formulation f, std::ostream* os) {
  *os << formulation_name(f);
}

}  // namespace appell
