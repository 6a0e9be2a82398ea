#!/usr/bin/env python3
"""Lagrangian systems (docs/lagrangian.md) against SymPy's mechanics.

For the example scenes of scenes/examples/lagrangian/, SymPy's LagrangesMethod forms
Lagrange's equations symbolically (with the nonholonomic constraint and the generalized
forces of the scene); at random states the accelerations it gives must equal those
`appell eval` prints to 1e-12 (relative), and so must the quasi-velocities' rates.  The
constraints nonlinear in the rates (isokinetic_particle.json, appell_particle.json) too.

usage: sympy_check.py APPELL_CLI SOURCE_DIR      (exit 77: SymPy not installed)
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile

try:
    import sympy as sp
    from sympy.physics.mechanics import LagrangesMethod, Point, ReferenceFrame, dynamicsymbols
except ImportError:
    print("SymPy not installed (Debian: python3-sympy); skipped")
    sys.exit(77)

CLI, SOURCE = sys.argv[1], sys.argv[2]
EXAMPLES = os.path.join(SOURCE, "scenes", "examples", "lagrangian")


def appell_eval(scene, q, qd, tmp):
    """appell eval --json on the scene with its initial state replaced by (q, qd)"""
    for c, a, b in zip(scene["lagrangian"]["coordinates"], q, qd):
        c["q"], c["rate"] = a, b
    path = os.path.join(tmp, "scene.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    r = subprocess.run([CLI, "eval", "--json", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("appell eval failed: " + r.stderr)
    return json.loads(r.stdout)


CHECKED = [0]


def close(a, b, what, failures):
    CHECKED[0] += 1
    if abs(a - b) > 1e-12 * max(1.0, abs(b)):
        failures.append("%s: appell %.17g, SymPy %.17g" % (what, a, b))


def lewis(tmp, failures):
    """L96 section 2: zdot = y xdot, nu1 = ydot, nu2 = y zdot + xdot"""
    with open(os.path.join(EXAMPLES, "lewis_particle.json")) as f:
        scene = json.load(f)
    p = scene["lagrangian"]["parameters"]
    m, g, k, c, d = (sp.Float(p[s]) for s in ("m", "g", "k", "c", "d"))
    x, y, z = dynamicsymbols("x y z")
    xd, yd, zd = dynamicsymbols("x y z", 1)
    N = ReferenceFrame("N")
    P = Point("P")
    P.set_vel(N, xd * N.x + yd * N.y + zd * N.z)
    L = m / 2 * (xd**2 + yd**2 + zd**2) - m * g * z
    t = dynamicsymbols._t
    forces = [(P, -k * x * N.x + (c * sp.sin(t) - d * yd) * N.y)]
    LM = LagrangesMethod(L, [x, y, z], nonhol_coneqs=[zd - y * xd], forcelist=forces, frame=N)
    LM.form_lagranges_equations()
    rhs = LM.rhs()  # [q̇; q̈; λ]
    rng = random.Random(36)
    for trial in range(5):
        q = [rng.uniform(-1, 1) for _ in range(3)]
        vx, vy = rng.uniform(-1, 1), rng.uniform(-1, 1)
        qd = [vx, vy, q[1] * vx]
        subs = {x: q[0], y: q[1], z: q[2], xd: qd[0], yd: qd[1], zd: qd[2], t: 0}
        qdd = [float(rhs[3 + i].subs(subs).evalf(30)) for i in range(3)]
        out = appell_eval(scene, q, qd, tmp)
        for i, name in enumerate("xyz"):
            close(out["qdd"][name], qdd[i], "lewis %d qdd %s" % (trial, name), failures)
        # nu1' = y'', nu2' = y' z' + y z'' + x''
        close(out["nudot"][0], qdd[1], "lewis %d nudot1" % trial, failures)
        close(out["nudot"][1], qd[1] * qd[2] + q[1] * qdd[2] + qdd[0], "lewis %d nudot2" % trial,
              failures)


def unconstrained(name, lagrangian, names, tmp, failures, speed=1.0):
    """a scene without constraints: L from the scene's own parameters"""
    with open(os.path.join(EXAMPLES, name)) as f:
        scene = json.load(f)
    p = {s: sp.Float(v) for s, v in scene["lagrangian"]["parameters"].items()}
    qs = dynamicsymbols(" ".join(names))
    qds = [sp.diff(s, dynamicsymbols._t) for s in qs]
    LM = LagrangesMethod(lagrangian(p, qs, qds), qs)
    LM.form_lagranges_equations()
    rhs = LM.rhs()
    n = len(qs)
    rng = random.Random(7)
    for trial in range(5):
        q = [rng.uniform(-1, 1) for _ in range(n)]
        qd = [speed * rng.uniform(-1, 1) for _ in range(n)]
        subs = dict(zip(qs, q))
        subs.update(zip(qds, qd))
        qdd = [float(rhs[n + i].subs(subs).evalf(30)) for i in range(n)]
        out = appell_eval(scene, q, qd, tmp)
        for i, c in enumerate(names):
            close(out["qdd"][c], qdd[i], "%s %d qdd %s" % (name, trial, c), failures)


