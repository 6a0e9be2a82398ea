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

// How a scene's URDF robot is held (docs/scene-format.md "Robots from URDF"): a URDF
// loaded directly is fixed-base unless it has its own floating joint, and a scene's
// "include" chooses with "base".  For `appell check` to state it.
struct RobotBase {
  std::string urdf;        // the URDF file; empty when the scene has no URDF
  std::string root_link;   // the URDF's root link
  bool floating = false;   // false: the root link, and what is welded to it, is the world
  std::string free_joint;  // a floating base's free joint: the URDF's, or "root_joint"
  bool chosen = false;     // the scene's include said "base" (else the URDF's own default)
};

// One line for a report: "fixed: root link 'base' is the world ..." or "floating: ...".
std::string describe(const RobotBase& base);

// What a scene file says: the system (editable) and how to run it.
struct Scene {
  ModelBuilder model;
  Settings settings;
  RobotBase robot;  // how its URDF robot's base is held, if it has one
  // what the loader left out and the user should know (a URDF's <collision> meshes that
  // were not found), one line each, located; the program prints them as warnings
  std::vector<std::string> warnings;
  // Every file the loader read to build it, each once, in the order first read: the scene
  // file (load_scene), the URDF or MJCF it includes, an MJCF's <include>d files, and the
  // mesh files of shapes and of MJCF mesh assets; paths as the loader opened them
  // (relative to the working directory unless absolute).  A program that writes files
  // keeps its outputs off these (`appell simulate --out` never replaces an input).
  std::vector<std::string> source_files;
};

// Parses a scene from text (JSON, or URDF when it is XML); `file` names it in errors.
// Throws SceneError.
Scene load_scene_from_string(const std::string& text, const std::string& file = "<scene>");
// Reads and parses a scene file, by its content: a JSON scene (`{`), or a URDF robot (XML
// with root element <robot>: gravity (0, 0, −9.81), zero joint state, fixed base unless the
// URDF has a floating joint from its root; docs/scene-format.md "Robots from URDF").
// Throws SceneError (also when the file cannot be read, is not a regular file, is larger
// than 16 MiB, or is another XML format such as MJCF).
Scene load_scene(const std::string& path);

// compile(scene.model)
Model compile(const Scene& scene);
// compile(load_scene...(...).model): the constant Model of a scene.  Throws SceneError.
Model load_model_from_string(const std::string& text, const std::string& file = "<scene>");
Model load_model(const std::string& path);

}  // namespace appell
