// The JSON the robot converters write (scenes/urdf*.cpp, scenes/mjcf*.cpp): vectors and
// rotations in the scene format's words.  Private to scenes/.
#pragma once

#include <nlohmann/json.hpp>

#include "appell/body.hpp"

namespace appell {

// [x, y, z]
inline nlohmann::json to_json(const Vec3& v) {
  return nlohmann::json::array({v.x(), v.y(), v.z()});
}
// URDF's roll-pitch-yaw of R = Rz(yaw) Ry(pitch) Rx(roll) (any one, at gimbal lock)
inline Vec3 rpy_of(const Mat3& R) {
  const Vec3 ypr = R.eulerAngles(2, 1, 0);
  return Vec3(ypr(2), ypr(1), ypr(0));
}
// the scene's "quaternion" [w, x, y, z] of R
inline nlohmann::json quat_json(const Mat3& R) {
  const Quat q(R);
  return nlohmann::json::array({q.w(), q.x(), q.y(), q.z()});
}

}  // namespace appell
