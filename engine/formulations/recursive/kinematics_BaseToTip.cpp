// Pass 1, base to tip: body states straight from the joint coordinates (J1, J2), the
// motion subspaces S_i and velocity products c_i in the world (R2, R3).  docs/recursive.md.
// Turns and slides (JointShape) have their own steps, without the products by the zeros
// of their S and Ṡu; every other type goes through its JointType::motion.
#include <cmath>

#include "engine/assembly/stages.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

namespace {

const BodyState kRest{};

// the body's own M_i, which pass 2 turns into the articulated inertia               (R1)
inline void own_inertia(const Body& body, const Mat3& J, Mat6& IA) {
  IA.setZero();
  IA.topLeftCorner<3, 3>().diagonal().setConstant(body.mass);
  IA.bottomRightCorner<3, 3>() = J;
}

// any joint type: pose and twist (J1, J2), S = [s × r_CA + t; s] per column (R2) and
// c = d/dt of V_C = X V_P + S u at constant u (R3)
void general_step(const TreeJoint& t, const BodyState& P, const double* q, const double* u,
                  BodyState& C, TreeBodyWork& w, Vec6* S) {
  JointMotion jm;
  Vec6 V_J;
  Mat3 QE;
  joint_kinematics(t, P, q, u, C, jm, V_J, QE);
  const Vec3 r_CA = -(C.Q * t.frames.X_C);  // from the anchor to C's centre
  for (int k = 0; k < t.nu; ++k) {
    const Vec3 s = QE * jm.S.col(k).tail<3>();
    S[k].head<3>() = QE * jm.S.col(k).head<3>() + s.cross(r_CA);
    S[k].tail<3>() = s;
  }
  const Vec3 w_rel = C.w - P.w;
  const Vec3 t_W = QE * V_J.head<3>();  // the anchor's slide velocity
  const Vec3 c_w = P.w.cross(w_rel) + QE * jm.c.tail<3>();
  w.c.angular = c_w;
  w.c.linear = P.w.cross(C.v - P.v) + c_w.cross(r_CA) + w_rel.cross(C.w.cross(r_CA)) +
               P.w.cross(t_W) + QE * jm.c.head<3>();
}

// a free joint: R from the quaternion, d = (q₀, q₁, q₂), S = I₆ (J1, J2, R2, R3 of
// general_step with its zeros left out: V_J = u, Ṡu = 0)
void free_step(const TreeJoint& t, const BodyState& P, const double* q, const double* u,
               BodyState& C, TreeBodyWork& w, Vec6* S) {
  const JointFrames& f = t.frames;
  const Mat3 QE = P.Q * f.E_P;
  const Quat o(q[3], q[4], q[5], q[6]);
  C.Q.noalias() = QE * o.normalized().toRotationMatrix() * f.E_C.transpose();  // (J1)
  const Vec3 x_A = P.x + P.Q * f.X_P + QE * Vec3(q[0], q[1], q[2]);
  const Vec3 r_CA = -(C.Q * f.X_C);
  C.x = x_A + r_CA;
  const Vec3 t_W = QE * Vec3(u[0], u[1], u[2]);  //                                  (J2)
  const Vec3 w_rel = QE * Vec3(u[3], u[4], u[5]);
  C.w = P.w + w_rel;
  C.v = P.v + P.w.cross(C.x - P.x) + w_rel.cross(r_CA) + t_W;
  for (int k = 0; k < 3; ++k) {  //                                                  (R2)
    S[k].head<3>() = QE.col(k);
    S[k].tail<3>().setZero();
    S[k + 3].head<3>() = QE.col(k).cross(r_CA);
    S[k + 3].tail<3>() = QE.col(k);
  }
  const Vec3 c_w = P.w.cross(w_rel);  //                                            (R3)
  w.c.angular = c_w;
  w.c.linear =
      P.w.cross(C.v - P.v) + c_w.cross(r_CA) + w_rel.cross(C.w.cross(r_CA)) + P.w.cross(t_W);
}

// a free root of identity motion (identity_motion: its parent the world at rest, E_P = 1,
// X_C = 0): free_step with its zeros left out, R = Q(q) E_Cᵀ, x = X_P + d, v = (u₀, u₁, u₂),
// ω = (u₃, u₄, u₅), S = I₆, Ṡu = 0 (a box, a ball, a loose body's every pass)
void identity_free_step(const TreeJoint& t, const double* q, const double* u, BodyState& C,
                        TreeBodyWork& w, Vec6* S) {
  const JointFrames& f = t.frames;
  const Quat o(q[3], q[4], q[5], q[6]);
  C.Q.noalias() = o.normalized().toRotationMatrix() * f.E_C.transpose();  //        (J1)
  C.x = f.X_P + Vec3(q[0], q[1], q[2]);
  C.v = Vec3(u[0], u[1], u[2]);  //                                                 (J2)
  C.w = Vec3(u[3], u[4], u[5]);
  for (int k = 0; k < 6; ++k) S[k] = Vec6::Unit(k);  //                             (R2)
  w.c.angular.setZero();                             //                             (R3)
  w.c.linear.setZero();
}

// a turn θ about the axis z through the anchor: R = rot_z(θ), d = 0, S = (0; e_z), Ṡu = 0
void turn_step(const TreeJoint& t, const BodyState& P, double theta, double u, BodyState& C,
               TreeBodyWork& w, Vec6& S) {
  const JointFrames& f = t.frames;
  const Mat3 QE = P.Q * f.E_P;
  const double c = std::cos(theta), s = std::sin(theta);
  Mat3 QER;  // Q_P E_P R(θ)                                                       (J1)
  QER.col(0) = c * QE.col(0) + s * QE.col(1);
  QER.col(1) = c * QE.col(1) - s * QE.col(0);
  QER.col(2) = QE.col(2);
  C.Q.noalias() = QER * f.E_C.transpose();
  const Vec3 x_A = P.x + P.Q * f.X_P;
  const Vec3 r_CA = -(C.Q * f.X_C);
  C.x = x_A + r_CA;
  const Vec3 axis = QE.col(2);
  const Vec3 w_rel = axis * u;  //                                                  (J2)
  C.w = P.w + w_rel;
  C.v = P.v + P.w.cross(C.x - P.x) + w_rel.cross(r_CA);
  S.head<3>() = axis.cross(r_CA);  //                                               (R2)
  S.tail<3>() = axis;
  const Vec3 c_w = P.w.cross(w_rel);  //                                            (R3)
  w.c.angular = c_w;
  w.c.linear = P.w.cross(C.v - P.v) + c_w.cross(r_CA) + w_rel.cross(C.w.cross(r_CA));
}

// a slide s along the axis z: R = I, d = s e_z, S = (e_z; 0), Ṡu = 0
void slide_step(const TreeJoint& t, const BodyState& P, double s, double u, BodyState& C,
                TreeBodyWork& w, Vec6& S) {
  const JointFrames& f = t.frames;
  const Mat3 QE = P.Q * f.E_P;
  C.Q.noalias() = QE * f.E_C.transpose();  //                                       (J1)
  const Vec3 axis = QE.col(2);
  C.x = P.x + P.Q * f.X_P + axis * s - C.Q * f.X_C;
  const Vec3 t_W = axis * u;  //                                                    (J2)
  C.w = P.w;
  C.v = P.v + P.w.cross(C.x - P.x) + t_W;
  S.head<3>() = axis;  //                                                           (R2)
  S.tail<3>().setZero();
  w.c.angular.setZero();  //                                                  (R3)
  w.c.linear = P.w.cross(C.v - P.v) + P.w.cross(t_W);
}

// turn_step's twist and c at a new rate u, its pose and S kept (S = (e_z × r_CA; e_z))
void turn_velocity(const TreeJoint& t, const BodyState& P, const Vec6& S, double u, BodyState& C,
                   TreeBodyWork& w) {
  const Vec3 axis = S.tail<3>();
  const Vec3 r_CA = -(C.Q * t.frames.X_C);
  const Vec3 w_rel = axis * u;  //                                                  (J2)
  C.w = P.w + w_rel;
  C.v = P.v + P.w.cross(C.x - P.x) + w_rel.cross(r_CA);
  const Vec3 c_w = P.w.cross(w_rel);  //                                            (R3)
  w.c.angular = c_w;
  w.c.linear = P.w.cross(C.v - P.v) + c_w.cross(r_CA) + w_rel.cross(C.w.cross(r_CA));
}

// slide_step's at a new rate u (S = (e_z; 0))
void slide_velocity(const BodyState& P, const Vec6& S, double u, BodyState& C, TreeBodyWork& w) {
  const Vec3 t_W = S.head<3>() * u;  //                                             (J2)
  C.w = P.w;
  C.v = P.v + P.w.cross(C.x - P.x) + t_W;
  w.c.angular.setZero();  //                                                  (R3)
  w.c.linear = P.w.cross(C.v - P.v) + P.w.cross(t_W);
}

}  // namespace

