#!/usr/bin/python3
"""scenes/schema.json against the loader.

1. The schema is a valid JSON Schema 2020-12 and every shipped scene (scenes/examples,
   scenes/benchmarks) validates against it.
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
    ("an unknown body in a joint", edit(["constraints", 0, "bodies"], ["world", "hand"]), "loader"),
    ("moments off the triangle inequality", edit(["bodies", 0, "inertia"], {"principal": [1, 1, 3]}), "loader"),
    ("a rod of the wrong length at t = 0", edit(["constraints", 1, "length"], 0.3), "loader"),
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
    shipped = sorted(glob.glob(os.path.join(SOURCE, "scenes", "examples", "*.json")) +
                     glob.glob(os.path.join(SOURCE, "scenes", "benchmarks", "*.json")))
    if len(shipped) < 20:
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
