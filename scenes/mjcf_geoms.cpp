// The MJCF converter's geoms (scenes/mjcf_converter.hpp): mass properties (<inertial>, the
// solids of geoms), a geom's size and frame, its shape in the scene.
#include <cmath>
#include <cstdint>

#include "appell/inertia.hpp"
#include "scenes/mjcf_converter.hpp"

namespace appell::mjcf_detail {

void Converter::Mass::add(double mi, const Vec3& ci, const Mat3& Ii) {
  if (!(mi > 0)) return;
  const double M = m + mi;
  const Vec3 C = (m * c + mi * ci) / M;
  const auto shifted = [&](double mass, const Vec3& d) {
    return Mat3(mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose()));
  };
  I = I + shifted(m, c - C) + Ii + shifted(mi, ci - C);
  m = M;
  c = C;
}

Converter::Mass Converter::inertial(const XMLElement& e) {
  check_attributes(e);
  Mass out;
  const Pose f = pose(e);
  out.m = get1(e, "mass", 0);
  if (!(out.m >= 0)) fail(e, "attribute 'mass': expected a number >= 0");
  if (!has(e, "mass")) fail(e, "missing attribute 'mass'");
  Mat3 I = Mat3::Zero();
  if (has(e, "fullinertia")) {
    if (has(e, "diaginertia")) fail(e, "both diaginertia and fullinertia");
    const auto v = get(e, "fullinertia", 6, 6);  // ixx iyy izz ixy ixz iyz
    I << v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2];
  } else if (has(e, "diaginertia")) {
    const auto v = get(e, "diaginertia", 3, 3);
    I = Vec3(v[0], v[1], v[2]).asDiagonal();
  } else {
    fail(e, "missing attribute 'diaginertia' or 'fullinertia'");
  }
  out.c = f.p;
  out.I = f.R * I * f.R.transpose();
  const std::string defect = inertia_semidefinite_defect(out.I);
  if (!defect.empty()) fail(e, defect);
  return out;
}

// reads e; false when its type is not supported (warned)
bool Converter::geom(const XMLElement& e, Geom& g, bool report) {
  if (report) check_attributes(e);
  g.type = text(e, "type", "sphere");
  static const std::set<std::string> supported = {"plane",    "sphere",    "capsule", "box",
                                                  "cylinder", "ellipsoid", "mesh"};
  static const std::set<std::string> mujoco = {"hfield", "sdf"};
  if (!supported.count(g.type)) {
    if (!mujoco.count(g.type))
      fail(e, "unknown geom type '" + g.type +
                  "'; expected plane, sphere, capsule, ellipsoid, cylinder, box, mesh, hfield "
                  "or sdf");
    if (report) warn(e, "geom type '" + g.type + "' not supported, ignored (no shape, no mass)");
    return false;
  }
  const auto size = get(e, "size", 0, 3, {});
  const auto need = [&](size_t n) {
    if (size.size() < n)
      fail(e, "attribute 'size': a " + g.type + " needs " + std::to_string(n) + " number(s)");
    for (size_t i = 0; i < n; ++i)
      if (!(size[i] > 0)) fail(e, "attribute 'size': sizes must be > 0");
  };
  g.f = pose(e);
  if (g.type == "mesh") {
    // the mesh's own frame at the geom's pose (MuJoCo moves its vertices to their centre
    // of mass and the geom by as much: the same place)
    if (has(e, "fromto"))
      fail(e, "attribute 'fromto' applies to a capsule, cylinder, box or ellipsoid");
    const std::string name = text(e, "mesh", "");
    if (name.empty()) fail(e, "a mesh geom needs attribute 'mesh'");
    const auto it = meshes_.find(name);
    if (it == meshes_.end()) fail(e, "no mesh '" + name + "' in <asset>");
    g.mesh = &load_mesh(it->second);
    return true;
  }
  if (has(e, "fromto")) {
    if (g.type != "capsule" && g.type != "cylinder" && g.type != "box" && g.type != "ellipsoid")
      fail(e, "attribute 'fromto' applies to a capsule, cylinder, box or ellipsoid");
    if (e.Attribute("pos") || e.Attribute("quat") || e.Attribute("euler") ||
        e.Attribute("axisangle") || e.Attribute("xyaxes") || e.Attribute("zaxis"))
      fail(e, "attribute 'fromto' and a pos or orientation together");
    const auto v = get(e, "fromto", 6, 6);
    const Vec3 a(v[0], v[1], v[2]), b(v[3], v[4], v[5]);
    if (!((b - a).norm() > 1e-12)) fail(e, "attribute 'fromto': the two points coincide");
    g.f.p = (a + b) / 2;
    g.f.R = Quat::FromTwoVectors(Vec3::UnitZ(), (b - a).normalized()).toRotationMatrix();
    const double half = (b - a).norm() / 2;
    if (g.type == "box" || g.type == "ellipsoid") {
      // MuJoCo's: size[0] is the half-width across the segment, both ways (a second
      // size is not read)
      need(1);
      g.half = Vec3(size[0], size[0], half);
    } else {
      need(1);
      g.r = size[0];
      g.h = half;
    }
    return true;
  }
  if (g.type == "sphere") {
    need(1);
    g.r = size[0];
  } else if (g.type == "capsule" || g.type == "cylinder") {
    need(2);
    g.r = size[0];
    g.h = size[1];
  } else if (g.type == "box" || g.type == "ellipsoid") {
    need(3);
    g.half = Vec3(size[0], size[1], size[2]);
  }
  return true;
}

