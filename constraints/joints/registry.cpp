// The joint types a scene can name.  A new type is one file in this folder, which defines
// its accessor `<type>_joint()`, and its declaration and entry below.
#include <stdexcept>

#include "appell/joint_type.hpp"
#include "constraints/kernels.hpp"

namespace appell {

// defined in constraints/joints/<type>.cpp
const JointType& spherical_joint();
const JointType& revolute_joint();
const JointType& prismatic_joint();
const JointType& cylindrical_joint();
const JointType& universal_joint();
const JointType& fixed_joint();
const JointType& planar_joint();
const JointType& helical_joint();

const std::vector<const JointType*>& joint_types() {
  static const std::vector<const JointType*> table = {
      &spherical_joint(),    //
      &revolute_joint(),     //
      &prismatic_joint(),    //
      &cylindrical_joint(),  //
      &universal_joint(),    //
      &fixed_joint(),        //
      &free_joint(),         //
      &planar_joint(),       //
      &helical_joint(),      //
  };
  return table;
}

const JointType* find_joint_type(const std::string& name) {
  for (const JointType* t : joint_types())
    if (name == t->name()) return t;
  return nullptr;
}

const JointType* find_joint_type(JointFormat format, const std::string& name) {
  for (const JointType* t : joint_types())
    for (const std::string& n : t->names_in(format))
      if (name == n) return t;
  return nullptr;
}

const JointType& joint_type(const std::string& name) {
  if (const JointType* t = find_joint_type(name)) return *t;
  std::string known;
  for (const JointType* t : joint_types())
    known += (known.empty() ? "" : ", ") + std::string(t->name());
  throw std::invalid_argument("joint_type(): unknown joint type '" + name + "' (known: " + known +
                              ")");
}

Mat3 JointType::axes(const Vec3& axis, const Vec3&) const {
  Vec3 n1, n2;
  const Vec3 a = axis.normalized();
  perpendicular_basis(a, n1, n2);
  Mat3 E;
  E << n1, n2, a;
  return E;
}

std::shared_ptr<const JointType> JointType::with_parameter(double) const {
  throw std::invalid_argument(std::string(name()) + " joint: takes no parameter");
}

void JointType::qdot(const double*, const double* u, double* qdot) const {
  for (int k = 0; k < nu(); ++k) qdot[k] = u[k];
}

}  // namespace appell
