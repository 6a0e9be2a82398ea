// contacts.csv rows and eval's "contacts" (cli/contact_outputs.hpp).
#include "cli/contact_outputs.hpp"

#include "appell/joint.hpp"
#include "appell/number_format.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

namespace {

void number(double v, std::string& out) {
  char buf[kG17MaxChars];
  out.append(buf, format_g17(v, buf));
}

ojson vec(const Vec3& v) {
  return ojson::array({v.x(), v.y(), v.z()});
}

}  // namespace

std::string contacts_header() {
  return "t,kind,body_a,body_b,shape_a,shape_b,joint,side,x,y,z,nx,ny,nz,normal_force,"
         "friction_x,friction_y,friction_z,friction,gap,state,impact\n";
}

ContactRows::ContactRows(const Model& m) : m_(m) {
  body_.push_back("world");
  for (const Body& b : m.bodies()) body_.push_back(b.name);
  for (size_t i = 0; i < m.shapes().size(); ++i)
    shape_.push_back(m.shapes()[i].name.empty() ? "shape" + std::to_string(i) : m.shapes()[i].name);
}

const std::string& ContactRows::shape(int s) const {
  static const std::string world = "world";
  return s >= 0 && s < static_cast<int>(shape_.size()) ? shape_[s] : world;
}

void ContactRows::append(double t, const std::vector<ContactSample>& contacts,
                         std::string& out) const {
  for (const ContactSample& c : contacts) {
    number(t, out);
    if (c.joint < 0) {
      const ContactPoint& p = c.point;
      out += ",contact," + body(p.body_a) + "," + body(p.body_b) + "," + shape(p.shape_a) + "," +
             shape(p.shape_b) + ",,";
      for (const Vec3* v : {&p.point, &p.normal})
        for (int k = 0; k < 3; ++k) {
          out += ',';
          number((*v)(k), out);
        }
    } else {
      const Joint* j = m_.joint(c.joint);
      out += ",limit,";
      out += j ? body(j->parent()) + "," + body(j->child()) : std::string(",");
      out += ",,," + m_.constraints()[c.joint]->name() + (c.upper ? ",upper" : ",lower");
      out += ",,,,,,";
    }
    for (double v : {c.normal_force, c.friction_force.x(), c.friction_force.y(),
                     c.friction_force.z(), c.friction_force.norm(), c.point.gap}) {
      out += ',';
      number(v, out);
    }
    out += ',';
    out += contact_state_name(c.state);
    out += c.impact ? ",1\n" : ",0\n";
  }
}

ojson ContactRows::json(const std::vector<ContactSample>& contacts) const {
  ojson points = ojson::array(), limits = ojson::object();
  for (const ContactSample& c : contacts) {
    if (c.joint >= 0) {
      ojson e;
      e["side"] = c.upper ? "upper" : "lower";
      e["normal_force"] = c.normal_force;
      e["joint_force"] = c.joint_force + 0.0;  // no −0
      e["gap"] = c.point.gap;
      e["state"] = contact_state_name(c.state);
      // both sides of a narrow range can be in the step: the one that pushes (else the
      // nearer) stands for the joint
      const std::string& name = m_.constraints()[c.joint]->name();
      const auto it = limits.find(name);
      if (it != limits.end()) {
        const double f = (*it)["normal_force"].get<double>();
        if (c.normal_force < f ||
            (c.normal_force == f && c.point.gap >= (*it)["gap"].get<double>()))
          continue;
      }
      limits[name] = e;
      continue;
    }
    const ContactPoint& p = c.point;
    ojson e;
    e["body_a"] = body(p.body_a);
    e["body_b"] = body(p.body_b);
    e["shape_a"] = shape(p.shape_a);
    e["shape_b"] = shape(p.shape_b);
    e["point"] = vec(p.point);
    e["normal"] = vec(p.normal);
    e["gap"] = p.gap;
    e["normal_force"] = c.normal_force;
    e["friction_force"] = vec(c.friction_force);
    e["force"] = vec(c.normal_force * p.normal + c.friction_force);
    e["state"] = contact_state_name(c.state);
    e["impact"] = c.impact;
    points.push_back(e);
  }
  return {{"points", points}, {"limits", limits}};
}

}  // namespace appell::cli
