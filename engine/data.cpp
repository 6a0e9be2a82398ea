#include "engine/data.hpp"

#include <limits>

namespace appell {

Data::Data(const Model& m)
    : q(m.nq()),
      u(m.nu()),
      body(m.nbody()),
      J(m.nbody(), Mat3::Zero()),
      applied(m.nbody()),
      F(m.nu()),
      terms(m.nterms()),
      b(m.nrows()),
      velocity_residual(m.nrows()),
      position_residual(m.nrows()),
      A(m.nrows(), m.nu()),
      udot(m.nu()),
      lambda(m.nrows()),
      reaction(m.nslots()),
      scratch(m.scratch_size()) {
#ifdef APPELL_TESTING
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (Eigen::VectorXd* v : {&F, &b, &velocity_residual, &position_residual, &udot, &lambda})
    v->setConstant(nan);
  A.setConstant(nan);
#else
  F.setZero();
  b.setZero();
  velocity_residual.setZero();
  position_residual.setZero();
  A.setZero();
  udot.setZero();
  lambda.setZero();
#endif
  initial_state(m, *this);
}

void initial_state(const Model& m, Data& d) {
  d.t = 0.0;
  for (int i = 0; i < m.nbody(); ++i) {
    const Body& b = m.bodies()[i];
    const int iq = m.q_offset(i), iu = m.u_offset(i);
    d.q.segment<3>(iq) = b.position;
    d.u.segment<3>(iu) = b.velocity;
    if (b.rigid()) {
      const Quat o = b.orientation.normalized();
      d.q.segment<4>(iq + 3) << o.w(), o.x(), o.y(), o.z();
      d.u.segment<3>(iu + 3) = b.angular_velocity;
    }
  }
}

}  // namespace appell
