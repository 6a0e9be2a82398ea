// Plain-text tables for people (`appell check` and `eval` on a terminal): columns padded
// to their widest cell, a rule under the header.  Machines read the JSON (--json).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "appell/model.hpp"

namespace appell::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void print(std::ostream& out, const std::string& indent = "  ") const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// s padded with spaces to `width` display columns, and always by two at least (a name
// longer than the column never touches the next one)
std::string padded(const std::string& s, size_t width);

// How each tree of the scene holds to the world: "fixed" (a joint to the world that is not
// free) or "floating" (a free joint to the world, or none: the tree's root floats).
struct Base {
  std::string body, joint, type;  // joint: empty when the root has no joint to the world
  bool floating = false;
};
std::vector<Base> scene_bases(const Model& m);
// "base: fixed (joint 'j1' to the world)", "base: floating (body 'b' on free joint 'root')",
// "bases: ...; ..." for several trees
std::string base_line(const Model& m);

// a number or a vector of numbers, to 4 significant digits ("[0, -9.81, 0]")
std::string brief(const nlohmann::ordered_json& v);

// `appell check`: the scene's bodies, constraints, forces, coordinates, rank and DoF, as
// tables (people) or as JSON
void print_check_table(std::ostream& out, const Model& m, int rank);
nlohmann::ordered_json check_json(const Model& m, int rank);
// `appell eval`: its JSON (cli/eval.cpp) as tables
void print_eval_table(std::ostream& out, const nlohmann::ordered_json& eval);

}  // namespace appell::cli
