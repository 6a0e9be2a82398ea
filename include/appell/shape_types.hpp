// The collision shape types (appell/geometry.hpp's ShapeType), each a type of its own
// registered once (engine/contact/shapes/registry.cpp).  The scene loader, the report and
// the contact code read this table: a type's name and scene keys, how it reads them, the
// checks of its sizes, its reach and thickness, and what a report draws.
//
// Adding a shape: one file in engine/contact/shapes/ (its ShapeKind: the members below,
// and its Bullet object and its points against a plane, engine/contact/shapes/
// shape_kind.hpp) and its line in engine/contact/shapes/registry.cpp; scenes/schema.json
// lists its name and keys (tests/shape_types_test.cpp checks that they agree).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "appell/geometry.hpp"

namespace appell {

// every registered type, in the order errors list them
const std::vector<ShapeType>& shape_types();
// "plane, sphere, capsule, box, cylinder or mesh": the valid names for an error message
std::string shape_type_names();

// The scene keys of a type's own sizes ("radius", "size", "file", ...), beside the keys
// every shape has (name, type, pose, friction, filters); in the order the registry first
// lists them, over all types for shape_parameter_keys().
std::vector<std::string> shape_keys(ShapeType t);
std::vector<std::string> shape_parameter_keys();

// A shape's scene entry as its type reads it: the scene loader gives one over the JSON
// (scenes/shapes.cpp), and every read that fails throws the loader's located SceneError.
class ShapeEntry {
 public:
  // the number at `key`, > 0
  virtual double positive(const char* key) const = 0;
  // the [x, y, z] at `key`, each > 0
  virtual Vec3 positive3(const char* key) const = 0;
  // the mesh the entry gives ("file", or "vertices" and "faces"; times "scale")
  virtual std::shared_ptr<const Mesh> mesh() const = 0;

 protected:
  ~ShapeEntry() = default;
};

// s.type's sizes read from `in` into s (radius, length, half_extents or mesh).
void read_shape_sizes(const ShapeEntry& in, Shape& s);

// What a report draws of a shape besides its pose (cli/report_geometry.cpp's "shapes"):
// its type's numbers by name ("radius": r; "size": a box's edges), at most 4.
struct ShapeDescription {
  struct Entry {
    const char* key = nullptr;
    int n = 0;  // 1: a number; 3: a vector
    double v[3] = {0, 0, 0};
  };
  Entry entries[4];
  int count = 0;
  void number(const char* key, double x) { entries[count++] = {key, 1, {x, 0, 0}}; }
  void vector(const char* key, const Vec3& x) { entries[count++] = {key, 3, {x(0), x(1), x(2)}}; }
};
ShapeDescription describe_shape(const Shape& s);

}  // namespace appell