# every function of the expression language in one Lagrangian, regular on [-1, 1]^4: the
# nested dual numbers' second derivatives of each against SymPy's symbolic ones; min and max take
# their first operand on the sampled states (SymPy is given that branch)
ZOO = ("0.5*(2 + sin(q(a))*cos(q(b)) + 0.3*tanh(q(a)))*qd(a)^2"
       " + 0.5*(2 + 0.2*exp(0.3*q(b)) + 0.1*atan(q(a)*q(b)) + 0.1*acos(0.5*sin(q(a))))*qd(b)^2"
       " + 0.2*sqrt(1.5 + q(a)^2)*qd(a)*qd(b) + 0.1*log(2 + cosh(q(b)))*qd(b)"
       " - 0.3*sinh(0.5*q(a)) + 0.05*atan2(q(b), 2 + q(a))*qd(a)"
       " + 0.1*pow(1.2 + 0.1*q(b)^2, q(a))*qd(b) + 0.02*asin(0.5*tanh(q(b)))*qd(a)^3"
       " + 0.03*tan(0.5*q(a))*qd(b)^2*qd(a) + 0.01*min(q(b), 3)*max(q(a), -2)*qd(a)^4")


def zoo(tmp, failures):
    qs = dynamicsymbols("a b")
    qds = [sp.diff(s, dynamicsymbols._t) for s in qs]
    names = {"a": 0, "b": 1}
    local = {"q": lambda s: qs[names[str(s)]], "qd": lambda s: qds[names[str(s)]],
             "pow": sp.Pow, "atan2": sp.atan2, "min": lambda x, y: x, "max": lambda x, y: x, "a": sp.Symbol("a"),
             "b": sp.Symbol("b")}
    L = sp.sympify(ZOO, locals=local)
    LM = LagrangesMethod(L, qs)
    LM.form_lagranges_equations()
    rhs = LM.rhs()
    scene = {"lagrangian": {"coordinates": [{"name": "a"}, {"name": "b"}], "L": ZOO}}
    rng = random.Random(11)
    for trial in range(5):
        q = [rng.uniform(-1, 1) for _ in range(2)]
        qd = [rng.uniform(-1, 1) for _ in range(2)]
        subs = dict(zip(qs, q))
        subs.update(zip(qds, qd))
        qdd = [float(rhs[2 + i].subs(subs).evalf(30)) for i in range(2)]
        out = appell_eval(scene, q, qd, tmp)
        for i, c in enumerate("ab"):
            close(out["qdd"][c], qdd[i], "zoo %d qdd %s" % (trial, c), failures)


def disk(tmp, failures):
    """the rolling disk: two nonholonomic rows, quasi-velocities (th', ph', ps' + sin th ph')"""
    with open(os.path.join(EXAMPLES, "rolling_disk.json")) as f:
        scene = json.load(f)
    p = {k: sp.Float(v) for k, v in scene["lagrangian"]["parameters"].items()}
    m, R, A, C, g = p["m"], p["R"], p["A"], p["C"], p["g"]
    qs = dynamicsymbols("x y th ph ps")
    x, y, th, ph, ps = qs
    xd, yd, thd, phd, psd = [sp.diff(c, dynamicsymbols._t) for c in qs]
    L = (m / 2 * (xd**2 + yd**2 + R**2 * sp.sin(th)**2 * thd**2)
         + (A * thd**2 + A * sp.cos(th)**2 * phd**2 + C * (psd + sp.sin(th) * phd)**2) / 2
         - m * g * R * sp.cos(th))
    s_ = psd + sp.sin(th) * phd
    rows = [xd - R * s_ * sp.cos(ph) - R * sp.cos(th) * sp.sin(ph) * thd,
            yd - R * s_ * sp.sin(ph) + R * sp.cos(th) * sp.cos(ph) * thd]
    LM = LagrangesMethod(L, qs, nonhol_coneqs=rows)
    LM.form_lagranges_equations()
    rhs = LM.rhs()
    rng = random.Random(5)
    for trial in range(3):
        q = [rng.uniform(-1, 1) for _ in range(5)]
        w = [rng.uniform(-2, 2) for _ in range(3)]  # th', ph', ps'
        sv = w[2] + math.sin(q[2]) * w[1]
        R_ = float(R)
        qd = [R_ * sv * math.cos(q[3]) + R_ * math.cos(q[2]) * math.sin(q[3]) * w[0],
              R_ * sv * math.sin(q[3]) - R_ * math.cos(q[2]) * math.cos(q[3]) * w[0]] + w
        subs = dict(zip(qs, q))
        subs.update(zip([xd, yd, thd, phd, psd], qd))
        qdd = [float(rhs[5 + i].subs(subs).evalf(30)) for i in range(5)]
        out = appell_eval(scene, q, qd, tmp)
        for i, c in enumerate(["x", "y", "th", "ph", "ps"]):
            close(out["qdd"][c], qdd[i], "disk %d qdd %s" % (trial, c), failures)


