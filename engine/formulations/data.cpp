#include "appell/data.hpp"

#include <limits>
#include <stdexcept>

#include "engine/formulations/recursive/workspace.hpp"
#include "engine/model/tree.hpp"

namespace appell {

RecursiveCache::RecursiveCache() = default;
RecursiveCache::~RecursiveCache() = default;
RecursiveCache::RecursiveCache(const RecursiveCache& o)
    : workspace(o.workspace ? std::make_unique<RecursiveWorkspace>(*o.workspace) : nullptr) {}
RecursiveCache& RecursiveCache::operator=(const RecursiveCache& o) {
  workspace = o.workspace ? std::make_unique<RecursiveWorkspace>(*o.workspace) : nullptr;
  return *this;
}

Data::Data(const Model& m)
    : q(m.nq()),
      u(m.nu()),
      body(m.nbody()),
      J(m.nbody(), Mat3::Zero()),
      composite(m.merged() ? m.ncomposite() : 0),
      Jc(m.merged() ? m.ncomposite() : 0, Mat3::Zero()),
      applied(m.nbody()),
      F(m.nu()),
      terms(m.nterms()),
      b(m.nrows()),
      velocity_residual(m.nrows()),
      position_residual(m.nrows()),
      cterms(m.merged() ? m.nterms() : 0),
      udot(m.nu()),
      lambda(m.nrows()),
      reaction(m.nslots()),
      subtree(m.merged() ? m.nbody() : 0),
      scratch(m.scratch_size()),
      nbody(m.nbody()),
      nq(m.nq()),
      nu(m.nu()),
      nrows(m.nrows()),
      nterms(m.nterms()),
      ntree_q(m.tree().nq),
      ntree_u(m.tree().nu) {
  recursive.workspace = std::make_unique<RecursiveWorkspace>(m);
#ifdef APPELL_TESTING
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (Eigen::VectorXd* v : {&F, &b, &velocity_residual, &position_residual, &udot, &lambda})
    v->setConstant(nan);
#else
  F.setZero();
  b.setZero();
  velocity_residual.setZero();
  position_residual.setZero();
  udot.setZero();
  lambda.setZero();
#endif
  set_state(m, *this, m.initial_state());
}

void check(const Model& m, const Data& d, const char* caller) {
  auto mismatch = [&](const char* what, int has, int expected) {
    throw std::invalid_argument(std::string(caller) + ": data was built for " + what + " = " +
                                std::to_string(has) + ", the model has " +
                                std::to_string(expected) + " (build the Data from this Model)");
  };
  if (d.nbody != m.nbody()) mismatch("nbody", d.nbody, m.nbody());
  if (d.nq != m.nq()) mismatch("nq", d.nq, m.nq());
  if (d.nu != m.nu()) mismatch("nu", d.nu, m.nu());
  if (d.nrows != m.nrows()) mismatch("nrows", d.nrows, m.nrows());
  if (d.nterms != m.nterms()) mismatch("nterms", d.nterms, m.nterms());
  if (d.ntree_q != m.tree().nq) mismatch("tree nq", d.ntree_q, m.tree().nq);
  if (d.ntree_u != m.tree().nu) mismatch("tree nu", d.ntree_u, m.tree().nu);
  if (d.q.size() != m.nq() || d.u.size() != m.nu())
    throw std::invalid_argument(std::string(caller) + ": data.q has " + std::to_string(d.q.size()) +
                                " entries and data.u " + std::to_string(d.u.size()) +
                                ", expected nq = " + std::to_string(m.nq()) +
                                " and nu = " + std::to_string(m.nu()));
}

SpatialMotion body_acceleration(const Model& m, const Data& d, int b) {
  const int k = m.composite(b);
  SpatialMotion a = m.block(k).motion(d.udot);
  if (m.weld(b).identity) return a;
  const BodyState& K = d.composite[k];
  const Vec3 r = d.body[b].x - K.x;
  a.linear += a.angular.cross(r) + K.w.cross(K.w.cross(r));
  return a;
}

void set_state(const Model& m, Data& d, const State& s) {
  check(m, d, "set_state()");
  check_state_sizes(m.tree(), s, "set_state()");
  d.t = s.t;
  tree_kinematics(m, s.q, s.u, d);
  maximal_from_bodies(m, d);
  remember_state(d, s);
}

}  // namespace appell
