// What the user describes, and the constant Model the engine runs.
//
//   ModelBuilder b;                       // editable: bodies, constraints, forces, gravity
//   b.add_body(...); b.add_constraint(...);
//   const Model m = compile(b);           // constant: offsets and the spanning tree, once
//   Data d(m);                            // the workspace, sized from m
//
// A Model never changes after compile(), so one Model serves many Data, States and
// threads.  It fixes the layout of the maximal coordinates:
//   q = per composite (x̄, [w x y z]) for rigid bodies, x̄ for particles     (nq)
//   u = per composite (v̄, ω) for rigid bodies, v̄ for particles              (nu)
// Composites.  Bodies joined by tree joints without motion (nu = 0: "fixed") are welded:
// compile() merges each welded group into one composite rigid body (the sum of the
// masses, the combined centre of mass, the inertia about it by the parallel-axis
// theorem), and the maximal coordinates carry composites only.  Every body stays in
// bodies() as a named frame of its composite (weld(b)): constraints, forces and outputs
// name it as before, the engine derives its state from its composite's and folds what
// constraints and forces write on it onto the composite.  So a body of zero or degenerate
// inertia is fine when it is welded to bodies with mass; compile() rejects a composite
// without mass or with a degenerate inertia, which would make the mass matrix singular.
// Without welds composite k is body k.
// of the constraint rows: constraint c owns rows [row_offset(c), +rows) and, for each row,
// one SpatialForce per body it names, starting at term_offset(c); and of the joint coordinates
// of its spanning tree (engine/model/tree.hpp): a State's q (tree().nq) and u (tree().nu).
//
// Run settings (formulation, stabilization, integrator, output) are not part of the
// Model: they are SimulationOptions (appell/simulation.hpp), read from a scene's
// Settings.  The state a simulation starts from is a State; the Model keeps the one the
// description gave (initial_state()), as MuJoCo's model keeps qpos0, for Data(m) and runs
// that name no other.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "appell/constraint.hpp"
#include "appell/forces.hpp"
#include "appell/geometry.hpp"
#include "appell/settings.hpp"

namespace appell {

class Joint;       // a joint between two bodies, one kind of constraint (appell/joint.hpp)
struct TreeModel;  // the spanning tree and its joint coordinates (engine/model/tree.hpp)

// A state of the system in the joint coordinates of a Model's spanning tree.
struct State {
  double t = 0.0;
  Eigen::VectorXd q;  // joint coordinates            (tree().nq)
  Eigen::VectorXd u;  // joint quasi-velocities        (tree().nu)
};

class ModelBuilder {
 public:
  std::string name;
  Vec3 gravity = Vec3::Zero();
  // how a contact pair's Coulomb μ combines its two shapes' (appell/geometry.hpp)
  FrictionRule friction_rule = FrictionRule::Geometric;

  // Adds a body (its initial pose and velocity included) and returns its index.  Throws
  // std::invalid_argument on a duplicate or reserved name, a negative or non-finite mass
  // or an unphysical inertia.  A zero mass and a zero or degenerate (positive
  // semi-definite) inertia pass here: compile() accepts them on a body welded to bodies
  // with mass (see "Composites" above).
  int add_body(const Body& body);
  // Adds a constraint; its bodies must already exist.  Throws std::invalid_argument.
  void add_constraint(ConstraintPtr c);
  void add_force(ForcePtr f);
  // Adds a collision shape (appell/geometry.hpp) on body s.body (kWorld: the world) and
  // returns its index.  Throws std::invalid_argument naming the shape on an unknown body,
  // a shape_defect() or a duplicate non-empty name.  A shape with `visual` set is kept
  // apart (visuals(), drawn by reports, never collides); the index is then in visuals().
  int add_shape(const Shape& s);

  const std::vector<Body>& bodies() const { return bodies_; }
  const std::vector<Shape>& shapes() const { return shapes_; }
  const std::vector<Shape>& visuals() const { return visuals_; }
  const std::vector<ConstraintPtr>& constraints() const { return constraints_; }
  const std::vector<ForcePtr>& forces() const { return forces_; }
  int nbody() const { return static_cast<int>(bodies_.size()); }
  // kWorld for "world", −2 when there is no such body
  int body_index(const std::string& name) const;
  // the t = 0 pose and velocity of body b (the resting world for kWorld)
  BodyState initial_state(int b) const;

 private:
  std::vector<Body> bodies_;
  std::vector<ConstraintPtr> constraints_;
  std::vector<ForcePtr> forces_;
  std::vector<Shape> shapes_;
  std::vector<Shape> visuals_;  // shapes with `visual` set (apart: they never collide)

