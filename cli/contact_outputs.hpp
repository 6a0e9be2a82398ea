// The contact outputs of `appell simulate` and `appell eval` (docs/contact.md, "Outputs"):
//
//   contacts.csv  one row per contact point and per joint limit of the step that produced
//                 each output sample (`--contacts FILE`, moreau runs):
//                   t, kind (contact | limit), body_a, body_b, shape_a, shape_b, joint, side,
//                   x, y, z, nx, ny, nz, normal_force, friction_x, friction_y, friction_z,
//                   friction, gap, state (open | stick | slip), impact (0 | 1)
//                 A contact: the bodies and shapes by name ("world" for the ground), the
//                 point and the normal a→b (world), the normal force on b, the friction
//                 force on b (world vector, and its magnitude), the gap; joint and side empty.
//                 A limit: body_a, body_b the joint's parent and child, joint its name, side
//                 lower | upper, normal_force the limit's force (N·m or N, ≥ 0), the gap the
//                 distance to the bound; shapes, point, normal empty, friction 0.
//                 Forces are the step's impulses / h.  Numbers as in traj.csv (%.17g).
//   eval          "contacts": the same rows at the scene's state (appell::contact_forces).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "appell/contact.hpp"
#include "appell/model.hpp"
#include "cli/outputs.hpp"

namespace appell::cli {

std::string contacts_header();

// Formats the rows of one sample's contacts; the names are resolved once per model.
class ContactRows {
 public:
  explicit ContactRows(const Model& m);
  // the rows of `contacts` at time t, appended to `out`
  void append(double t, const std::vector<ContactSample>& contacts, std::string& out) const;
  // eval's "contacts" object: {"points": [...], "limits": {joint: {...}}}
  nlohmann::ordered_json json(const std::vector<ContactSample>& contacts) const;

 private:
  const Model& m_;
  std::vector<std::string> body_, shape_;  // names by index (+1 for bodies: "world" first)
  const std::string& body(int b) const { return body_[b + 1]; }
  const std::string& shape(int s) const;
};

}  // namespace appell::cli
