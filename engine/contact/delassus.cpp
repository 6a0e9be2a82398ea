// Delassus operator on the tree (engine/contact/delassus.hpp).
#include "engine/contact/delassus.hpp"

#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

TwistRow point_row(const Data& d, int body_a, int body_b, const Vec3& p, const Vec3& dir) {
  TwistRow r;
  const int bodies[2] = {body_a, body_b};
  const double sign[2] = {-1.0, 1.0};
  for (int s = 0; s < 2; ++s) {
    r.body[s] = bodies[s];
    if (bodies[s] == kWorld) continue;
    r.term[s].lin = sign[s] * dir;
    r.term[s].ang = sign[s] * (p - d.body[bodies[s]].x).cross(dir);
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
  r.term[1].lin = w.head<3>();
  r.term[1].ang = w.tail<3>();
  r.body[0] = t.parent_body;
  if (t.parent_body != kWorld) {
    // the opposite force at the child's centre, as a wrench about the parent's
    const Vec3 rr = d.body[t.body].x - d.body[t.parent_body].x;
    r.term[0].lin = -w.head<3>();
    r.term[0].ang = -w.tail<3>() - rr.cross(Vec3(w.head<3>()));
  }
  return r;
}

namespace {

void add_row(const Model& m, const TwistRow& r, double lam, RecursiveWorkspace& ws) {
  for (int s = 0; s < 2; ++s) {
    const int b = r.body[s];
    if (b == kWorld) continue;
    SpatialForce& f = ws.w[m.tree().tree_index[b]].f;
    f.vec.head<3>() += lam * r.term[s].lin;
    if (m.bodies()[b].rigid()) f.vec.tail<3>() += lam * r.term[s].ang;
  }
}

double row_dot(const Model& m, const TwistRow& r, const std::vector<Vec6>& V) {
  double s = 0.0;
  for (int k = 0; k < 2; ++k) {
    const int b = r.body[k];
    if (b == kWorld) continue;
    const Vec6& v = V[m.tree().tree_index[b]];
    s += r.term[k].lin.dot(v.head<3>());
    if (m.bodies()[b].rigid()) s += r.term[k].ang.dot(v.tail<3>());
  }
  return s;
}

}  // namespace

void tree_delassus(const Model& m, Data& d, const std::vector<TwistRow>& rows, Eigen::MatrixXd& G,
                   Eigen::MatrixXd& response) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  const TreeModel& tree = m.tree();
  const int n = static_cast<int>(rows.size()), nb = tree.nrows_extra;
  if (G.rows() != n || G.cols() != n) G.resize(n, n);
  if (response.rows() != tree.nu || response.cols() != n) response.resize(tree.nu, n);
  Eigen::VectorXd e(nb), y(nb);
  std::vector<Vec6> a(ws.w.size());
  for (int k = 0; k < n; ++k) {
    for (auto& w : ws.w) w.f.setZero();
    add_row(m, rows[k], 1.0, ws);
    bias_TipToBase(tree, ws, false);
    accelerations_BaseToTip(tree, ws, false);
    if (nb > 0) {  // the bilateral rows' reaction keeps A a = 0               (R13)
      extra_rows_times_a(m, tree, d, ws, e);
      solve_extra_pinv(tree, d, ws, -e, y);
      add_extra_row_forces(m, tree, d, y, ws);
      bias_TipToBase(tree, ws, false);
      accelerations_BaseToTip(tree, ws, false);
    }
    response.col(k) = ws.udot;
    for (size_t i = 0; i < ws.w.size(); ++i) a[i] = ws.w[i].a.vec;
    for (int j = 0; j < n; ++j) G(j, k) = row_dot(m, rows[j], a);
  }
  G = (0.5 * (G + G.transpose())).eval();
}

void row_velocities(const Model& m, Data& d, const std::vector<TwistRow>& rows,
                    const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::VectorXd& out) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  const TreeModel& tree = m.tree();
  std::vector<Vec6> V(ws.w.size());
  for (size_t i = 0; i < ws.w.size(); ++i) {
    const TreeJoint& t = tree.joints[i];
    if (t.parent >= 0) {
      SpatialMotion p;
      p.vec = V[t.parent];
      V[i] = p.shifted(ws.w[i].r).vec;
    } else {
      V[i].setZero();
    }
    for (int k = 0; k < t.nu; ++k) V[i] += ws.S[t.u_offset + k] * u(t.u_offset + k);
  }
  out.resize(static_cast<int>(rows.size()));
  for (size_t k = 0; k < rows.size(); ++k) out(static_cast<int>(k)) = row_dot(m, rows[k], V);
}

}  // namespace appell