  std::unordered_map<std::string, int> body_names_;   // name → index in bodies_
  std::unordered_set<std::string> constraint_names_;  // names in constraints_
  std::unordered_set<std::string> shape_names_;       // non-empty names in shapes_, visuals_
};

// Where body b sits in its composite: Q_b = Q_k R, x̄_b = x̄_k + Q_k p, where x̄_k, Q_k
// are the composite's centre of mass and axes (the axes of its carrier body).
struct Weld {
  int composite = 0;  // k
  Mat3 R = Mat3::Identity();
  Vec3 p = Vec3::Zero();
  bool identity = true;  // R = I, p = 0: the body is its composite
};

class Model {
 public:
  Model();  // an empty model; compile() makes real ones
  const std::string& name() const { return name_; }
  const Vec3& gravity() const { return gravity_; }
  FrictionRule friction_rule() const { return friction_rule_; }
  const std::vector<Body>& bodies() const { return bodies_; }
  const std::vector<ConstraintPtr>& constraints() const { return constraints_; }
  const std::vector<ForcePtr>& forces() const { return forces_; }
  // constraint c as a joint, or null when it is another kind (a distance, a callable...):
  // found once by compile(), so no caller has to ask a constraint what it is
  const Joint* joint(int c) const { return joint_[c]; }
  // the joints among the constraints, in constraint order
  const std::vector<const Joint*>& joints() const { return joints_; }
  // the collision shapes (appell/geometry.hpp), in the builder's order
  const std::vector<Shape>& shapes() const { return shapes_; }
  // the shapes only drawn (Shape::visual: URDF <visual>...), in the builder's order
  const std::vector<Shape>& visuals() const { return visuals_; }
  int nbody() const { return static_cast<int>(bodies_.size()); }
  int body_index(const std::string& name) const;

  int nq() const { return nq_; }
  int nu() const { return nu_; }
  int nrows() const { return nrows_; }
  int nterms() const { return nterms_; }
  int nslots() const { return nslots_; }  // Σ over constraints of their body counts
  // the largest StateView::scratch any constraint or force needs; Data holds that much
  size_t scratch_size() const { return scratch_size_; }
  // maximal offsets of composite k (= body k when nothing is welded)
  int q_offset(int k) const { return q_offset_[k]; }
  int u_offset(int k) const { return u_offset_[k]; }
  // composite k's block of a maximal velocity, acceleration or force vector (u_offset and
  // whether it has an angular part): read and write it as a SpatialMotion / SpatialForce
  BodyBlock block(int k) const { return {u_offset_[k], composites_[k].rigid()}; }

  // the composite rigid bodies that carry the maximal coordinates (see "Composites")
  const std::vector<Body>& composites() const { return composites_; }
  int ncomposite() const { return static_cast<int>(composites_.size()); }
  // body b's composite and its pose there
  const Weld& weld(int b) const { return weld_[b]; }
  int composite(int b) const { return weld_[b].composite; }
  // the body whose axes composite k takes (its member nearest the tree's root)
  int carrier(int k) const { return carrier_[k]; }
  // true when some composite has more than one body
  bool merged() const { return merged_; }
  // why only the recursive formulation can evaluate this model, "" when every one can: a
  // massless frame between two joints (its composite has no mass, its motion is carried by
  // the bodies beyond it) or a joint's armature (rotor inertia on its quasi-velocities),
  // which the maximal formulations' block-diagonal mass matrix cannot hold
  const std::string& joint_space_only() const { return joint_space_only_; }
  // true when constraint c joins two bodies of one composite (its rows are then internal:
  // zero in the maximal coordinates, held by the merge)
  bool internal(int c) const { return internal_[c] != 0; }
  int row_offset(int c) const { return row_offset_[c]; }
  int term_offset(int c) const { return term_offset_[c]; }
  int slot_offset(int c) const { return slot_offset_[c]; }

  // the spanning tree of the joints and its joint coordinates (engine/model/tree.hpp: the
  // recursion's view, not part of the public API)
  const TreeModel& tree() const { return *tree_; }
  // the number of joint coordinates and quasi-velocities of a State
  int state_nq() const;
  int state_nu() const;
  // the state the description gave (t = 0): the joints' stated coordinates
  // (Joint::initial_q, initial_u: a scene's "q", "qd") as given, and the bodies' initial
  // poses and velocities read as joint coordinates where they define a joint
  // (engine/model/tree.hpp initial_tree_state)
  const State& initial_state() const { return initial_; }
  // the state of body b in the description (the resting world for kWorld)
  BodyState initial_body_state(int b) const;

 private:
  friend Model compile(const ModelBuilder& b);
  std::string name_;
  Vec3 gravity_ = Vec3::Zero();
  FrictionRule friction_rule_ = FrictionRule::Geometric;
  std::vector<Body> bodies_;
  std::vector<ConstraintPtr> constraints_;
  std::vector<const Joint*> joint_;   // per constraint: itself as a joint, or null
  std::vector<const Joint*> joints_;  // the non-null entries of joint_, in order
  std::vector<ForcePtr> forces_;
  std::vector<Shape> shapes_, visuals_;
  std::unordered_map<std::string, int> body_names_;  // name → index in bodies_
  std::vector<int> q_offset_, u_offset_, row_offset_, term_offset_, slot_offset_;
  std::vector<Body> composites_;
  std::vector<Weld> weld_;
  std::vector<int> carrier_;
  std::vector<char> internal_;
  bool merged_ = false;
  std::string joint_space_only_;
  int nq_ = 0, nu_ = 0, nrows_ = 0, nterms_ = 0, nslots_ = 0;
  size_t scratch_size_ = 0;
  std::shared_ptr<const TreeModel> tree_;  // constant, shared by copies
  State initial_;
};

// The constant Model of what `b` describes: the spanning tree, the composites, offsets, the
// initial State.  O(n + constraints).  Throws std::invalid_argument naming the body when a
// composite has no mass or a degenerate inertia.
Model compile(const ModelBuilder& b);

// Body states → the State of the tree's joint coordinates (t = 0): the inverse of the
// tree kinematics for states that satisfy the tree joints.  O(n).  Throws
// std::invalid_argument when `bodies` does not have one entry per body.
State state_from_bodies(const Model& m, const std::vector<BodyState>& bodies);

}  // namespace appell
