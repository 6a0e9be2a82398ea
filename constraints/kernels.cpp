#include "constraints/kernels.hpp"

#include <cmath>

namespace appell {

void perpendicular_basis(const Vec3& n_in, Vec3& t1, Vec3& t2) {
  const Vec3 n = n_in.normalized();
  // the world axis least aligned with n gives a well-conditioned first tangent
  int k = 0;
  n.cwiseAbs().minCoeff(&k);
  t1 = n.cross(Vec3::Unit(k)).normalized();
  t2 = n.cross(t1);
}

}  // namespace appell
