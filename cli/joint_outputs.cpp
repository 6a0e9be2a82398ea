// Joint-space outputs (cli/joint_outputs.hpp).
#include "cli/joint_outputs.hpp"

#include <vector>

#include "appell/joint_columns.hpp"
#include "appell/joint_state.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

namespace {

ojson vec(const Vec3& v) {
  return ojson::array({v.x(), v.y(), v.z()});
}

ojson array(const double* x, int n) {
  ojson a = ojson::array();
  for (int k = 0; k < n; ++k) a.push_back(x[k]);
  return a;
}

}  // namespace

ojson joints_json(const Model& m, const Data& d, const State* state, JointFrame frame) {
  ojson out = ojson::object();
  const StateView s = d.view();
  const JointColumns columns(m);  // q, u and τ from the State, where a joint owns them there
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Joint* j = m.joint(c);
    if (!j) continue;
    const JointType& t = j->joint_type();
    double q[8], u[6], udot[6], tau[6];
    columns.coordinates(c, s, state, q, u);
    // u̇_k from the bodies' accelerations (joint_state.hpp G2)
    auto acc = [&](int b, const SpatialForce& r) {
      if (b == kWorld) return 0.0;
      const SpatialMotion a = body_acceleration(m, d, b);
      return r.force.dot(a.linear) + r.moment.dot(a.angular);  // a particle's α is zero
    };
    for (int k = 0; k < t.nu(); ++k) {
      const JointRateRow row = joint_rate_row(*j, s, k);
      udot[k] = acc(j->child(), row.child) + acc(j->parent(), row.parent) + row.bias;
    }
    // the joint's reaction on the child, moved to the anchor, in F
    const JointFrameState fs = joint_frame_state(*j, s);
    const bool child = j->child() != kWorld;
    const SpatialForce& w =
        d.reaction[m.slot_offset(c) + j->slot(child ? j->child() : j->parent())];
    const double sign = child ? 1.0 : -1.0;  // the world as child: the parent's opposite
    const Vec3 r = child ? fs.r_C : fs.r_P;
    Vec3 f = sign * (fs.F.transpose() * w.force);
    Vec3 n = sign * (fs.F.transpose() * (w.moment - r.cross(w.force)));
    columns.actuator(c, d, state, tau);
    const bool dependent = frame_dependent(t);
    if (dependent && frame == JointFrame::Child) {  // joint_columns.hpp (F1), (F2)
      joint_acceleration_to_child(t, q, u, udot);
      joint_vector_to_child(t, q, u);
      joint_vector_to_child(t, q, tau);
      const double zero[6] = {0, 0, 0, 0, 0, 0};
      JointMotion jm;
      t.motion(q, zero, jm);
      f = jm.R.transpose() * f;
      n = jm.R.transpose() * n;
    }
    ojson e;
    e["q"] = array(q, t.nq());
    e["qd"] = array(u, t.nu());
    e["qdd"] = array(udot, t.nu());
    ojson force;
    force["reaction"] = {{"force", vec(f)}, {"moment", vec(n)}};
    force["actuator"] = array(tau, t.nu());
    e["force"] = force;
    if (dependent) e["frame"] = joint_frame_name(frame);
    out[j->name()] = e;
  }
  return out;
}

}  // namespace appell::cli
