// Two rules of the scene loader for embedders that take names and scene text of their own
// (the Python module's ModelBuilder and load_model): the same functions the loader applies
// (scenes/reader.cpp, scenes/urdf.cpp), so an embedder and a scene file accept the same input.
#pragma once

#include <string>

namespace appell {

// Why `name` cannot name a `what` ("body", "constraint") in a scene, as a whole message
// ("body name 'a,b' contains a comma, ..."), or "" when it can: valid UTF-8 without a
// comma, a double quote or a control character (names become CSV columns and JSON keys).
std::string name_problem(const std::string& name, const char* what);

// True when the text of `file` is read as a URDF: XML with a <robot> root, or, in a file
// named .urdf, anything that does not start like JSON.  Throws SceneError for another XML
// format (an MJCF: test is_mjcf_text() first).
bool is_urdf_text(const std::string& text, const std::string& file);

// True when the text is read as an MJCF: XML with a <mujoco> root (scenes/mjcf.cpp).
bool is_mjcf_text(const std::string& text);

}  // namespace appell
