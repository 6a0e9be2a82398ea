// The MJCF converter's forces (scenes/mjcf_converter.hpp): <actuator>s, fixed <tendon>s and
// joint springs as the scene's joint forces.
#include <algorithm>
#include <cctype>

#include "scenes/mjcf_converter.hpp"

namespace appell::mjcf_detail {

// (kind: "passive" or "actuation", for MuJoCo's <flag> switches)
void Converter::add_force(const XMLElement& e, const json& f, const char* kind) {
  if (!out_.doc.contains("forces")) out_.doc["forces"] = json::array();
  const std::string pointer = "/forces/" + std::to_string(out_.doc["forces"].size());
  out_.located[pointer] = {where(e), path(e)};
  out_.kinds[pointer] = kind;
  out_.doc["forces"].push_back(f);
}

bool Converter::is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '_')) return false;
  return true;
}

// τ = clamp(tau0 + dq q + du q̇, lo, hi) on a hinge or slide joint: every MuJoCo actuator
// at a fixed control, and a joint spring.  appell's own servo, damper or torque where one
// says the same (no clamp: those keep the exact derivatives), else a joint_torque
// expression of q(joint) and qd(joint).  (A hinge's angle is read in (−π, π] by both,
// MuJoCo's is not wrapped: they agree within one turn.)
void Converter::joint_law(const XMLElement& e, const std::string& joint, double tau0, double dq,
                          double du, bool clamped, double lo, double hi, const char* kind) {
  const double kp = -dq, kd = -du;
  const double target = kp > 0 ? tau0 / kp : 0.0;
  json f;
  if (!clamped && kp == 0 && kd >= 0 && (tau0 == 0 || kd == 0)) {
    f = kd > 0 ? json{{"type", "joint_damping"}, {"joint", joint}, {"damping", kd}}
               : json{{"type", "joint_torque"}, {"joint", joint}, {"value", tau0}};
  } else if (!clamped && kp > 0 && kd >= 0) {
    f = {{"type", "pd"}, {"joint", joint}, {"kp", kp}, {"kd", kd}, {"target", target}};
  } else if (is_identifier(joint)) {
    std::string v = "f0 + fq*q(" + joint + ") + fv*qd(" + joint + ")";
    json p = {{"f0", tau0}, {"fq", dq}, {"fv", du}};
    if (clamped) {
      v = "min(max(" + v + ", lo), hi)";
      p["lo"] = lo;
      p["hi"] = hi;
    }
    f = {{"type", "joint_torque"}, {"joint", joint}, {"value", v}, {"parameters", p}};
  } else if (kp >= 0 && kd >= 0) {
    warn(e, "joint '" + joint +
                "': its name is not an identifier appell's expressions can read: a pd servo "
                "without MuJoCo's force limit");
    f = {{"type", "pd"}, {"joint", joint}, {"kp", kp}, {"kd", kd}, {"target", target}};
  } else {
    fail(e, "joint '" + joint +
                "': this force needs an expression of the joint's coordinate, and the name is "
                "not an identifier (letters, digits, _)");
  }
  add_force(e, f, kind);
}

// A fixed tendon's force F = clamp(f0 + fl L + fv L̇, lo, hi), L = Σ coef q: on each
// of its joints τ = coef F (joint_torque expressions)
void Converter::tendon_law(const XMLElement& e, const std::string& tendon, double f0, double fl,
                           double fv, bool clamped, double lo, double hi, const char* kind) {
  const auto& terms = tendons_.at(tendon);
  std::string L, Ld;
  json p = {{"f0", f0}, {"fl", fl}, {"fv", fv}};
  for (size_t k = 0; k < terms.size(); ++k) {
    const std::string& j = terms[k].first;
    if (!is_identifier(j))
      fail(e, "tendon '" + tendon + "': joint '" + j +
                  "' has a name that appell's expressions cannot read (letters, digits, _)");
    const std::string c = "c" + std::to_string(k);
    L += (k ? " + " : "") + c + "*q(" + j + ")";
    Ld += (k ? " + " : "") + c + "*qd(" + j + ")";
    p[c] = terms[k].second;
  }
  std::string F = "f0 + fl*(" + L + ") + fv*(" + Ld + ")";
  if (clamped) {
    F = "min(max(" + F + ", lo), hi)";
    p["lo"] = lo;
    p["hi"] = hi;
  }
  for (size_t k = 0; k < terms.size(); ++k)
    add_force(e,
              {{"type", "joint_torque"},
               {"joint", terms[k].first},
               {"value", "c" + std::to_string(k) + "*(" + F + ")"},
               {"parameters", p}},
              kind);
}