// MuJoCo's solid primitives: volume and the inertia per unit mass in the geom frame
double Converter::volume(const Geom& g) {
  if (g.type == "sphere") return 4.0 / 3 * kPi * g.r * g.r * g.r;
  if (g.type == "ellipsoid") return 4.0 / 3 * kPi * g.half.prod();
  if (g.type == "mesh") return g.mesh->volume;
  if (g.type == "box") return 8 * g.half.prod();
  if (g.type == "cylinder") return kPi * g.r * g.r * 2 * g.h;
  if (g.type == "capsule") return kPi * g.r * g.r * (4.0 / 3 * g.r + 2 * g.h);
  return 0;
}

Mat3 Converter::unit_inertia(const Geom& g) {
  Vec3 d = Vec3::Zero();
  if (g.type == "mesh") return g.mesh->inertia;
  if (g.type == "ellipsoid") {
    const Vec3 s = g.half.cwiseProduct(g.half);
    d = Vec3(s.y() + s.z(), s.x() + s.z(), s.x() + s.y()) / 5;
  } else if (g.type == "sphere") {
    d.setConstant(0.4 * g.r * g.r);
  } else if (g.type == "box") {
    const Vec3 s = g.half.cwiseProduct(g.half);
    d = Vec3(s.y() + s.z(), s.x() + s.z(), s.x() + s.y()) / 3;
  } else if (g.type == "cylinder") {
    const double H = 2 * g.h;
    d.x() = d.y() = (3 * g.r * g.r + H * H) / 12;
    d.z() = g.r * g.r / 2;
  } else if (g.type == "capsule") {
    // a cylinder and two hemispheres (the fraction of the volume each holds), the
    // hemispheres' inertia moved to the capsule's centre
    const double H = 2 * g.h, r = g.r;
    const double ms = 4 * r / (4 * r + 3 * H), mc = 1 - ms;
    d.x() = d.y() = mc * (3 * r * r + H * H) / 12 + 0.4 * ms * r * r + ms * H * (3 * r + 2 * H) / 8;
    d.z() = mc * r * r / 2 + 0.4 * ms * r * r;
  }
  return d.asDiagonal();
}

// a geom's shape for the scene, in the link frame (body frame shifted by `offset`) of
// the body or the world it ends up on
json Converter::shape(const XMLElement& e, const Geom& g, const Pose& at) {
  json s = {{"type", g.type}};
  if (const char* n = e.Attribute("name")) s["name"] = n;
  if (g.type == "sphere") s["radius"] = g.r;
  if (g.type == "capsule" || g.type == "cylinder") {
    s["radius"] = g.r;
    s["length"] = 2 * g.h;
  }
  if (g.type == "box") s["size"] = to_json(2 * g.half);
  if (g.type == "mesh") {
    if (g.mesh->path.empty()) {
      s["vertices"] = json::array();
      for (const Vec3& v : g.mesh->inline_mesh.vertices) s["vertices"].push_back(to_json(v));
      s["faces"] = g.mesh->inline_mesh.triangles;
    } else {
      s["file"] = g.mesh->path;
    }
    s["scale"] = to_json(g.mesh->scale);
  }
  s["position"] = to_json(at.p + at.R * g.f.p);
  s["orientation"] = {{"quaternion", quat_json(at.R * g.f.R)}};
  if (has(e, "friction")) {
    const double mu = get(e, "friction", 1, 3)[0];
    if (!(mu >= 0)) fail(e, "attribute 'friction': expected a number >= 0");
    s["friction"] = mu;
  }
  const auto bits = [&](const char* name) {
    const double v = get1(e, name, 1);
    if (!(v >= 0 && v <= 4294967295.0 && v == std::floor(v)))
      fail(e, std::string("attribute '") + name + "': expected an integer from 0 to 2^32 - 1");
    return static_cast<std::uint32_t>(v);
  };
  s["group"] = bits("contype");
  s["mask"] = bits("conaffinity");
  // contype = conaffinity = 0: a geom only drawn (the model's Shape::visual)
  if (s["group"] == 0 && s["mask"] == 0) s["visual"] = true;
  return s;
}

}  // namespace appell::mjcf_detail
