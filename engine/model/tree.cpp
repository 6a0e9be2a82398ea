#include "engine/model/tree.hpp"

#include <stdexcept>
#include <string>
#include <unordered_map>

#include "appell/data.hpp"
#include "appell/joint.hpp"
#include "engine/model/body_coordinates.hpp"
#include "engine/model/composites.hpp"
#include "engine/model/kinematics.hpp"

namespace appell {

namespace {

// the joint's frames seen from the tree parent; `reversed` when the parent is the
// joint's child (the frames trade places, the type's axes are re-expressed)
TreeJoint tree_joint(const Joint& j, int c, bool reversed) {
  TreeJoint t;
  t.type = &j.joint_type();
  t.constraint = c;
  t.reversed = reversed;
  t.parent_body = reversed ? j.child() : j.parent();
  t.body = reversed ? j.parent() : j.child();
  t.frames = j.frames();
  t.armature = j.properties().armature;
  if (reversed) {
    const JointFrames& f = j.frames();
    t.frames.X_P = f.X_C;
    t.frames.X_C = f.X_P;
    t.frames.E_P = t.type->reversed_axes(f.E_C);
    t.frames.E_C = t.type->reversed_axes(f.E_P);
  }
  return t;
}

const BodyState kRest{};

// The root of the floating tree that holds body b (component(k) names k's tree): the body
// marked `root`, else the most massive, ties to the one with the most joints, then to the
// first.  The root carries the tree's six free coordinates; a light root (a wheel under a
// bicycle's frame) makes the joint coordinates of everything else swing with it, and
// adaptive steppers then take several times more steps.
template <typename Component>
int floating_root(const Model& m, int b, const std::vector<int>& joints, Component&& component) {
  const int nb = m.nbody(), tree = component(b);
  int best = b, marked = -1;
  for (int k = b; k < nb; ++k) {
    if (component(k) != tree) continue;
    const Body& body = m.bodies()[k];
    if (body.root) {
      if (marked >= 0)
        throw std::invalid_argument("compile(): bodies '" + m.bodies()[marked].name + "' and '" +
                                    body.name + "' are both marked root of one tree");
      marked = k;
    }
    const Body& top = m.bodies()[best];
    if (body.mass > top.mass || (body.mass == top.mass && joints[k] > joints[best])) best = k;
  }
  return marked >= 0 ? marked : best;
}

// Offsets of each joint's coordinates, the children lists and the extra rows (the
// constraints `used` does not mark) of a tree whose joints are in place.
void number_tree(const Model& m, const std::vector<char>& used, TreeModel& tree) {
  const int nb = m.nbody(), nc = static_cast<int>(m.constraints().size());
  tree.children.assign(nb, {});
  for (int i = 0; i < nb; ++i) {
    TreeJoint& t = tree.joints[i];
    t.nq = t.type->nq();
    t.nu = t.type->nu();
    if (t.nu != 0 && t.nu != 1 && t.nu != 2 && t.nu != 3 && t.nu != 6)  // workspace.hpp
      throw std::invalid_argument(std::string("compile(): joint type '") + t.type->name() +
                                  "' has " + std::to_string(t.nu) +
                                  " quasi-velocities; the recursion takes 0, 1, 2, 3 or 6");
    t.shape = t.type->shape();
    t.q_offset = tree.nq;
    t.u_offset = tree.nu;
    tree.nq += t.nq;
    tree.nu += t.nu;
    if (t.parent >= 0) tree.children[t.parent].push_back(i);
    if (t.constraint >= 0) t.rows = m.constraints()[t.constraint]->rows();
    tree.ntree_rows += t.rows;
  }
  for (int c = 0; c < nc; ++c)
    if (!used[c]) {
      tree.extra.push_back(c);
      tree.nrows_extra += m.constraints()[c]->rows();
    }
  // the joint-space forces on joints the tree runs in their own direction
  std::unordered_map<const Constraint*, int> own;  // joint → its tree index
  for (int i = 0; i < nb; ++i)
    if (tree.joints[i].constraint >= 0 && !tree.joints[i].reversed)
      own.emplace(m.constraints()[tree.joints[i].constraint].get(), i);
  tree.force_joint.assign(m.forces().size(), -1);
  for (size_t k = 0; k < m.forces().size(); ++k)
    if (const Joint* j = m.forces()[k]->joint_space())
      if (const auto it = own.find(j); it != own.end()) tree.force_joint[k] = it->second;
}

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
    if (const Joint* j = m.joint(c)) {
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
        TreeJoint t = tree_joint(j, c, reversed);
        t.parent = node == kWorld ? -1 : tree.tree_index[node];
        tree.tree_index[other] = static_cast<int>(tree.joints.size());
        tree.joints.push_back(t);
      }
    }
  };
  auto add_root = [&](int b) {
    TreeJoint t;
    t.type = m.bodies()[b].rigid() ? &free_joint() : &particle_joint();
    t.body = b;
    tree.tree_index[b] = static_cast<int>(tree.joints.size());
    tree.joints.push_back(t);
    grow(b);
  };
  grow(kWorld);
  for (int b = 0; b < nb; ++b)
    if (tree.tree_index[b] < 0 && !m.bodies()[b].rigid()) add_root(b);
  // the floating trees left, in the order of their first body, each from its root
  std::vector<int> joints(nb, 0);  // joints per body
  for (const Joint* j : m.joints()) {
    if (j->parent() != kWorld) ++joints[j->parent()];
    if (j->child() != kWorld) ++joints[j->child()];
  }
  const auto component = [&](int k) { return find(k + 1); };
  for (int b = 0; b < nb; ++b)
    if (tree.tree_index[b] < 0) add_root(floating_root(m, b, joints, component));
  for (int b = 0; b < nb; ++b)
    if (m.bodies()[b].root && tree.joints[tree.tree_index[b]].constraint >= 0)
      throw std::invalid_argument("compile(): body '" + m.bodies()[b].name +
                                  "' is marked root, but its tree is held by a joint to the "
                                  "world or to a particle");

  number_tree(m, used, tree);
  return tree;
}

