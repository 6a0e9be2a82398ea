// engine/model/tree.cpp: the spanning forest of the joints, and the floating root of each tree.
#include "engine/model/tree.hpp"

#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/tree.hpp>
#include <memory>
#include <stdexcept>
#include <string>

namespace appell {
namespace {

// a light wheel listed before the heavy frame it turns on, floating (no joint to the world)
std::string floating_pair(const std::string& wheel_extra, const std::string& frame_extra) {
  return R"({"gravity": [0, 0, -9.81], "bodies": [
    {"name": "wheel", "mass": 2, "inertia": {"cylinder": [0.3, 0.05]}, "position": [0.5, 0, 0.3],
     "angular_velocity": [0, 8, 0.5])" +
         wheel_extra + R"(},
    {"name": "frame", "mass": 80, "inertia": {"box": [1.0, 0.2, 0.6]}, "position": [0, 0, 0.6],
     "velocity": [1, 0, 0.2], "angular_velocity": [0.1, 0.3, 0])" +
         frame_extra + R"(},
    {"name": "weight", "mass": 80, "inertia": {"sphere": 0.1}, "position": [3, 0, 0]}],
  "constraints": [{"name": "axle", "type": "revolute", "bodies": ["frame", "wheel"],
                   "anchor": [0.5, 0, 0.3], "axis": [0, 1, 0]}]})";
}

int root_of_tree_holding(const Model& m, const std::string& body) {
  const TreeModel& tree = m.tree();
  int i = tree.tree_index[m.body_index(body)];
  while (tree.joints[i].parent >= 0) i = tree.joints[i].parent;
  return tree.joints[i].body;
}

TEST(Tree, FloatingRootIsTheMostMassiveBody) {
  const Model m = load_model_from_string(floating_pair("", ""), "pair.json");
  EXPECT_EQ(root_of_tree_holding(m, "wheel"), m.body_index("frame"));
  EXPECT_EQ(root_of_tree_holding(m, "weight"), m.body_index("weight"));
  // the root changes the coordinates, not the motion: the recursion on this tree gives
  // pinv's accelerations
  Data a(m), b(m);
  ASSERT_EQ(forward(m, a, Formulation::Recursive), SolveStatus::Ok);
  ASSERT_EQ(forward(m, b, Formulation::Pinv), SolveStatus::Ok);
  EXPECT_LT((a.udot - b.udot).lpNorm<Eigen::Infinity>(), 1e-10 * b.udot.lpNorm<Eigen::Infinity>());
}

TEST(Tree, RootMarkOverridesTheMass) {
  const Model m = load_model_from_string(floating_pair(R"(, "root": true)", ""), "pair.json");
  EXPECT_EQ(root_of_tree_holding(m, "frame"), m.body_index("wheel"));
  Data a(m), b(m);
  ASSERT_EQ(forward(m, a, Formulation::Recursive), SolveStatus::Ok);
  ASSERT_EQ(forward(m, b, Formulation::Pinv), SolveStatus::Ok);
  EXPECT_LT((a.udot - b.udot).lpNorm<Eigen::Infinity>(), 1e-10 * b.udot.lpNorm<Eigen::Infinity>());
}

TEST(Tree, ConflictingRootMarksAreRefused) {
  // compile() refuses them ...
  ModelBuilder b;
  Body a, c;
  a.name = "wheel";
  c.name = "frame";
  c.position = Vec3(0, 0, 1);
  a.root = c.root = true;
  b.add_body(a);
  b.add_body(c);
  b.add_constraint(std::make_shared<Joint>("axle", joint_type("revolute"), 1, 0, BodyState{},
                                           BodyState{}, Vec3::Zero(), Vec3::UnitY()));
  try {
    compile(b);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "compile(): bodies 'wheel' and 'frame' are both marked root of one tree");
  }
  // ... and the loader says where
  try {
    load_model_from_string(floating_pair(R"(, "root": true)", R"(, "root": true)"), "pair.json");
    FAIL() << "no error";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()),
              "pair.json: /bodies/0/root: bodies 'wheel' and 'frame' are both marked root of "
              "one tree");
  }
  // a tree held by the world has no floating root to mark
  const char* held = R"({"bodies": [
    {"name": "arm", "mass": 1, "inertia": {"sphere": 0.1}, "position": [0, 0, -1], "root": true}],
    "constraints": [{"type": "spherical", "bodies": ["world", "arm"], "anchor": [0, 0, 0]}]})";
  try {
    load_model_from_string(held, "held.json");
    FAIL() << "no error";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.pointer(), "/bodies/0/root");
  }
}

TEST(Tree, RootMarkMustBeABoolean) {
  try {
    load_model_from_string(floating_pair(R"(, "root": 1)", ""), "pair.json");
    FAIL() << "no error";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()), "pair.json: /bodies/0/root: expected true or false");
  }
}

}  // namespace
}  // namespace appell
