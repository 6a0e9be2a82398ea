#!/usr/bin/python3
"""scenes/schema.json against the loader.

1. The schema is a valid JSON Schema 2020-12 and every shipped JSON scene (every *.json
   under scenes/, subfolders included, but the schema itself) validates against it.
2. On a set of scenes, the schema and `appell check` agree: both reject the structurally
   invalid ones, both accept the valid ones.  A few scenes only the loader can reject
   (names, the inertia's triangle inequality, initial positions) are listed as such, so the
   boundary stays documented.

usage: check_schema.py APPELL SOURCE_DIR        exit 0 pass, 1 fail, 77 skipped
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("SKIPPED: python3-jsonschema is not installed (Debian package python3-jsonschema)")
    sys.exit(77)

APPELL, SOURCE = sys.argv[1], sys.argv[2]

BASE = {
    "gravity": [0, 0, -9.81],
    "bodies": [
        {"name": "arm", "mass": 1, "inertia": {"box": [0.05, 0.05, 0.4]}, "position": [0, 0, -0.2]},
        {"name": "bob", "type": "particle", "mass": 0.5, "position": [0, 0, -0.6]},
    ],
    "constraints": [
        {"name": "hinge", "type": "revolute", "bodies": ["world", "arm"], "anchor": [0, 0, 0],
         "axis": [1, 0, 0]},
        {"name": "rod", "type": "distance", "bodies": ["arm", "bob"],
         "points": [[0, 0, -0.4], [0, 0, -0.6]]},
    ],
}


def edit(path, value):
    """BASE with the value at path (a list of keys) replaced; None deletes it."""
    scene = copy.deepcopy(BASE)
    node = scene
    for key in path[:-1]:
        node = node[key]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return scene


def plus(key, value):
    return edit([key], value)


ROLLING = {"bodies": [{"name": "disk", "mass": 1, "inertia": {"cylinder": [0.5, 0.1]},
                       "position": [0, 0, 0.5], "orientation": {"axis_angle": [1, 0, 0, 1.5707963267948966]}}],
           "constraints": [{"type": "rolling", "body": "disk", "radius": 0.5, "shape": "disk",
                            "normal": [0, 0, 1]}]}

# a two-link arm in joint space: each link placed by its joint's origin, initial q and qd
LINK = {"mass": 1, "inertia": {"box": [0.05, 0.05, 0.4]}, "com": [0, 0, -0.2]}
ARM = {
    "gravity": [0, 0, -9.81],
    "bodies": [dict(LINK, name="upper"), dict(LINK, name="fore")],
    "constraints": [
        {"name": "shoulder", "type": "revolute", "bodies": ["world", "upper"],
         "origin": {"xyz": [0, 0, 1], "rpy": [0, 0, 0]}, "axis": [1, 0, 0], "q": 0.3, "qd": 0.1},
        {"name": "elbow", "type": "revolute", "bodies": ["upper", "fore"],
         "origin": {"xyz": [0, 0, -0.4]}, "axis": [1, 0, 0], "q": [0.6]},
    ],
}
URDF = os.path.join(os.path.abspath(SOURCE), "scenes", "examples", "robots", "two_link_arm.urdf")
MJCF = os.path.join(os.path.abspath(SOURCE), "scenes", "examples", "robots", "two_link_arm.xml")
INCLUDE = {"include": {"urdf": URDF, "base": "fixed", "q": {"shoulder": 0.3}, "qd": {"elbow": 1}}}


def arm(path, value):
    """ARM with the value at path replaced (None deletes it)."""
    scene = copy.deepcopy(ARM)
    node = scene
    for key in path[:-1]:
        node = node[key]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return scene


def arm_plus(kind, entry):
    """ARM with one more constraint or force."""
    scene = copy.deepcopy(ARM)
    scene.setdefault(kind, []).append(entry)
    return scene


def include(**keys):
    scene = copy.deepcopy(INCLUDE)
    scene["include"].update(keys)
    return scene


# (what, scene, expected): "invalid" both reject, "valid" both accept, "loader" only the
# loader rejects (what a schema cannot say)
CASES = [
    ("the base scene", BASE, "valid"),
    ("stabilization as the string none", plus("solver", {"stabilization": "none"}), "valid"),
    ("baumgarte with gains", plus("solver", {"formulation": "pinv", "stabilization": {"type": "baumgarte", "alpha": 5, "beta": 5}}), "valid"),
    ("a particle with a visual sphere", edit(["bodies", 1, "visual"], {"sphere": 0.05, "color": "#00ff00"}), "valid"),
    ("a rolling disk", ROLLING, "valid"),
    ("a spring and a damper", plus("forces", [{"type": "spring", "bodies": ["world", "bob"], "points": [[0, 0, 0], [0, 0, -0.6]], "stiffness": 3}, {"type": "damping", "body": "arm", "angular": 0.1}]), "valid"),
    ("a typo at the top", plus("gravityy", [0, 0, -1]), "invalid"),
    ("no bodies", plus("bodies", []), "invalid"),
    ("a body without mass", edit(["bodies", 0, "mass"], None), "invalid"),
    ("a negative mass", edit(["bodies", 0, "mass"], -1), "invalid"),
    ("a rigid body without inertia", edit(["bodies", 0, "inertia"], None), "invalid"),
    ("a particle with inertia", edit(["bodies", 1, "inertia"], {"sphere": 1}), "invalid"),
    ("two inertia shapes", edit(["bodies", 0, "inertia"], {"sphere": 1, "box": [1, 1, 1]}), "invalid"),
    ("two principal moments", edit(["bodies", 0, "inertia"], {"principal": [1, 1]}), "invalid"),
    ("a zero quaternion", edit(["bodies", 0, "orientation"], {"quaternion": [0, 0, 0, 0]}), "invalid"),
    ("a body called world", edit(["bodies", 1, "name"], "world"), "invalid"),
    ("an unknown body type", edit(["bodies", 1, "type"], "soft"), "invalid"),
    ("an unknown constraint type", edit(["constraints", 0, "type"], "hinge"), "invalid"),
    ("a revolute joint without axis", edit(["constraints", 0, "axis"], None), "invalid"),
    ("a revolute joint with a length", edit(["constraints", 0, "length"], 1), "invalid"),
    ("a zero axis", edit(["constraints", 0, "axis"], [0, 0, 0]), "invalid"),
    ("a distance with one point", edit(["constraints", 1, "points"], [[0, 0, -0.4]]), "invalid"),
    ("a negative length", edit(["constraints", 1, "length"], -0.2), "invalid"),
    ("three bodies in a pair", edit(["constraints", 1, "bodies"], ["arm", "bob", "world"]), "invalid"),
    ("a cube that rolls", edit(["constraints", 0], {"type": "rolling", "body": "arm", "radius": 1, "shape": "cube", "normal": [0, 0, 1]}), "invalid"),
    ("an acceleration-level expression", edit(["constraints", 1], {"type": "expression", "level": "acceleration", "equation": "x(bob)"}), "invalid"),
    ("a parameter that is a string", edit(["constraints", 1], {"type": "expression", "level": "position", "equation": "z(bob) + a", "parameters": {"a": "0.6"}}), "invalid"),
    ("a spring without stiffness", plus("forces", [{"type": "spring", "bodies": ["world", "bob"], "points": [[0, 0, 0], [0, 0, -0.6]]}]), "invalid"),
    ("negative damping", plus("forces", [{"type": "damping", "body": "bob", "linear": -1}]), "invalid"),
    ("an expression force of two components", plus("forces", [{"type": "expression", "body": "bob", "vector": ["0", "0"]}]), "invalid"),
    ("an unknown formulation", plus("solver", {"formulation": "fast"}), "invalid"),
    ("baumgarte without beta", plus("solver", {"stabilization": {"type": "baumgarte", "alpha": 1}}), "invalid"),
    ("projection with a gain", plus("solver", {"stabilization": {"type": "projection", "alpha": 1}}), "invalid"),
    ("an unknown integrator", plus("integrator", {"method": "euler"}), "invalid"),
    ("a zero step", plus("integrator", {"dt": 0}), "invalid"),
    ("output every 0 rows", plus("output", {"every": 0}), "invalid"),
    ("output every 1.5 rows", plus("output", {"every": 1.5}), "invalid"),
    ("two visual shapes", edit(["bodies", 0, "visual"], {"sphere": 1, "box": [1, 1, 1]}), "invalid"),
    ("a colour by name", edit(["bodies", 0, "visual"], {"sphere": 1, "color": "red"}), "invalid"),
    ("a planar gravity", plus("gravity", [0, -9.81]), "invalid"),
    # joint space, URDF include, actuation at joints, prescribed motion, mimic
    ("a two-link arm placed by origins", ARM, "valid"),
    ("an armature on a joint", dict(ARM, constraints=[dict(ARM["constraints"][0], armature=0.2), ARM["constraints"][1]]), "valid"),
    ("a negative armature", dict(ARM, constraints=[dict(ARM["constraints"][0], armature=-1), ARM["constraints"][1]]), "invalid"),
    ("a massless frame between two joints", dict(ARM, bodies=[{"name": "upper", "mass": 0, "inertia": {"matrix": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}, "com": [0, 0, 0]}, dict(LINK, name="fore")]), "valid"),
    ("a URDF include with q and qd", INCLUDE, "valid"),
    ("a URDF include and a tool on it", dict(include(), bodies=[{"name": "gripper", "mass": 0.1, "inertia": {"sphere": 0.02}}], constraints=[{"type": "fixed", "bodies": ["tool", "gripper"], "origin": {"xyz": [0.5, 0, 0]}}]), "valid"),
    ("the four joint forces", dict(ARM, forces=[
        {"type": "pd", "joint": "shoulder", "kp": 5, "kd": 1, "target": "0.3 + 0.1*sin(w*t)", "parameters": {"w": 2}},
        {"type": "joint_torque", "joint": "elbow", "value": "-0.1*qd(elbow)"},
        {"type": "joint_spring", "joint": "elbow", "stiffness": 2, "rest": [0.6], "damping": 0.1},
        {"type": "joint_damping", "joint": "shoulder", "damping": 0.2}]), "valid"),
    ("a prescribed joint", arm_plus("constraints", {"type": "prescribed", "joint": "elbow", "q": "0.6 + a*sin(t)", "parameters": {"a": 0.1}}), "valid"),
    ("a prescribed point", plus("constraints", [{"type": "prescribed", "body": "bob", "point": [0, 0, -0.6], "position": [0, "0.1*sin(t)", -0.6]}]), "valid"),
    ("a mimic", arm_plus("constraints", {"type": "mimic", "joint": "elbow", "leader": "shoulder", "multiplier": 2, "offset": 0}), "valid"),
    ("an unknown key in origin", arm(["constraints", 0, "origin"], {"xyz": [0, 0, 1], "rpi": [0, 0, 0]}), "invalid"),
    ("an origin of two numbers", arm(["constraints", 0, "origin"], {"xyz": [0, 1]}), "invalid"),
    ("an origin and an anchor", arm(["constraints", 0, "anchor"], [0, 0, 1]), "invalid"),
    ("q as a string", arm(["constraints", 0, "q"], "0.3"), "invalid"),
    ("two coordinates for a revolute joint", arm(["constraints", 0, "q"], [0.3, 0.1]), "invalid"),
    ("q on a joint without an origin", edit(["constraints", 0, "q"], 0.1), "invalid"),
    ("q on a fixed joint", arm(["constraints", 1], {"type": "fixed", "bodies": ["upper", "fore"], "origin": {}, "q": 0}), "invalid"),
    ("com on a particle", edit(["bodies", 1, "com"], [0, 0, 0]), "invalid"),
    ("an unknown key in include", include(scale=2), "invalid"),
    ("an include of a mobile base", include(base="mobile"), "invalid"),
    ("an include of an XML file", include(urdf=URDF[:-5] + ".xml"), "invalid"),
    ("an MJCF include", {"include": {"mjcf": MJCF, "q": {"shoulder": 0.3}}}, "valid"),
    ("an MJCF include with a base", {"include": {"mjcf": MJCF, "base": "fixed"}}, "invalid"),
    ("an include's q as a list", include(q=[0.3]), "invalid"),
    ("an unknown key in pd", arm_plus("forces", {"type": "pd", "joint": "shoulder", "kp": 5, "ki": 1, "target": 0}), "invalid"),
    ("a negative gain", arm_plus("forces", {"type": "pd", "joint": "shoulder", "kp": -5, "target": 0}), "invalid"),
    ("a pd without target", arm_plus("forces", {"type": "pd", "joint": "shoulder", "kp": 5}), "invalid"),
    ("a joint torque of an object", arm_plus("forces", {"type": "joint_torque", "joint": "elbow", "value": {"a": 1}}), "invalid"),
    ("a joint spring's rest as a string", arm_plus("forces", {"type": "joint_spring", "joint": "elbow", "stiffness": 1, "rest": "0.1"}), "invalid"),
    ("a joint damping without damping", arm_plus("forces", {"type": "joint_damping", "joint": "elbow"}), "invalid"),
    ("a prescribed coordinate -1", arm_plus("constraints", {"type": "prescribed", "joint": "elbow", "coordinate": -1, "q": 0.6}), "invalid"),
    ("a prescribed joint and body", arm_plus("constraints", {"type": "prescribed", "joint": "elbow", "body": "fore", "q": 0.6}), "invalid"),
    ("a prescribed point in the plane", plus("constraints", [{"type": "prescribed", "body": "bob", "position": [0, -0.6]}]), "invalid"),
    ("a mimic without leader", arm_plus("constraints", {"type": "mimic", "joint": "elbow"}), "invalid"),
    ("a mimic's multiplier as a string", arm_plus("constraints", {"type": "mimic", "joint": "elbow", "leader": "shoulder", "multiplier": "2"}), "invalid"),
    ("com on a body no joint places", edit(["bodies", 0, "com"], [0, 0, 0]), "loader"),
    ("a world pose on a placed body", arm(["bodies", 1, "position"], [0, 0, 0]), "loader"),
    ("a pd on an unknown joint", arm_plus("forces", {"type": "pd", "joint": "knee", "kp": 5, "target": 0}), "loader"),
    ("an unknown body in a joint", edit(["constraints", 0, "bodies"], ["world", "hand"]), "loader"),
    ("moments off the triangle inequality", edit(["bodies", 0, "inertia"], {"principal": [1, 1, 3]}), "loader"),
    ("a rod of the wrong length at t = 0", edit(["constraints", 1, "length"], 0.3), "loader"),
    # collision shapes
    ("a ground plane and shapes on a body", dict(plus("shapes", [{"name": "ground", "type": "plane", "friction": 0.8}]), bodies=[dict(BASE["bodies"][0], shapes=[{"type": "capsule", "radius": 0.05, "length": 0.5, "orientation": {"axis_angle": [1, 0, 0, 0.3]}, "group": 3, "mask": 1}]), BASE["bodies"][1]]), "valid"),
    ("a sphere without radius", plus("shapes", [{"type": "sphere"}]), "invalid"),
    ("a box with a radius", plus("shapes", [{"type": "box", "size": [1, 1, 1], "radius": 1}]), "invalid"),
    ("a restitution above 1", plus("shapes", [{"type": "plane", "restitution": 1.5}]), "invalid"),
    ("an unknown shape type", plus("shapes", [{"type": "cone", "radius": 1}]), "invalid"),
    ("a mesh file that does not exist", plus("shapes", [{"type": "mesh", "file": "no_such.stl"}]), "loader"),
]


def loader_accepts(scene, tmp):
    path = os.path.join(tmp, "scene.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    r = subprocess.run([APPELL, "check", path], capture_output=True, text=True)
    if r.returncode not in (0, 2):
        raise RuntimeError("appell check exited with %d: %s" % (r.returncode, r.stderr))
    return r.returncode == 0, r.stderr.strip()


def main():
    with open(os.path.join(SOURCE, "scenes", "schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = []
    shipped = sorted(p for p in glob.glob(os.path.join(SOURCE, "scenes", "**", "*.json"),
                                          recursive=True)
                     if os.path.basename(p) != "schema.json")
    if len(shipped) < 29:
        failures.append("only %d shipped scenes found" % len(shipped))
    for path in shipped:
        with open(path) as f:
            for e in validator.iter_errors(json.load(f)):
                failures.append("%s: %s: %s" % (path, e.json_path, e.message))
    with tempfile.TemporaryDirectory() as tmp:
        for what, scene, expected in CASES:
            schema_ok = validator.is_valid(scene)
            loader_ok, message = loader_accepts(scene, tmp)
            want = {"valid": (True, True), "invalid": (False, False), "loader": (True, False)}[expected]
            if (schema_ok, loader_ok) != want:
                failures.append("%s: schema %s, loader %s (%s); expected %s" % (
                    what, "accepts" if schema_ok else "rejects",
                    "accepts" if loader_ok else "rejects", message, expected))
    for f in failures:
        print("FAIL: " + f)
    print("%d shipped scenes, %d cases: %s" % (len(shipped), len(CASES), "FAILED" if failures else "ok"))
    return 1 if failures else 0


sys.exit(main())
