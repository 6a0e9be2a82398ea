// LagrangianData: every buffer of an evaluation sized once, from the system.
#include <algorithm>

#include "appell/lagrangian.hpp"
#include "engine/lagrangian/sweep.hpp"

namespace appell {

using namespace lagrangian_detail;

int LagrangianSystem::max_nodes() const {
  int most = lagrangian.size();
  for (const Expression& f : forces) most = std::max(most, f.size());
  for (const LagrangianRow& r : constraints) most = std::max(most, r.e.size());
  for (const LagrangianRow& r : quasi_velocities) most = std::max(most, r.e.size());
  return std::max(most, 1);
}

bool LagrangianSystem::nonlinear() const {
  for (const LagrangianRow& r : constraints)
    if (r.nonlinear) return true;
  return false;
}

LagrangianData::LagrangianData(const LagrangianSystem& s)
    : LagrangianData(s.n(), s.m(), s.dof(), s.max_nodes()) {}

LagrangianData::LagrangianData(int n, int m, int k, int max_nodes)
    : buffers(std::make_shared<Buffers>()) {
  M_llt.compute(Eigen::MatrixXd::Identity(n, n));  // (LLT(n) would leave its status unset)
  p.setZero(n), M.setZero(n, n), Q.setZero(n), f.setZero(n);
  A.setZero(m, n), r.setZero(m), alpha.setZero(m), g.setZero(m);
  W.setZero(k, n), nu.setZero(k), beta.setZero(k);
  Y.setZero(n, k), y.setZero(n), Z.setZero(n);
  H.setZero(k, k), F_nu.setZero(k), nudot.setZero(k), qdd.setZero(n);
  qdd_gauss.setZero(n), lambda.setZero(m), Qc.setZero(n), nudot_gauss.setZero(k);
  Buffers& b = *buffers;
  const size_t nodes = static_cast<size_t>(std::max(max_nodes, 1));
  // a tape's variables are at most its nodes
  b.x0.resize(nodes), b.w0.resize(nodes), b.grad.resize(nodes);
  b.x1.resize(nodes), b.w1.resize(nodes);
  b.x2.resize(nodes), b.w2.resize(nodes);
  b.x4.resize(nodes), b.w4.resize(nodes);
  b.xt.resize(nodes), b.wt.resize(nodes);
  b.x3.resize(nodes), b.w3.resize(nodes);
  b.xt3.resize(nodes), b.wt3.resize(nodes);
  b.S.setZero(n, n);
  b.lu = Eigen::PartialPivLU<Eigen::MatrixXd>(n);
  b.rhs.setZero(n, k + 2), b.sol.setZero(n, k + 2);
  b.MY.setZero(n, k), b.MinvAt.setZero(n, m), b.K.setZero(m, m);
  // the factors' storage sized by factoring the identity (LLT(n) leaves its status unset,
  // which a later assignment reads)
  b.H_llt.compute(Eigen::MatrixXd::Identity(k, k));
  b.K_llt.compute(Eigen::MatrixXd::Identity(m, m));
  b.a.setZero(n), b.tmp.setZero(n), b.qd0.setZero(n);
  b.nu_target.setZero(k), b.newton.q.setZero(n), b.newton.qd.setZero(n);
}

}  // namespace appell
