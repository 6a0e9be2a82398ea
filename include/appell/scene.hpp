// Scene files (docs/scene-format.md) → Model.
//
// Errors are thrown as SceneError, whose what() reads
//   "<file>: <JSON pointer>: <what is wrong, what was expected>"
// e.g.  "four_bar.json: /bodies/2/mass: must be > 0, got -1".
#pragma once

#include <stdexcept>
#include <string>

#include "appell/model.hpp"

namespace appell {

class SceneError : public std::runtime_error {
 public:
  SceneError(std::string file, std::string pointer, std::string message);
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_, pointer_, message_;
};

// What a scene file says: the system (editable) and how to run it.
struct Scene {
  ModelBuilder model;
  Settings settings;
};

// Parses a scene from text; `file` names it in errors.  Throws SceneError.
Scene load_scene_from_string(const std::string& text, const std::string& file = "<scene>");
// Reads and parses a scene file: JSON, or a URDF robot when the path ends in .urdf
// (gravity (0, 0, −9.81), zero joint state, fixed base unless the URDF has a floating joint
// from its root; docs/scene-format.md "Robots from URDF").  Throws SceneError (also when the
// file cannot be read).
Scene load_scene(const std::string& path);

// compile(scene.model)
Model compile(const Scene& scene);
// compile(load_scene...(...).model): the constant Model of a scene.  Throws SceneError.
Model load_model_from_string(const std::string& text, const std::string& file = "<scene>");
Model load_model(const std::string& path);

}  // namespace appell
