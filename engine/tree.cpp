#include "engine/tree.hpp"

#include <cmath>

#include "constraints/joints.hpp"
#include "engine/data.hpp"

namespace appell {

namespace {

int tree_nq(TreeJointType t) {
  switch (t) {
    case TreeJointType::Revolute:
    case TreeJointType::Prismatic:
      return 1;
    case TreeJointType::Cylindrical:
    case TreeJointType::Universal:
      return 2;
    case TreeJointType::Spherical:
      return 4;
    case TreeJointType::Free:
      return 7;
    case TreeJointType::Particle:
      return 3;
    case TreeJointType::Fixed:
      return 0;
  }
  return 0;
}

int tree_nu(TreeJointType t) {
  switch (t) {
    case TreeJointType::Revolute:
    case TreeJointType::Prismatic:
      return 1;
    case TreeJointType::Cylindrical:
    case TreeJointType::Universal:
      return 2;
    case TreeJointType::Spherical:
    case TreeJointType::Particle:
      return 3;
    case TreeJointType::Free:
      return 6;
    case TreeJointType::Fixed:
      return 0;
  }
  return 0;
}

TreeJointType tree_type(JointType t) {
  switch (t) {
    case JointType::Revolute:
      return TreeJointType::Revolute;
    case JointType::Prismatic:
      return TreeJointType::Prismatic;
    case JointType::Cylindrical:
      return TreeJointType::Cylindrical;
    case JointType::Universal:
      return TreeJointType::Universal;
    case JointType::Spherical:
      return TreeJointType::Spherical;
    case JointType::Fixed:
      return TreeJointType::Fixed;
  }
  return TreeJointType::Fixed;
}

// the joint's geometry seen from the tree parent P (T1, T2); `reversed` when P is the
// joint's child
TreeJoint tree_joint(const Model& m, const Joint& j, int c, bool reversed) {
  TreeJoint t;
  t.type = tree_type(j.joint_type());
  t.constraint = c;
  t.parent_body = reversed ? j.child() : j.parent();
  t.body = reversed ? j.parent() : j.child();
  const BodyState P0 = m.initial_state(t.parent_body), C0 = m.initial_state(t.body);
  // prismatic and fixed joints act at the joint child's centre (constraints/joints.cpp)
  const bool at_centre =
      j.joint_type() == JointType::Prismatic || j.joint_type() == JointType::Fixed;
  const Vec3 p = at_centre ? m.initial_state(j.child()).x : j.anchor();
  t.X_P = P0.Q.transpose() * (p - P0.x);
  t.X_C = C0.Q.transpose() * (p - C0.x);
  const Vec3 axis1 = (t.type == TreeJointType::Universal && reversed) ? j.axis2() : j.axis();
  const Vec3 axis2 = (t.type == TreeJointType::Universal && reversed) ? j.axis() : j.axis2();
  t.a1_P = P0.Q.transpose() * axis1.normalized();
  if (t.type == TreeJointType::Universal) t.a2_P = P0.Q.transpose() * axis2.normalized();
  t.R0 = P0.Q.transpose() * C0.Q;
  t.a2_C = t.R0.transpose() * t.a2_P;
  return t;
}

// the pose of the world (or a body) as seen by tree_to_maximal
const BodyState kRest{};

}  // namespace

TreeModel build_tree(const Model& m) {
  TreeModel tree;
  const int nb = m.nbody(), nc = static_cast<int>(m.constraints().size());
  std::vector<std::vector<int>> adjacent(nb + 1);  // node b + 1; the world is node 0
  std::vector<char> used(nc, 0);
  // candidate tree edges: the joints, in model order, that join two components (so a
  // scene's later joints are the ones that close loops)
  std::vector<int> root(nb + 1);
  for (int k = 0; k <= nb; ++k) root[k] = k;
  auto find = [&](int k) {
    while (root[k] != k) k = root[k] = root[root[k]];
    return k;
  };
  for (int c = 0; c < nc; ++c)
    if (const auto* j = dynamic_cast<const Joint*>(m.constraints()[c].get())) {
      const int a = find(j->parent() + 1), b = find(j->child() + 1);
      if (a == b) continue;  // closes a loop: an extra row
      root[a] = b;
      adjacent[j->parent() + 1].push_back(c);
      adjacent[j->child() + 1].push_back(c);
    }
  tree.tree_index.assign(nb, -1);

  // breadth first from `root` (a body already in the tree, or the world)
  auto grow = [&](int root) {
    for (int k = root == kWorld ? -1 : tree.tree_index[root];
         k < static_cast<int>(tree.joints.size()); ++k) {
      const int node = k < 0 ? kWorld : tree.joints[k].body;
      for (int c : adjacent[node + 1]) {
        if (used[c]) continue;
        const auto& j = static_cast<const Joint&>(*m.constraints()[c]);
        const bool reversed = j.child() == node;
        const int other = reversed ? j.parent() : j.child();
        if (other == kWorld || tree.tree_index[other] >= 0) continue;
        if (!m.bodies()[other].rigid()) continue;  // particles are only roots
        used[c] = 1;
        TreeJoint t = tree_joint(m, j, c, reversed);
        t.parent = node == kWorld ? -1 : tree.tree_index[node];
        tree.tree_index[other] = static_cast<int>(tree.joints.size());
        tree.joints.push_back(t);
      }
    }
  };
  auto add_root = [&](int b) {
    TreeJoint t;
    t.type = m.bodies()[b].rigid() ? TreeJointType::Free : TreeJointType::Particle;
    t.body = b;
    tree.tree_index[b] = static_cast<int>(tree.joints.size());
    tree.joints.push_back(t);
    grow(b);
  };
  grow(kWorld);
  for (int b = 0; b < nb; ++b)
    if (tree.tree_index[b] < 0 && !m.bodies()[b].rigid()) add_root(b);
  for (int b = 0; b < nb; ++b)
    if (tree.tree_index[b] < 0) add_root(b);

  // offsets, children, extra rows
  tree.children.assign(nb, {});
  for (int i = 0; i < nb; ++i) {
    TreeJoint& t = tree.joints[i];
    t.nq = tree_nq(t.type);
    t.nu = tree_nu(t.type);
    t.q_offset = tree.nq;
    t.u_offset = tree.nu;
    tree.nq += t.nq;
    tree.nu += t.nu;
    if (t.parent >= 0) tree.children[t.parent].push_back(i);
    if (t.constraint >= 0) tree.ntree_rows += m.constraints()[t.constraint]->rows();
  }
  for (int c = 0; c < nc; ++c)
    if (!used[c]) {
      tree.extra.push_back(c);
      tree.nrows_extra += m.constraints()[c]->rows();
    }
  return tree;
}

void tree_to_maximal(const Model& m, const TreeModel& tree, const Eigen::VectorXd& x, Data& d) {
  const auto q = x.head(tree.nq);
  const auto u = x.tail(tree.nu);
  for (const TreeJoint& t : tree.joints) {
    BodyState& C = d.body[t.body];
    const BodyState& P = t.parent_body == kWorld ? kRest : d.body[t.parent_body];
    const int iq = t.q_offset, iu = t.u_offset;
    Mat3 Rj = Mat3::Identity();
    Vec3 dq = Vec3::Zero(), w_P = Vec3::Zero(), t_P = Vec3::Zero();  // d, ω_rel, ḋ in P's frame
    switch (t.type) {
      case TreeJointType::Revolute:
        Rj = Eigen::AngleAxisd(q(iq), t.a1_P).toRotationMatrix();
        w_P = t.a1_P * u(iu);
        break;
      case TreeJointType::Prismatic:
        dq = t.a1_P * q(iq);
        t_P = t.a1_P * u(iu);
        break;
      case TreeJointType::Cylindrical:
        Rj = Eigen::AngleAxisd(q(iq), t.a1_P).toRotationMatrix();
        dq = t.a1_P * q(iq + 1);
        w_P = t.a1_P * u(iu);
        t_P = t.a1_P * u(iu + 1);
        break;
      case TreeJointType::Universal: {
        const Mat3 R1 = Eigen::AngleAxisd(q(iq), t.a1_P).toRotationMatrix();
        Rj = R1 * Eigen::AngleAxisd(q(iq + 1), t.a2_P).toRotationMatrix();
        w_P = t.a1_P * u(iu) + R1 * t.a2_P * u(iu + 1);
        break;
      }
      case TreeJointType::Spherical:
        Rj = Quat(q(iq), q(iq + 1), q(iq + 2), q(iq + 3)).normalized().toRotationMatrix();
        w_P = u.segment<3>(iu);
        break;
      case TreeJointType::Fixed:
        break;
      case TreeJointType::Free:
        C.x = q.segment<3>(iq);
        C.Q = Quat(q(iq + 3), q(iq + 4), q(iq + 5), q(iq + 6)).normalized().toRotationMatrix();
        C.v = u.segment<3>(iu);
        C.w = u.segment<3>(iu + 3);
        break;
      case TreeJointType::Particle:
        C.x = q.segment<3>(iq);
        C.Q.setIdentity();
        C.v = u.segment<3>(iu);
        C.w.setZero();
        break;
    }
    if (t.type != TreeJointType::Free && t.type != TreeJointType::Particle) {
      C.Q = P.Q * Rj * t.R0;                      // (T1)
      const Vec3 x_A = P.x + P.Q * (t.X_P + dq);  // (T2)
      C.x = x_A - C.Q * t.X_C;
      const Vec3 w_rel = P.Q * w_P;
      C.w = P.w + w_rel;
      C.v = P.v + P.w.cross(C.x - P.x) + w_rel.cross(C.x - x_A) + P.Q * t_P;
    }
    const int bq = m.q_offset(t.body), bu = m.u_offset(t.body);
    d.q.segment<3>(bq) = C.x;
    d.u.segment<3>(bu) = C.v;
    if (m.bodies()[t.body].rigid()) {
      const Quat o(C.Q);
      d.q.segment<4>(bq + 3) << o.w(), o.x(), o.y(), o.z();
      d.u.segment<3>(bu + 3) = C.w;
    }
  }
}

void tree_from_maximal(const Model&, const TreeModel& tree, const Data& d, Eigen::VectorXd& x) {
  x.resize(tree.nq + tree.nu);
  auto q = x.head(tree.nq);
  auto u = x.tail(tree.nu);
  for (const TreeJoint& t : tree.joints) {
    const BodyState& C = d.body[t.body];
    const BodyState& P = t.parent_body == kWorld ? kRest : d.body[t.parent_body];
    const int iq = t.q_offset, iu = t.u_offset;
    const Mat3 Rj = P.Q.transpose() * C.Q * t.R0.transpose();  // (T1)
    const Vec3 x_A = C.x + C.Q * t.X_C;
    const Vec3 d_P = P.Q.transpose() * (x_A - P.x) - t.X_P;  // (T2)
    const Vec3 w_P = P.Q.transpose() * (C.w - P.w);
    const Vec3 t_P =
        P.Q.transpose() * ((C.v + C.w.cross(x_A - C.x)) - (P.v + P.w.cross(x_A - P.x)));
    // the angle of a rotation R about a (R = exp(θ a) on the plane ⊥ a)
    auto angle = [](const Mat3& R, const Vec3& a) {
      Vec3 n1, n2;
      perpendicular_basis(a, n1, n2);
      const Vec3 r = R * n1;
      return std::atan2(r.dot(a.cross(n1)), r.dot(n1));
    };
    switch (t.type) {
      case TreeJointType::Revolute:
        q(iq) = angle(Rj, t.a1_P);
        u(iu) = t.a1_P.dot(w_P);
        break;
      case TreeJointType::Prismatic:
        q(iq) = t.a1_P.dot(d_P);
        u(iu) = t.a1_P.dot(t_P);
        break;
      case TreeJointType::Cylindrical:
        q(iq) = angle(Rj, t.a1_P);
        q(iq + 1) = t.a1_P.dot(d_P);
        u(iu) = t.a1_P.dot(w_P);
        u(iu + 1) = t.a1_P.dot(t_P);
        break;
      case TreeJointType::Universal: {
        // Rj a2 = exp(θ1 a1) a2,  Rjᵀ a1 = exp(−θ2 a2) a1
        const Vec3 e = t.a1_P.cross(t.a2_P);
        const Vec3 r2 = Rj * t.a2_P, r1 = Rj.transpose() * t.a1_P;
        q(iq) = std::atan2(r2.dot(e), r2.dot(t.a2_P));
        q(iq + 1) = std::atan2(r1.dot(e), r1.dot(t.a1_P));
        u(iu) = t.a1_P.dot(w_P);
        u(iu + 1) = r2.dot(w_P);
        break;
      }
      case TreeJointType::Spherical: {
        const Quat o(Rj);
        q.segment<4>(iq) << o.w(), o.x(), o.y(), o.z();
        u.segment<3>(iu) = w_P;
        break;
      }
      case TreeJointType::Fixed:
        break;
      case TreeJointType::Free: {
        const Quat o(C.Q);
        q.segment<3>(iq) = C.x;
        q.segment<4>(iq + 3) << o.w(), o.x(), o.y(), o.z();
        u.segment<3>(iu) = C.v;
        u.segment<3>(iu + 3) = C.w;
        break;
      }
      case TreeJointType::Particle:
        q.segment<3>(iq) = C.x;
        u.segment<3>(iu) = C.v;
        break;
    }
  }
}

void tree_qdot(const TreeModel& tree, const Eigen::VectorXd& x, Eigen::Ref<Eigen::VectorXd> qdot) {
  const auto q = x.head(tree.nq);
  const auto u = x.tail(tree.nu);
  // ½ (0, ω) ⊗ q: the rate of a quaternion whose frame turns with ω (left frame)
  auto quat_rate = [](const auto& qs, const Vec3& w, auto out) {
    const Quat r = Quat(0.0, w.x(), w.y(), w.z()) * Quat(qs(0), qs(1), qs(2), qs(3));
    out << 0.5 * r.w(), 0.5 * r.x(), 0.5 * r.y(), 0.5 * r.z();
  };
  for (const TreeJoint& t : tree.joints) {
    const int iq = t.q_offset, iu = t.u_offset;
    switch (t.type) {
      case TreeJointType::Spherical:
        quat_rate(q.segment<4>(iq), Vec3(u.segment<3>(iu)), qdot.segment<4>(iq));
        break;
      case TreeJointType::Free:
        qdot.segment<3>(iq) = u.segment<3>(iu);
        quat_rate(q.segment<4>(iq + 3), Vec3(u.segment<3>(iu + 3)), qdot.segment<4>(iq + 3));
        break;
      default:
        qdot.segment(iq, t.nq) = u.segment(iu, t.nu);  // nq = nu and q̇ = u
        break;
    }
  }
}

}  // namespace appell
