// How a contact pair's Coulomb μ comes from its two shapes' (appell/geometry.hpp): the
// geometric mean √(μa μb) by default, the larger of the two with "contact": {"friction":
// "max"} (MuJoCo's rule, so an MJCF model's).  Checked against the closed form of a box
// sliding flat on the ground: the friction μ m g decelerates it uniformly,
//     v(t) = v0 − μ g t   while v > 0.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <string>

#include "cli_util.hpp"

namespace appell {
namespace {

using testing::load_error;
using testing::run_cli;
using testing::write_temp;

constexpr double kG = 9.81, kV0 = 2.0, kT = 0.2;

// a 0.2 m cube (μ 0.2) sliding at 2 m/s on a ground plane (μ 0.8); `contact` the scene's
// "contact" object, or empty
std::string sliding_box(const std::string& contact) {
  return R"({"gravity": [0, 0, -9.81],
    "shapes": [{"name": "ground", "type": "plane", "friction": 0.8}],
    "bodies": [{"name": "box", "mass": 1.0, "inertia": {"box": [0.2, 0.2, 0.2]},
      "position": [0, 0, 0.1], "velocity": [2.0, 0, 0],
      "shapes": [{"type": "box", "size": [0.2, 0.2, 0.2], "friction": 0.2}]}],
    "integrator": {"method": "moreau", "dt": 0.001, "duration": 0.2})" +
         (contact.empty() ? std::string() : ", \"contact\": " + contact) + "}";
}

// the box's speed along x at the end of a run of the scene
double final_speed(const Scene& scene, double duration) {
  const Model m = compile(scene);
  SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  o.integrator.duration = duration;
  double v = NAN;
  const SimulationResult r = simulate(m, o, [&](const Sample& s) { v = s.data.body[0].v.x(); });
  EXPECT_TRUE(r.ok()) << r.message;
  return v;
}

TEST(FrictionRule, PairCoefficient) {
  Shape a, b;
  a.friction = 0.2;
  b.friction = 0.8;
  EXPECT_DOUBLE_EQ(pair_friction(a, b, FrictionRule::Geometric), 0.4);
  EXPECT_DOUBLE_EQ(pair_friction(a, b, FrictionRule::Max), 0.8);
  EXPECT_DOUBLE_EQ(pair_friction(b, a, FrictionRule::Max), 0.8);
  a.friction = 0.0;  // a frictionless shape: frictionless pair in the mean, not in the max
  EXPECT_DOUBLE_EQ(pair_friction(a, b, FrictionRule::Geometric), 0.0);
  EXPECT_DOUBLE_EQ(pair_friction(a, b, FrictionRule::Max), 0.8);
}

TEST(FrictionRule, SlidingBoxDeceleratesAtTheRulesCoefficient) {
  for (const auto& [contact, mu] :
       {std::pair{std::string(), 0.4}, std::pair{std::string(R"({"friction": "geometric"})"), 0.4},
        std::pair{std::string(R"({"friction": "max"})"), 0.8}}) {
    const Scene scene = load_scene_from_string(sliding_box(contact), "box.json");
    EXPECT_EQ(compile(scene).friction_rule() == FrictionRule::Max, mu == 0.8) << contact;
    EXPECT_NEAR(final_speed(scene, kT), kV0 - mu * kG * kT, 1e-6) << contact;
  }
}

// An MJCF model takes MuJoCo's rule, loaded alone or included; the including scene may say
// otherwise.  MuJoCo's qvel of a free joint: linear velocity first, in the world frame.
TEST(FrictionRule, MjcfTakesTheLargerAndAnIncludingSceneMayOverride) {
  const std::string xml = write_temp("friction_rule.xml", R"(<mujoco model="slide">
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" friction="0.8"/>
    <body name="box" pos="0 0 0.1"><freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" friction="0.2"/></body>
  </worldbody>
  <keyframe><key name="go" qpos="0 0 0.1 1 0 0 0" qvel="2 0 0 0 0 0"/></keyframe>
</mujoco>)");
  EXPECT_TRUE(compile(load_scene(xml)).friction_rule() == FrictionRule::Max);
  const std::string file = xml.substr(xml.find_last_of('/') + 1);
  const auto scene = [&](const std::string& contact) {
    return load_scene(write_temp("friction_rule.json", R"({"include": {"mjcf": ")" + file +
                                                           R"(", "keyframe": "go"},
          "integrator": {"method": "moreau", "dt": 0.001, "duration": 0.2})" +
                                                           contact + "}"));
  };
  EXPECT_NEAR(final_speed(scene(""), kT), kV0 - 0.8 * kG * kT, 1e-6);
  EXPECT_NEAR(final_speed(scene(R"(, "contact": {"friction": "geometric"})"), kT),
              kV0 - 0.4 * kG * kT, 1e-6);
}

TEST(FrictionRule, AnUnknownRuleIsALocatedError) {
  const std::string path =
      write_temp("friction_rule_bad.json", sliding_box(R"({"friction": "min"})"));
  const std::string e = load_error(path);
  EXPECT_NE(e.find("/contact/friction"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown friction rule 'min'"), std::string::npos) << e;
  const auto r = run_cli("check " + path);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace appell
