// The joint-space columns of a run's outputs, shared by `appell simulate` (traj.csv,
// forces.csv) and appell::Trajectory (so the Python module writes the same files).
// Every joint of the model (a constraint of a joint type) is reported in its own
// coordinates (appell/joint_state.hpp), whatever the formulation, in constraint order:
//
//   state columns      <j>.q and <j>.qd (one column a coordinate; several: <j>.q0 <j>.q1 ...,
//                      <j>.qd0 ...), in the joint type's order (free: position then
//                      quaternion [w x y z]; spherical: quaternion).  Angles are continuous
//                      from sample to sample: whole turns of the previous sample are kept.
//   actuator columns   per actuated joint (one named by a joint force or a prescribed-motion
//                      constraint) <j>.tau (or .tau0 ...), the actuator's generalized force,
//                      and <j>.power = τ·u, the rate at which it works (joint_state.hpp G1).
//
// Frames.  A free joint's u = (ḋ, ω_rel) and a spherical joint's u = ω_rel are in the
// parent joint frame F = Q_P E_P (appell/joint_type.hpp), the world for a floating base.
// JointFrame::Child expresses them, and their rates and generalized forces, in the child
// joint frame G = F R(q) instead (the body's own frame for a floating base, as Pinocchio's
// free-flyer and spherical joints and MuJoCo's ball joint do; MuJoCo's free joint keeps its
// linear part in the world).  With B = diag(R, R) (free) or R (spherical):
//   u_G = Bᵀ u,   τ_G = Bᵀ τ   (so τ_G·u_G = τ·u: the power is the same)                (F1)
//   u̇_G = d/dt u_G = (Rᵀ d̈ − ω_G × v_G; Rᵀ ω̇)  (free),  Rᵀ ω̇  (spherical)             (F2)
// with (v_G; ω_G) = u_G (Ṙ = [ω] R, so d/dt Rᵀ x = Rᵀ ẋ − ω_G × Rᵀ x, and ω_G × ω_G = 0).
// q is the same in both (the quaternion of R).  Other joint types are unchanged.
//
// Cost: JointColumns finds each joint's forces and prescribed constraints once; a joint's
// values then cost O(1) and allocate nothing.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "appell/data.hpp"
#include "appell/joint.hpp"
#include "appell/model.hpp"

namespace appell {

class JointForce;
class PrescribedJointConstraint;

// the frame of free and spherical joints' rates, accelerations and forces (above)
enum class JointFrame { Parent, Child };
const char* joint_frame_name(JointFrame f);  // "parent", "child"
bool parse_joint_frame(const std::string& name, JointFrame& out);

// a type whose rates JointFrame changes: S = I₆ (free) or S = (0; I₃) (spherical)
bool frame_dependent(const JointType& t);
// (F1) at q: rates or generalized forces v (nu) from F to G, or back; no-op for other types
void joint_vector_to_child(const JointType& t, const double* q, double* v);
void joint_vector_to_parent(const JointType& t, const double* q, double* v);
// (F2) at q: u̇ (nu) in F to u̇_G, u the rates in F; or back, u_G the rates in G
void joint_acceleration_to_child(const JointType& t, const double* q, const double* u,
                                 double* udot);
void joint_acceleration_to_parent(const JointType& t, const double* q, const double* u_G,
                                  double* udot_G);

// The joint columns of one model, resolved once: for every joint its periodic coordinates,
// and for every actuated one the joint forces and prescribed-motion rows that drive it.
// Which columns a file has, and in what order, is appell/output_schema.hpp's; a writer asks
// this for the values of the joint its schema names (the model's constraint c).
class JointColumns {
 public:
  explicit JointColumns(const Model& m, JointFrame frame = JointFrame::Parent);
  // joint c's q (nq) and u (nu) at d; s the joint-space state of d (Sample::state; null:
  // none): a joint of the spanning tree run in its own direction reads its q, u from s, the
  // others (loop joints, reversed tree joints) from the body states (equal to round-off).
  // `last` holds every joint's coordinates of the previous sample (coordinates() entries,
  // joint c's at its own offset); with `first` it is only written, else an angle keeps its
  // whole turns: q + 2π round((q_last − q)/2π), and its entries are updated.
  void state(int c, const Data& d, const State* s, std::vector<double>& last, bool first, double* q,
             double* u) const;
  // joint c's q (nq) and u (nu) in its parent joint frame, as state() reads them (from s
  // where it owns them), with neither the frame of the columns nor the continuity of angles
  void coordinates(int c, const StateView& view, const State* s, double* q, double* u) const;
  // joint c's actuator force τ (nu; zero when nothing actuates it) at d (after forward: it
  // reads the multipliers), its joint forces evaluated at the q, u state() reads; returns
  // its power τ·u
  double actuator(int c, const Data& d, const State* s, double* tau) const;
  // the entries of `last` above: the sum of the joints' nq
  int coordinates() const { return nq_; }

 private:
  struct Entry {
    const Joint* joint;
    bool rotate;                                  // frame Child and a frame-dependent type
    int last_at = 0;                              // its coordinates' place in `last`
    int tree_q = -1, tree_u = -1;                 // its coordinates in a State (−1: none)
    std::vector<char> periodic;                   // per coordinate: an angle
    std::vector<const JointForce*> forces;        // the joint forces on it
    std::vector<std::pair<int, int>> prescribed;  // (row, coordinate) of its prescribed rows
  };
  std::vector<Entry> joints_;
  std::vector<int> entry_;  // per constraint: its entry, −1 for a constraint that is no joint
  int nq_ = 0;
  const Entry& entry(int c) const;
  // entry e's q, u: from s where it has coordinates there, else from the body states
  void coordinates(const Entry& e, const StateView& view, const State* s, double* q,
                   double* u) const;
};

// The actuator's generalized force on joint j (nu entries): the sum of its joint forces
// and the multipliers of the prescribed-motion constraints on its coordinates (d after
// forward).  False, with tau zero, when nothing actuates the joint.
bool joint_actuator_force(const Model& m, const Data& d, const Joint& j, double* tau);

}  // namespace appell