void velocities_BaseToTip(const Model& m, const TreeModel& tree,
                          const Eigen::Ref<const Eigen::VectorXd>& q,
                          const Eigen::Ref<const Eigen::VectorXd>& u, Data& d,
                          RecursiveWorkspace& ws) {
  const int n = static_cast<int>(tree.joints.size());
  for (int i = 0; i < n; ++i) {
    const TreeJoint& t = tree.joints[i];
    const BodyState& P = t.parent_body == kWorld ? kRest : d.body[t.parent_body];
    BodyState& C = d.body[t.body];
    TreeBodyWork& w = ws.w[i];
    Vec6* S = ws.S.data() + t.u_offset;
    const double* ui = u.data() + t.u_offset;
    switch (t.shape) {
      case JointShape::Turn:
        turn_velocity(t, P, *S, *ui, C, w);
        break;
      case JointShape::Slide:
        slide_velocity(P, *S, *ui, C, w);
        break;
      case JointShape::Free:  // the pose again: cheaper than reading it back
        if (identity_motion(t))
          identity_free_step(t, q.data() + t.q_offset, ui, C, w, S);
        else
          free_step(t, P, q.data() + t.q_offset, ui, C, w, S);
        break;
      case JointShape::General:  // its c needs the joint's own terms: the whole step
        general_step(t, P, q.data() + t.q_offset, ui, C, w, S);
        break;
    }
    // (R8) at the new c; a root's Ia c goes nowhere
    if (t.parent < 0)
      w.Iac = SpatialForce();
    else
      w.Iac = w.Ia * w.c;
  }
  composites_from_bodies(m, d);
}