void joint_kinematics(const TreeJoint& j, const BodyState& P, const double* q, const double* u,
                      BodyState& C, JointMotion& jm, Vec6& V_J) {
  Mat3 QE;
  joint_kinematics(j, P, q, u, C, jm, V_J, QE);
}

void joint_kinematics(const TreeJoint& j, const BodyState& P, const double* q, const double* u,
                      BodyState& C, JointMotion& jm, Vec6& V_J, Mat3& QE) {
  j.type->motion(q, u, jm);
  Vec3 x_A;
  joint_step(j.frames, j.nu, P, jm, u, C, QE, x_A, V_J);  // (J1, J2)
}

void tree_kinematics(const Model& m, const Eigen::Ref<const Eigen::VectorXd>& q,
                     const Eigen::Ref<const Eigen::VectorXd>& u, Data& d) {
  JointMotion jm;
  Vec6 V_J;
  for (const TreeJoint& t : m.tree().joints) {
    const BodyState& P = t.parent_body == kWorld ? kRest : d.body[t.parent_body];
    BodyState& C = d.body[t.body];
    joint_kinematics(t, P, q.data() + t.q_offset, u.data() + t.u_offset, C, jm, V_J);
    d.J[t.body] = world_inertia(m.bodies()[t.body], C);
  }
  composites_from_bodies(m, d);
}

void maximal_from_bodies(const Model& m, Data& d) {
  composites_from_bodies(m, d);
  for (int i = 0; i < m.ncomposite(); ++i) {
    const BodyState& C = composite_state(m, d, i);
    write_body_coordinates(m.composites()[i], C, d.q.data() + m.q_offset(i),
                           d.u.data() + m.u_offset(i));
  }
}

