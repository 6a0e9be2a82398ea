// Joint coordinates, rates and generalized forces from body states (appell/joint_state.hpp).
#include "appell/joint_state.hpp"

#include <cmath>

namespace appell {

JointFrameState joint_frame_state(const Joint& j, const StateView& s) {
  const JointFrames& f = j.frames();
  const BodyState& P = s.body(j.parent());
  const BodyState& C = s.body(j.child());
  JointFrameState out;
  out.F = P.Q * f.E_P;
  out.x_A = C.x + C.Q * f.X_C;
  out.r_P = out.x_A - P.x;
  out.r_C = out.x_A - C.x;
  // the inverse of J2: relative velocity of the coincident points, relative spin
  out.V_J.head<3>() = out.F.transpose() * ((C.v + C.w.cross(out.r_C)) - (P.v + P.w.cross(out.r_P)));
  out.V_J.tail<3>() = out.F.transpose() * (C.w - P.w);
  return out;
}

namespace {

// q of joint j (nq) from the frame state (the inverse of J1)
void coordinates_of(const Joint& j, const StateView& s, const JointFrameState& fs, double* q) {
  const JointFrames& f = j.frames();
  const BodyState& P = s.body(j.parent());
  const BodyState& C = s.body(j.child());
  const Mat3 R = fs.F.transpose() * C.Q * f.E_C;
  const Vec3 d = f.E_P.transpose() * (P.Q.transpose() * fs.r_P - f.X_P);
  j.joint_type().coordinates(R, d, q);
}

}  // namespace

void joint_coordinates(const Joint& j, const StateView& s, double* q, double* u) {
  const JointType& t = j.joint_type();
  const JointFrameState fs = joint_frame_state(j, s);
  double qq[8];
  coordinates_of(j, s, fs, qq);
  if (q)
    for (int k = 0; k < t.nq(); ++k) q[k] = qq[k];
  if (!u) return;
  const double zero[6] = {0, 0, 0, 0, 0, 0};
  JointMotion jm;
  t.motion(qq, zero, jm);
  for (int k = 0; k < t.nu(); ++k) u[k] = jm.S.col(k).dot(fs.V_J);  // u = Sᵀ V_J
}

void apply_joint_force(const Joint& j, const StateView& s, const double* tau, SpatialForce* out) {
  const JointType& t = j.joint_type();
  const JointFrameState fs = joint_frame_state(j, s);
  double q[8];
  coordinates_of(j, s, fs, q);
  const double zero[6] = {0, 0, 0, 0, 0, 0};
  JointMotion jm;
  t.motion(q, zero, jm);
  // (f; n) = S τ in F, then in the world (G1)
  Vec6 w = Vec6::Zero();
  for (int k = 0; k < t.nu(); ++k) w += jm.S.col(k) * tau[k];
  const SpatialForce at_anchor(fs.F * w.head<3>(), fs.F * w.tail<3>());
  if (j.child() != kWorld) out[j.child()] += at_anchor.shifted(fs.r_C);  // (X2)
  if (j.parent() != kWorld) out[j.parent()] -= at_anchor.shifted(fs.r_P);
}

JointRateRow joint_rate_row(const Joint& j, const StateView& s, int k) {
  const JointType& t = j.joint_type();
  const JointFrameState fs = joint_frame_state(j, s);
  const BodyState& P = s.body(j.parent());
  const BodyState& C = s.body(j.child());
  double q[8], u[6];
  coordinates_of(j, s, fs, q);
  const double zero[6] = {0, 0, 0, 0, 0, 0};
  JointMotion jm;
  t.motion(q, zero, jm);
  for (int i = 0; i < t.nu(); ++i) u[i] = jm.S.col(i).dot(fs.V_J);
  t.motion(q, u, jm);  // c = Ṡ u at this u
  const Vec3 a_l = fs.F * jm.S.col(k).head<3>(), a_a = fs.F * jm.S.col(k).tail<3>();
  // the coefficients of the accelerations (G2), as canonical rows (C2)
  JointRateRow row;
  row.child.force = a_l;
  row.child.moment = fs.r_C.cross(a_l) + a_a;
  row.parent.force = -a_l;
  row.parent.moment = -(fs.r_P.cross(a_l) + a_a);
  // the velocity products (G2)
  const Vec3 dv = fs.F * fs.V_J.head<3>(), dw = C.w - P.w;
  const Vec3 vA = C.v + C.w.cross(fs.r_C);
  const Vec3 lin = C.w.cross(C.w.cross(fs.r_C)) - P.w.cross(vA - P.v) - P.w.cross(dv);
  row.bias = a_l.dot(lin) - a_a.dot(P.w.cross(dw)) - jm.S.col(k).dot(jm.c);
  return row;
}

std::vector<char> periodic_coordinates(const JointType& type) {
  std::vector<char> out(type.nq(), 0);
  for (int k = 0; k < type.nq(); ++k) out[k] = type.angle(k);
  return out;
}

double wrap_angle(double x) {
  const double y = std::remainder(x, 2.0 * M_PI);
  return y <= -M_PI ? y + 2.0 * M_PI : y;
}

}  // namespace appell
