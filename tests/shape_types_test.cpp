// The collision shape types as a registry (appell/shape_types.hpp,
// engine/contact/shapes/): the scene schema and the registry name the same types and
// agree on their keys; every registered type, built from its example through the scene
// loader, has a reach that bounds its Bullet object's support points in every direction
// (and is reached), and a thickness that is half its narrowest width along its frame's
// axes, both measured on Bullet's support function, not on the type's own formulas.
#include "appell/shape_types.hpp"

#include <BulletCollision/CollisionShapes/btConvexShape.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "appell/appell.hpp"
#include "engine/contact/shapes/shape_kind.hpp"

namespace appell {
namespace {

nlohmann::json schema_shape() {
  std::ifstream f(std::string(APPELL_SOURCE_DIR) + "/scenes/schema.json");
  return nlohmann::json::parse(f).at("$defs").at("shape");
}

// the schema's rule for type `name`: its "then" ({} when it has none)
nlohmann::json schema_rule(const nlohmann::json& shape, const std::string& name) {
  for (const nlohmann::json& r : shape.at("allOf"))
    if (r.at("if").at("properties").at("type").at("const") == name) return r.at("then");
  return nlohmann::json::object();
}

TEST(ShapeTypes, SchemaAndRegistryNameTheSameTypes) {
  const nlohmann::json shape = schema_shape();
  std::set<std::string> schema, registry;
  for (const nlohmann::json& n : shape.at("properties").at("type").at("enum")) schema.insert(n);
  for (ShapeType t : shape_types()) registry.insert(shape_type_name(t));
  EXPECT_EQ(schema, registry);
  EXPECT_EQ(registry.size(), shape_types().size());  // no name registered twice
  for (ShapeType t : shape_types()) {
    const std::string name = shape_type_name(t);
    const std::vector<std::string> keys = shape_keys(t);
    const nlohmann::json rule = schema_rule(shape, name);
    // what the schema requires of the type is one of its keys; what it forbids is not
    if (rule.contains("required"))
      for (const std::string k : rule.at("required"))
        if (k != "type") {
          EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << name << " " << k;
        }
    if (rule.contains("properties"))
      for (const auto& [k, v] : rule.at("properties").items())
        if (v == false) {
          EXPECT_EQ(std::find(keys.begin(), keys.end(), k), keys.end()) << name << " " << k;
        }
    ShapeType found = ShapeType::Sphere;
    ASSERT_TRUE(parse_shape_type(name, found));
    EXPECT_TRUE(found == t);
  }
  ShapeType none = ShapeType::Box;
  EXPECT_FALSE(parse_shape_type("ellipsoid", none));
}

// the one shape of type t on a body, from its example, through the scene loader
Shape example_shape(ShapeType t) {
  nlohmann::json entry = nlohmann::json::parse(t.kind().example);
  entry["type"] = shape_type_name(t);
  const nlohmann::json scene = {
      {"bodies",
       {{{"name", "b"}, {"mass", 1.0}, {"inertia", {{"sphere", 0.1}}}, {"shapes", {entry}}}}}};
  const Model m = load_model_from_string(scene.dump());
  EXPECT_EQ(m.shapes().size(), 1u) << shape_type_name(t);
  return m.shapes().at(0);
}

TEST(ShapeTypes, ReachBoundsTheSupportAndThicknessIsTheNarrowestHalfWidth) {
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  for (ShapeType t : shape_types()) {
    SCOPED_TRACE(shape_type_name(t));
    const Shape s = example_shape(t);
    EXPECT_EQ(shape_defect(s), "");
    const double reach = shape_reach(s);
    BulletMeshes meshes;
    const std::shared_ptr<btConvexShape> object =
        t.kind().bullet ? t.kind().bullet(s, meshes) : nullptr;
    if (!object) {
      // a half-space: no extent of its own, no far side
      EXPECT_EQ(reach, 0.0);
      EXPECT_EQ(shape_thickness(s), std::numeric_limits<double>::infinity());
      continue;
    }
    const auto support = [&](const Vec3& d) {
      const btVector3 p = object->localGetSupportingVertex(btVector3(d.x(), d.y(), d.z()));
      return Vec3(p.x(), p.y(), p.z());
    };
    // every support point lies within the reach, and the farthest comes close to it
    double farthest = 0.0;
    for (int k = 0; k < 4000; ++k) {
      const Vec3 d = Vec3(g(rng), g(rng), g(rng)).normalized();
      const double r = support(d).norm();
      EXPECT_LE(r, reach * (1 + 1e-12));
      farthest = std::max(farthest, r);
    }
    EXPECT_GT(farthest, 0.97 * reach);
    // the narrowest width along the frame's axes, from the support in ±e_k
    double narrowest = std::numeric_limits<double>::infinity();
    for (int k = 0; k < 3; ++k) {
      const Vec3 e = Vec3::Unit(k);
      narrowest = std::min(narrowest, support(e).dot(e) - support(-e).dot(e));
    }
    EXPECT_NEAR(shape_thickness(s), 0.5 * narrowest, 1e-12);
  }
}

}  // namespace
}  // namespace appell