def nonlinear_rates(tmp, failures):
    """constraints nonlinear in the rates: the isokinetic particle (xd^2 + yd^2 = v0^2 in a
    uniform field) and Appell's particle (xd^2 + yd^2 - zd^2 = 2 alpha h(x, y, z, t)
    [UK98 (28)]); SymPy's multipliers take the coefficients d(phi)/d(qdot), as Gauss's do"""
    t = dynamicsymbols._t
    with open(os.path.join(EXAMPLES, "isokinetic_particle.json")) as f:
        scene = json.load(f)
    p = {k: sp.Float(v) for k, v in scene["lagrangian"]["parameters"].items()}
    x, y = dynamicsymbols("x y")
    xd, yd = dynamicsymbols("x y", 1)
    L = p["m"] / 2 * (xd**2 + yd**2) - p["m"] * p["g"] * y
    LM = LagrangesMethod(L, [x, y], nonhol_coneqs=[xd**2 + yd**2 - p["v0"]**2])
    LM.form_lagranges_equations()
    rhs = LM.rhs()
    rng = random.Random(60)
    v0 = float(p["v0"])
    for trial in range(5):
        q = [rng.uniform(-1, 1) for _ in range(2)]
        th = rng.uniform(-1.4, 1.4)
        qd = [v0 * math.cos(th), v0 * math.sin(th)]
        subs = {x: q[0], y: q[1], xd: qd[0], yd: qd[1]}
        qdd = [float(rhs[2 + i].subs(subs).evalf(30)) for i in range(2)]
        out = appell_eval(scene, q, qd, tmp)
        for i, c in enumerate("xy"):
            close(out["qdd"][c], qdd[i], "isokinetic %d qdd %s" % (trial, c), failures)
        close(out["nudot"][0], qdd[1], "isokinetic %d nudot" % trial, failures)

    with open(os.path.join(EXAMPLES, "appell_particle.json")) as f:
        scene = json.load(f)
    p = {k: sp.Float(v) for k, v in scene["lagrangian"]["parameters"].items()}
    x, y, z = dynamicsymbols("x y z")
    xd, yd, zd = dynamicsymbols("x y z", 1)
    h = x * y * sp.cos(p["w"] * t) + p["k"] * z * sp.sin(3 * t) + p["c"] * t
    L = p["m"] / 2 * (xd**2 + yd**2 + zd**2) - p["m"] * p["g"] * z
    LM = LagrangesMethod(L, [x, y, z], nonhol_coneqs=[xd**2 + yd**2 - zd**2 - 2 * p["alpha"] * h])
    LM.form_lagranges_equations()
    rhs = LM.rhs()
    alpha = float(p["alpha"])
    for trial in range(5):
        q = [rng.uniform(-1, 1) for _ in range(3)]
        vx, vy = rng.uniform(2, 3), rng.choice([-1, 1]) * rng.uniform(1, 2)  # nu = (xd, zd)
        vz = rng.choice([-1, 1]) * math.sqrt(vx * vx + vy * vy - 2 * alpha * q[0] * q[1])  # t = 0
        qd = [vx, vy, vz]
        subs = {x: q[0], y: q[1], z: q[2], xd: qd[0], yd: qd[1], zd: qd[2], t: 0}
        qdd = [float(rhs[3 + i].subs(subs).evalf(30)) for i in range(3)]
        out = appell_eval(scene, q, qd, tmp)
        for i, c in enumerate("xyz"):
            close(out["qdd"][c], qdd[i], "appell %d qdd %s" % (trial, c), failures)
        close(out["nudot"][0], qdd[0], "appell %d nudot vx" % trial, failures)
        close(out["nudot"][1], qdd[2], "appell %d nudot vz" % trial, failures)


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        lewis(tmp, failures)
        zoo(tmp, failures)
        disk(tmp, failures)
        nonlinear_rates(tmp, failures)
        unconstrained(
            "charged_particle.json",
            lambda p, q, v: p["m"] / 2 * (v[0]**2 + v[1]**2 + v[2]**2)
            + p["e"] * p["B"] / 2 * (q[0] * v[1] - q[1] * v[0]),
            ["x", "y", "z"], tmp, failures)
        unconstrained(
            "relativistic_particle.json",
            lambda p, q, v: -p["m"] * p["c"]**2 * sp.sqrt(1 - (v[0]**2 + v[1]**2) / p["c"]**2)
            - p["k"] / 2 * (q[0]**2 + q[1]**2),
            ["x", "y"], tmp, failures, speed=0.6)
        unconstrained(
            "spherical_pendulum.json",
            lambda p, q, v: p["m"] * p["l"]**2 / 2 * (v[0]**2 + sp.sin(q[0])**2 * v[1]**2)
            + p["m"] * p["g"] * p["l"] * sp.cos(q[0]),
            ["th", "ph"], tmp, failures)
    for f in failures:
        print("FAIL", f)
    print("%s: %d values compared, %d failures" % (os.path.basename(__file__), CHECKED[0],
                                                     len(failures)))
    return 1 if failures or CHECKED[0] < 120 else 0


if __name__ == "__main__":
    sys.exit(main())