// <tendon><fixed name stiffness damping springlength> of <joint joint coef>: a length
// L = Σ coef q for the actuators that name it, and its spring and damper
void Converter::tendons(const XMLElement& t) {
  for (const XMLElement* e = t.FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string n = e->Name();
    if (n != "fixed") {
      warn(*e, "tendon <" + n + "> not supported, ignored (so are actuators on it)");
      continue;
    }
    check_attributes(*e);
    const char* name = e->Attribute("name");
    std::vector<std::pair<std::string, double>> terms;
    for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
      if (std::string(c->Name()) != "joint") {
        warn(*c, "not supported in a fixed tendon, ignored");
        continue;
      }
      for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a; a = a->Next())
        if (std::string(a->Name()) != "joint" && std::string(a->Name()) != "coef")
          warn(*c, std::string("attribute '") + a->Name() + "' not supported, ignored");
      const char* j = c->Attribute("joint");
      if (!j) fail(*c, "missing attribute 'joint'");
      const auto it = joints_.find(j);
      if (it == joints_.end()) fail(*c, "no joint '" + std::string(j) + "' in the model");
      if (it->second.type != "hinge" && it->second.type != "slide")
        fail(*c, "a fixed tendon's joint must be a hinge or a slide");
      const char* coef = c->Attribute("coef");
      if (!coef) fail(*c, "missing attribute 'coef'");
      terms.emplace_back(j, numbers(*c, "coef", coef, 1, 1)[0]);
    }
    if (terms.empty()) fail(*e, "a fixed tendon without joints");
    const std::string key = name ? name : "";
    if (!key.empty() && !tendons_.emplace(key, terms).second)
      fail(*e, "a second tendon named '" + key + "'");
    // MuJoCo's spring rests at springlength, or where the tendon is at qpos0 (L = Σ coef ref)
    const double k = get1(*e, "stiffness", 0), b = get1(*e, "damping", 0);
    if (!(k >= 0) || !(b >= 0)) fail(*e, "stiffness and damping must be >= 0");
    const auto rest = get(*e, "springlength", 1, 2, {-1});
    if (rest.size() == 2 && rest[0] != rest[1])
      fail(*e, "attribute 'springlength': a dead band (two lengths) is not supported");
    double L_qpos0 = 0;
    for (const auto& [joint, coef] : terms) L_qpos0 += coef * joints_.at(joint).ref;
    const double L0 = rest[0] >= 0 ? rest[0] : L_qpos0;
    if (k > 0 || b > 0) {
      if (key.empty()) tendons_[""] = terms;
      tendon_law(*e, key, k * L0, -k, -b, false, 0, 0, "passive");
    }
  }
}

// what an actuator element (or its default) says, onto `a`, with its kind's meaning
// (MuJoCo's shortcuts set the gain, bias and dynamics of <general>)
void Converter::actuator_attributes(const XMLElement& e, ActuatorSpec& a) {
  const std::string kind = e.Name();
  const auto nums = [&](const char* k, size_t lo, size_t hi) -> std::optional<std::vector<double>> {
    const char* v = e.Attribute(k);
    if (!v) return std::nullopt;
    return numbers(e, k, v, lo, hi);
  };
  const auto choice = [&](const char* k, std::string& out, const std::set<std::string>& ok) {
    const char* v = e.Attribute(k);
    if (!v) return;
    if (!ok.count(v)) {
      std::string list;
      for (const auto& o : ok) list += (list.empty() ? "" : ", ") + o;
      fail(e, std::string("attribute '") + k + "': expected one of " + list + ", got '" + v + "'");
    }
    out = v;
  };
  if (const auto g = nums("gear", 1, 6)) a.gear = (*g)[0];
  if (const auto r = nums("ctrlrange", 2, 2)) a.ctrlrange = *r;
  if (const auto r = nums("forcerange", 2, 2)) a.forcerange = *r;
  choice("ctrllimited", a.ctrllimited, {"auto", "true", "false"});
  choice("forcelimited", a.forcelimited, {"auto", "true", "false"});
  const auto three = [](const std::vector<double>& v) {
    std::vector<double> out(3, 0.0);
    for (size_t k = 0; k < 3 && k < v.size(); ++k) out[k] = v[k];
    return out;
  };
  if (kind == "general") {
    choice("gaintype", a.gaintype, {"fixed", "affine", "muscle", "user"});
    choice("biastype", a.biastype, {"none", "affine", "muscle", "user"});
    choice("dyntype", a.dyntype, {"none", "integrator", "filter", "filterexact", "muscle", "user"});
    if (const auto g = nums("gainprm", 1, 10)) a.gainprm = three(*g);
    if (const auto b = nums("biasprm", 1, 10)) a.biasprm = three(*b);
    if (e.Attribute("dynprm")) nums("dynprm", 1, 10);  // checked; used by dynamics only
  } else if (kind == "motor") {
    a.gaintype = "fixed";
    a.gainprm = {1, 0, 0};
    a.biastype = "none";
    a.biasprm = {0, 0, 0};
    a.dyntype = "none";
  } else if (kind == "position") {
    if (const auto kp = nums("kp", 1, 1)) a.gainprm = {(*kp)[0], 0, 0};
    a.gaintype = "fixed";
    a.biastype = "affine";
    a.biasprm[1] = -a.gainprm[0];
    if (const auto kv = nums("kv", 1, 1)) a.biasprm[2] = -(*kv)[0];
    a.dyntype = "none";
  } else if (kind == "velocity") {
    if (const auto kv = nums("kv", 1, 1)) a.gainprm = {(*kv)[0], 0, 0};
    a.gaintype = "fixed";
    a.biastype = "affine";
    a.biasprm = {0, 0, -a.gainprm[0]};
    a.dyntype = "none";
  } else if (kind == "damper") {
    const double kv = nums("kv", 1, 1).value_or(std::vector<double>{1})[0];
    a.gaintype = "affine";
    a.gainprm = {0, 0, -kv};
    a.biastype = "none";
    a.biasprm = {0, 0, 0};
    a.ctrllimited = "true";
    a.dyntype = "none";
  }
}