void kinematics_BaseToTip(const Model& m, const TreeModel& tree,
                          const Eigen::Ref<const Eigen::VectorXd>& q,
                          const Eigen::Ref<const Eigen::VectorXd>& u, Data& d,
                          RecursiveWorkspace& ws) {
  const int n = static_cast<int>(tree.joints.size());
  for (int i = 0; i < n; ++i) {
    const TreeJoint& t = tree.joints[i];
    const BodyState& P = t.parent_body == kWorld ? kRest : d.body[t.parent_body];
    BodyState& C = d.body[t.body];
    TreeBodyWork& w = ws.w[i];
    Vec6* S = ws.S.data() + t.u_offset;
    const double* qi = q.data() + t.q_offset;
    const double* ui = u.data() + t.u_offset;
    switch (t.shape) {
      case JointShape::Turn:
        turn_step(t, P, *qi, *ui, C, w, *S);
        break;
      case JointShape::Slide:
        slide_step(t, P, *qi, *ui, C, w, *S);
        break;
      case JointShape::Free:
        if (identity_motion(t))
          identity_free_step(t, qi, ui, C, w, S);
        else
          free_step(t, P, qi, ui, C, w, S);
        break;
      case JointShape::General:
        general_step(t, P, qi, ui, C, w, S);
        break;
    }
    const Body& body = m.bodies()[t.body];
    d.J[t.body] = world_inertia(body, C);
    own_inertia(body, d.J[t.body], w.IA);
    w.r = C.x - P.x;
  }
  composites_from_bodies(m, d);  // for the outputs and the rank policy's rows (W0)
  ws.articulated = false;
}

// Each body's own force f_i = (f, τ − ω × J ω) from d.applied (R1) [HO21 eqs. 6, 7]; the
// tree has every body, welded ones on their fixed joints, so it reads the bodies' own
// wrenches, not the composites' d.F
void body_forces(const TreeModel& tree, const Data& d, RecursiveWorkspace& ws) {
  const int n = static_cast<int>(tree.joints.size());
  for (int i = 0; i < n; ++i) {
    const int b = tree.joints[i].body;
    SpatialForce& f = ws.w[i].f;
    const BodyState& s = d.body[b];
    f.force = d.applied[b].force;
    f.moment = d.applied[b].moment - s.w.cross(d.J[b] * s.w);  // a particle's: zero
  }
}

}  // namespace appell
