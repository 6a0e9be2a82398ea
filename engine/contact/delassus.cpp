// Delassus operator on the tree (engine/contact/delassus.hpp): the rows on the bodies'
// twists, a response applied and the rows' velocities.  G and the responses are formed in
// delassus_tree.cpp (the recursion's way), delassus_free_bodies.cpp (rows on free bodies
// alone, in closed form) and joint_space_delassus.cpp (a small tree's joint space).
#include "engine/contact/delassus.hpp"

#include "engine/contact/delassus_steps.hpp"

namespace appell {

TwistRow point_row(const Data& d, int body_a, int body_b, const Vec3& p, const Vec3& dir) {
  TwistRow r;
  const int bodies[2] = {body_a, body_b};
  const double sign[2] = {-1.0, 1.0};
  for (int s = 0; s < 2; ++s) {
    r.body[s] = bodies[s];
    if (bodies[s] == kWorld) continue;
    r.term[s].force = sign[s] * dir;
    r.term[s].moment = sign[s] * (p - d.body[bodies[s]].x).cross(dir);
  }
  return r;
}

TwistRow joint_row(const Model& m, Data& d, int tree_joint) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  const TreeJoint& t = m.tree().joints[tree_joint];
  const Vec6& S = ws.S[t.u_offset];
  const Vec6 w = S / S.squaredNorm();
  TwistRow r;
  r.body[1] = t.body;
  r.term[1].force = w.head<3>();
  r.term[1].moment = w.tail<3>();
  r.body[0] = t.parent_body;
  if (t.parent_body != kWorld) {
    // the opposite force at the child's centre, as a wrench about the parent's
    const Vec3 rr = d.body[t.body].x - d.body[t.parent_body].x;
    r.term[0].force = -w.head<3>();
    r.term[0].moment = -w.tail<3>() - rr.cross(Vec3(w.head<3>()));
  }
  return r;
}

void add_response(const Eigen::MatrixXd& response, const ResponseSupport& support,
                  const Eigen::VectorXd& lambda, Eigen::VectorXd& du) {
  if (support.joint_space) {
    add_joint_space_response(support.factors, lambda, du);
    return;
  }
  if (support.dense) {
    du.noalias() += response * lambda;
    return;
  }
  // plain loops: a row's response is a few entries, where Eigen's segments and maps cost
  // more than the products
  double* out = du.data();
  for (int k = 0; k < lambda.size(); ++k) {
    const double l = lambda(k);
    if (l == 0.0) continue;
    const std::array<int, 4>& r = support.dofs[k];
    const double* v = support.values.data() + support.offset[k];
    for (int s = 0; s < 2; ++s)
      for (int i = r[2 * s]; i < r[2 * s + 1]; ++i) out[i] += l * *v++;
  }
}

void row_velocities(const Model& m, Data& d, const std::vector<TwistRow>& rows,
                    const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::VectorXd& out,
                    DelassusScratch* scratch) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  const TreeModel& tree = m.tree();
  std::vector<SpatialMotion> own;  // only when the caller keeps no scratch
  std::vector<SpatialMotion>& V = scratch ? scratch->V : own;
  V.resize(ws.w.size());
  for (size_t i = 0; i < ws.w.size(); ++i) {
    const TreeJoint& t = tree.joints[i];
    if (t.parent >= 0)
      V[i] = V[t.parent].shifted(ws.w[i].r);
    else
      V[i].setZero();
    for (int k = 0; k < t.nu; ++k) V[i].add(ws.S[t.u_offset + k] * u(t.u_offset + k));
  }
  out.resize(static_cast<int>(rows.size()));
  for (size_t k = 0; k < rows.size(); ++k)
    out(static_cast<int>(k)) = delassus_detail::row_dot(m, rows[k], V);
}

}  // namespace appell