void joint_from_bodies(const TreeJoint& t, const BodyState& P, const BodyState& C, double* q,
                       double* u) {
  const double zero[6] = {0, 0, 0, 0, 0, 0};
  const JointFrames& f = t.frames;
  // the inverse of J1: R = (Q_P E_P)ᵀ Q_C E_C,  d = E_Pᵀ (Q_Pᵀ (x_A − x̄_P) − X_P)
  const Mat3 QE = P.Q * f.E_P;
  const Vec3 x_A = C.x + C.Q * f.X_C;
  const Mat3 R = QE.transpose() * C.Q * f.E_C;
  const Vec3 dq = f.E_P.transpose() * (P.Q.transpose() * (x_A - P.x) - f.X_P);
  t.type->coordinates(R, dq, q);
  // the inverse of J2: (ḋ; ω_rel) in the joint frame, u = Sᵀ (ḋ; ω_rel) (S orthonormal)
  Vec6 V_J;
  V_J.tail<3>() = QE.transpose() * (C.w - P.w);
  V_J.head<3>() = QE.transpose() * ((C.v + C.w.cross(x_A - C.x)) - (P.v + P.w.cross(x_A - P.x)));
  JointMotion jm;
  t.type->motion(q, zero, jm);
  for (int k = 0; k < t.nu; ++k) u[k] = jm.S.col(k).dot(V_J);
}

void remember_state(Data& d, const State& s) {
  d.state = s;
  d.q_of_state = d.q;
  d.u_of_state = d.u;
}

void tree_from_bodies(const TreeModel& tree, const std::vector<BodyState>& body,
                      Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> u) {
  for (const TreeJoint& t : tree.joints)
    joint_from_bodies(t, t.parent_body == kWorld ? kRest : body[t.parent_body], body[t.body],
                      q.data() + t.q_offset, u.data() + t.u_offset);
}

State initial_tree_state(const Model& m) {
  const TreeModel& tree = m.tree();
  State s;
  s.q.resize(tree.nq);
  s.u.resize(tree.nu);
  for (const TreeJoint& t : tree.joints) {
    const Joint* j = t.constraint >= 0 && !t.reversed ? m.joint(t.constraint) : nullptr;
    if (j && !j->initial_q().empty()) {  // stated: kept as given
      for (int k = 0; k < t.nq; ++k) s.q(t.q_offset + k) = j->initial_q()[k];
      for (int k = 0; k < t.nu; ++k) s.u(t.u_offset + k) = j->initial_u()[k];
      continue;
    }
    // defined by the described poses: read off them
    joint_from_bodies(t, m.initial_body_state(t.parent_body), m.initial_body_state(t.body),
                      s.q.data() + t.q_offset, s.u.data() + t.u_offset);
  }
  return s;
}

void check_state_sizes(const TreeModel& tree, const State& s, const char* caller) {
  if (s.q.size() != tree.nq || s.u.size() != tree.nu)
    throw std::invalid_argument(std::string(caller) + ": state.q has " +
                                std::to_string(s.q.size()) + " entries and state.u " +
                                std::to_string(s.u.size()) + ", expected the tree's nq = " +
                                std::to_string(tree.nq) + " and nu = " + std::to_string(tree.nu));
}

void tree_qdot(const TreeModel& tree, const Eigen::Ref<const Eigen::VectorXd>& q,
               const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::Ref<Eigen::VectorXd> qdot) {
  for (const TreeJoint& t : tree.joints)
    t.type->qdot(q.data() + t.q_offset, u.data() + t.u_offset, qdot.data() + t.q_offset);
}

void tree_normalize(const TreeModel& tree, Eigen::Ref<Eigen::VectorXd> q) {
  for (const TreeJoint& t : tree.joints) t.type->normalize(q.data() + t.q_offset);
}

}  // namespace appell