// <actuator>: MuJoCo's force F = gain·ctrl + bias (gain and bias affine in the actuator
// length gear·q and its rate), clamped to forcerange, on the joint as gear·F (on a fixed
// tendon's joints as coef·gear·F).  appell has no control inputs: ctrl is 0, or the
// selected keyframe's, clamped to ctrlrange as MuJoCo clamps it
void Converter::actuators(const XMLElement& a) {
  for (const XMLElement* e = a.FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string n = e->Name();
    const size_t index = actuator_count_++;
    if (!is_actuator_kind(n)) {
      warn(*e, "actuator <" + n + "> not supported, ignored");
      continue;
    }
    check_attributes(*e);
    std::string cls = "main";
    if (const char* c = e->Attribute("class")) {
      cls = c;
      if (!classes_.count(cls)) fail(*e, "no default class '" + cls + "'");
    }
    ActuatorSpec s = actuator_defaults_.count(cls) ? actuator_defaults_.at(cls) : ActuatorSpec{};
    actuator_attributes(*e, s);
    const char* joint = e->Attribute("joint");
    const char* tendon = e->Attribute("tendon");
    if (!joint && !tendon) {
      warn(*e, "an actuator without a joint or tendon transmission not supported, ignored");
      continue;
    }
    if (joint && tendon) fail(*e, "both attribute 'joint' and 'tendon'");
    if (joint) {
      const auto it = joints_.find(joint);
      if (it == joints_.end()) fail(*e, "no joint '" + std::string(joint) + "' in the model");
      if (it->second.type != "hinge" && it->second.type != "slide") {
        warn(*e, "an actuator on a " + it->second.type + " joint not supported, ignored");
        continue;
      }
    } else if (!tendons_.count(tendon)) {
      warn(*e, "no fixed tendon '" + std::string(tendon) +
                   "' (spatial tendons are not supported): actuator ignored");
      continue;
    }
    if (s.gaintype == "muscle" || s.gaintype == "user" || s.biastype == "muscle" ||
        s.biastype == "user") {
      warn(*e, "a muscle or user gain or bias not supported, actuator ignored");
      continue;
    }
    if (s.dyntype != "none")
      warn(*e, "activation dynamics (dyntype '" + s.dyntype +
                   "') not supported: the force follows the control at once");
    const auto limited = [&](const std::string& flag, const std::vector<double>& range,
                             const char* what) {
      const bool on = flag == "true" || (flag == "auto" && autolimits_ && !range.empty());
      if (on && (range.size() != 2 || !(range[0] < range[1])))
        fail(*e, std::string("attribute '") + what + "': expected lower < upper");
      return on;
    };
    double ctrl = index < key_ctrl_.size() ? key_ctrl_[index] : 0.0;
    if (limited(s.ctrllimited, s.ctrlrange, "ctrlrange"))
      ctrl = std::min(std::max(ctrl, s.ctrlrange[0]), s.ctrlrange[1]);
    const bool clamped = limited(s.forcelimited, s.forcerange, "forcerange");
    // F = f0 + fl·(gear L) + fv·(gear L̇), L the joint's coordinate or the tendon's length
    const bool gain_affine = s.gaintype == "affine", bias_affine = s.biastype == "affine";
    const double f0 = s.gainprm[0] * ctrl + (bias_affine ? s.biasprm[0] : 0.0);
    const double fl =
        (gain_affine ? s.gainprm[1] * ctrl : 0.0) + (bias_affine ? s.biasprm[1] : 0.0);
    const double fv =
        (gain_affine ? s.gainprm[2] * ctrl : 0.0) + (bias_affine ? s.biasprm[2] : 0.0);
    const double g = s.gear;
    const double lo = clamped ? std::min(g * s.forcerange[0], g * s.forcerange[1]) : 0.0;
    const double hi = clamped ? std::max(g * s.forcerange[0], g * s.forcerange[1]) : 0.0;
    if (joint)
      joint_law(*e, joint, g * f0, g * g * fl, g * g * fv, clamped, lo, hi, "actuation");
    else
      tendon_law(*e, tendon, g * f0, g * g * fl, g * g * fv, clamped, lo, hi, "actuation");
  }
}

}  // namespace appell::mjcf_detail
