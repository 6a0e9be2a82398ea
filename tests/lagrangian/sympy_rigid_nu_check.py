#!/usr/bin/env python3
"""Rigid-body scenes in the user's quasi-velocities (docs/lagrangian.md) against SymPy's mechanics.

scenes/examples/quasi_velocities/rolling_disk.json: a disk rolling without slipping, its
quasi-velocities the body-frame angular velocity (nu = R^T w).  SymPy's KanesMethod derives
the disk's equations on its own: coordinates (x, y) of the contact point, yaw psi, lean th
and spin ph; independent generalized speeds the body-frame angular velocity components,
dependent speeds (x', y') fixed by the two rolling rows (the contact point of the disk at
rest); the mass, inertia (a solid cylinder), radius and gravity are read from the scene.  At
random states on the constraint set the scene is written with that state (the centre, the
orientation matrix, world velocities) and `appell eval --json` must print nu equal to the
speeds given and nudot equal to SymPy's u' to 1e-12 (relative).

scenes/examples/quasi_velocities/bicycle.json: SymPy places the four bodies from the rear
contact, yaw, lean, pitch (solved from the front contact's height), steer and wheel angles,
finds the dependent rates from the rolling rows, and solves Kane's equations in all eight rates
with the rolling rows' multipliers; at random states appell's nu must equal the lean rate, the
steer rate and the rear rim speed given, and its nudot SymPy's, to 1e-12.

usage: sympy_rigid_nu_check.py APPELL_CLI SOURCE_DIR      (exit 77: SymPy not installed)
"""
import json
import os
import random
import subprocess
import sys
import tempfile

try:
    import sympy as sp
    from sympy.physics.mechanics import (KanesMethod, Point, ReferenceFrame, RigidBody,
                                         dynamicsymbols, inertia, msubs)
except ImportError:
    print("SymPy not installed (Debian: python3-sympy); skipped")
    sys.exit(77)

CLI, SOURCE = sys.argv[1], sys.argv[2]
EXAMPLES = os.path.join(SOURCE, "scenes", "examples", "quasi_velocities")
DIGITS = 40  # SymPy's numbers: the reference is exact to far below 1e-12


def appell_eval(scene, tmp):
    path = os.path.join(tmp, "scene.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    r = subprocess.run([CLI, "eval", "--json", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("appell eval failed: " + r.stderr)
    return json.loads(r.stdout)


CHECKED = [0]
WORST = [0.0]


def close(a, b, what, failures):
    CHECKED[0] += 1
    err = abs(a - b) / max(1.0, abs(b))
    WORST[0] = max(WORST[0], err)
    if err > 1e-12:
        failures.append("%s: appell %.17g, SymPy %.17g" % (what, a, b))


def rolling_disk(tmp, failures):
    with open(os.path.join(EXAMPLES, "rolling_disk.json")) as f:
        scene = json.load(f)
    (body,) = scene["bodies"]
    (roll,) = scene["constraints"]
    assert roll["type"] == "rolling" and roll["shape"] == "disk" and roll["normal"] == [0, 0, 1]
    radius, height = body["inertia"]["cylinder"]
    m, r, g = sp.Float(body["mass"], DIGITS), sp.Float(roll["radius"], DIGITS), sp.Float(
        -scene["gravity"][2], DIGITS)
    assert scene["gravity"][:2] == [0, 0]
    a_cyl, h_cyl = sp.Float(radius, DIGITS), sp.Float(height, DIGITS)
    i_axis = m * a_cyl**2 / 2  # a solid cylinder along its own z axis
    i_diam = m * (3 * a_cyl**2 + h_cyl**2) / 12

    x, y, psi, th, ph = q = dynamicsymbols("x y psi th ph")
    u1, u2, u3, u4, u5 = u = dynamicsymbols("u1:6")
    N = ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (psi, N.z))  # heading: A.x along the rolling direction
    B = A.orientnew("B", "Axis", (th, A.x))  # lean: B.z from contact to centre, B.y the axis
    C = B.orientnew("C", "Axis", (-sp.pi / 2, B.x))  # C.z = B.y, the disk's axis as body z
    D = C.orientnew("D", "Axis", (ph, C.z))  # spin: D is the disk's body frame
    w = D.ang_vel_in(N)
    kd = [u1 - w.dot(D.x), u2 - w.dot(D.y), u3 - w.dot(D.z), u4 - x.diff(), u5 - y.diff()]
    D.set_ang_vel(N, u1 * D.x + u2 * D.y + u3 * D.z)

    O = Point("O")
    O.set_vel(N, 0)
    Cp = O.locatenew("Cp", x * N.x + y * N.y)  # the contact point on the ground, z = 0
    Cp.set_vel(N, u4 * N.x + u5 * N.y)
    P = Cp.locatenew("P", r * B.z)  # the centre
    P.v2pt_theory(Cp, N, B)  # v_P = v_Cp + w_B x r B.z (B's rate is the centre's motion)
    # rolling: the disk's material point at the contact is at rest, v_P + w_D x (-r B.z) = 0
    # (its N.z component vanishes identically: the height r cos th is geometry)
    slip = P.vel(N) + D.ang_vel_in(N).cross(-r * B.z)
    slip = slip.subs(KanesMethod(N, q, u, kd_eqs=kd).kindiffdict())
    rows = [slip.dot(N.x), slip.dot(N.y)]

    disk = RigidBody("disk", P, D, m, (inertia(D, i_diam, i_diam, i_axis), P))
    KM = KanesMethod(N, q_ind=q, u_ind=[u1, u2, u3], kd_eqs=kd, u_dependent=[u4, u5],
                     velocity_constraints=rows)
    KM.kanes_equations([disk], [(P, -m * g * N.z)])
    kdd = KM.kindiffdict()
    # [q'; u'] with the constraint rows; older SymPy leaves some q' in the forcing
    MM, FF = msubs(KM.mass_matrix_full, kdd), msubs(KM.forcing_full, kdd)

    rng = random.Random(36)
    for trial in range(6):
        qv = [rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-3, 3), rng.uniform(-1.2, 1.2),
              rng.uniform(-3, 3)]
        ui = [rng.uniform(-3, 3) for _ in range(3)]
        subs = {a: sp.Float(b, DIGITS) for a, b in zip(q, qv)}
        subs.update({a: sp.Float(b, DIGITS) for a, b in zip(u[:3], ui)})
        dep = sp.solve([e.xreplace(subs) for e in rows], [u4, u5], dict=True)[0]
        subs.update(dep)
        xdot = MM.xreplace(subs).LUsolve(FF.xreplace(subs))
        udot = [xdot[5 + i] for i in range(3)]

        # the state in the scene's terms: centre, body-to-world matrix, world velocities
        pos = P.pos_from(O).to_matrix(N).xreplace(subs)
        rot = [[N.x, N.y, N.z][i].dot([D.x, D.y, D.z][j]).xreplace(subs) for j in range(3)
               for i in range(3)]
        rot = [[float(rot[3 * j + i]) for j in range(3)] for i in range(3)]
        vel = P.vel(N).subs(kdd).to_matrix(N).xreplace(subs)
        omega = D.ang_vel_in(N).to_matrix(N).xreplace(subs)
        body["position"] = [float(c) for c in pos]
        body["orientation"] = {"matrix": rot}
        body["velocity"] = [float(c) for c in vel]
        body["angular_velocity"] = [float(c) for c in omega]
        out = appell_eval(scene, tmp)
        for i in range(3):
            close(out["nu"][i], ui[i], "disk %d nu %d" % (trial, i), failures)
            close(out["nudot"][i], float(udot[i]), "disk %d nudot %d" % (trial, i), failures)


def vec(frame, c):
    return sp.Float(c[0], DIGITS) * frame.x + sp.Float(c[1], DIGITS) * frame.y + sp.Float(
        c[2], DIGITS) * frame.z


def bicycle(tmp, failures):
    """the benchmark bicycle, its nu the lean rate, the steer rate and the rear wheel's rim speed.
    SymPy builds the configuration from the rear contact (x, y), yaw, lean, pitch (R = Rz Rx Ry;
    the pitch solved from the front wheel's contact with the ground), the steer and wheel angles,
    with the coordinates' rates as speeds u.  KanesMethod in all eight u gives M u' = f; the
    rolling rows B u = 0 (each wheel's material point at its contact at rest: the rear's two,
    the front's three, the third the contact's height) enter with multipliers, B^T lam their
    contact forces' generalized forces: [M -B^T; B 0] [u'; lam] = [f; -B' u]."""
    with open(os.path.join(EXAMPLES, "bicycle.json")) as f:
        text = f.read()
    scene = json.loads(text)
    b = {e["name"]: e for e in scene["bodies"]}
    c = {e["name"]: e for e in scene["constraints"]}
    assert "orientation" not in b["rear_frame"] and "orientation" not in b["fork"]
    assert scene["gravity"][:2] == [0, 0]
    g = sp.Float(-scene["gravity"][2], DIGITS)
    rr, rf = (sp.Float(c[k]["radius"], DIGITS) for k in ("rear_contact", "front_contact"))
    assert scene["quasi_velocities"][2]["parameters"]["rR"] == c["rear_contact"]["radius"]
    rel = lambda p, o: [p[i] - o[i] for i in range(3)]
    x, y, psi, phi, th, thR, dl, thF = q = dynamicsymbols("x y psi phi th thR dl thF")
    u = dynamicsymbols("u0:8")  # the rates of q
    kdd = {qi.diff(): ui for qi, ui in zip(q, u)}
    N = ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (psi, N.z))
    L = A.orientnew("L", "Axis", (phi, A.x))
    R = L.orientnew("R", "Axis", (th, L.y))  # the rear frame (the world's axes at rest)
    WR = R.orientnew("WR", "Axis", (thR, R.y))
    s = vec(R, c["steer"]["axis"]).normalize()
    Fk = R.orientnew("Fk", "Axis", (dl, s))
    WF = Fk.orientnew("WF", "Axis", (thF, Fk.y))
    for frame in (A, L, R, WR, Fk, WF):
        frame.set_ang_vel(N, msubs(frame.ang_vel_in(N), kdd))
    O = Point("O")
    O.set_vel(N, 0)
    Cr = O.locatenew("Cr", x * N.x + y * N.y)
    Cr.set_vel(N, u[0] * N.x + u[1] * N.y)
    Wc = Cr.locatenew("Wc", rr * L.z)
    rw0, s0 = b["rear_wheel"]["position"], c["steer"]["anchor"]
    Pr = Wc.locatenew("Pr", vec(R, rel(b["rear_frame"]["position"], rw0)))
    S = Wc.locatenew("S", vec(R, rel(s0, rw0)))
    Pf = S.locatenew("Pf", vec(Fk, rel(b["fork"]["position"], s0)))
    Fc = S.locatenew("Fc", vec(Fk, rel(b["front_wheel"]["position"], s0)))
    up = N.z - N.z.dot(Fk.y) * Fk.y
    Cf = Fc.locatenew("Cf", -rf * up / sp.sqrt(up.dot(up)))
    Wc.v2pt_theory(Cr, N, L)
    for P, base, frame in ((Pr, Wc, R), (S, Wc, R), (Pf, S, Fk), (Fc, S, Fk)):
        P.v2pt_theory(base, N, frame)
    slip_r = Wc.vel(N) + WR.ang_vel_in(N).cross(Cr.pos_from(Wc))
    slip_f = Fc.vel(N) + WF.ang_vel_in(N).cross(Cf.pos_from(Fc))
    rows = sp.Matrix([slip_r.dot(N.x), slip_r.dot(N.y), slip_f.dot(N.x), slip_f.dot(N.y),
                      slip_f.dot(N.z)])
    B = rows.jacobian(u)
    Bdot_u = msubs(rows.diff(dynamicsymbols._t), kdd, {ui.diff(): 0 for ui in u})

    def body(name, P, frame):
        d = b[name]
        if "principal" in d["inertia"]:  # a wheel: axisymmetric about its axle, frame.y
            i1, i2, i3 = (sp.Float(v, DIGITS) for v in d["inertia"]["principal"])
            assert i1 == i2
            tensor = inertia(frame, i1, i3, i1)
        else:
            M = [[sp.Float(v, DIGITS) for v in row] for row in d["inertia"]["matrix"]]
            tensor = inertia(frame, M[0][0], M[1][1], M[2][2], M[0][1], M[1][2], M[0][2])
        return RigidBody(name, P, frame, sp.Float(d["mass"], DIGITS), (tensor, P))

    parts = (("rear_frame", Pr, R), ("rear_wheel", Wc, WR), ("fork", Pf, Fk),
             ("front_wheel", Fc, WF))
    bodies = [body(*p) for p in parts]
    KM = KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[ui - qi.diff() for qi, ui in zip(q, u)])
    KM.kanes_equations(bodies, [(e.masscenter, -e.mass * g * N.z) for e in bodies])
    MM, FF = msubs(KM.mass_matrix, kdd), msubs(KM.forcing, kdd)

    rng = random.Random(36)
    for trial in range(4):
        subs = {x: rng.uniform(-1, 1), y: rng.uniform(-1, 1), psi: rng.uniform(-3, 3),
                phi: rng.uniform(-0.5, 0.5), thR: rng.uniform(-3, 3), dl: rng.uniform(-0.6, 0.6),
                thF: rng.uniform(-3, 3)}
        subs = {k: sp.Float(v, DIGITS) for k, v in subs.items()}
        pitch = sp.Dummy("pitch")
        height = Cf.pos_from(O).dot(N.z).xreplace(subs).xreplace({th: pitch})
        subs[th] = sp.nsolve(height, pitch, 0, prec=DIGITS)
        nu = [rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-6, 6)]
        subs.update({u[3]: sp.Float(nu[0], DIGITS), u[6]: sp.Float(nu[1], DIGITS),
                     u[5]: sp.Float(nu[2], DIGITS) / rr})
        subs.update(sp.solve(list(rows.xreplace(subs)), [u[0], u[1], u[2], u[4], u[7]],
                             dict=True)[0])
        Bn = B.xreplace(subs)
        K = MM.xreplace(subs).row_join(-Bn.T).col_join(Bn.row_join(sp.zeros(5, 5)))
        sol = K.LUsolve(FF.xreplace(subs).col_join(-Bdot_u.xreplace(subs)))
        nudot = [sol[3], sol[6], rr * sol[5]]

        def world(v):
            return [float(e) for e in v.to_matrix(N).xreplace(subs)]

        out_scene = json.loads(text)
        ob = {e["name"]: e for e in out_scene["bodies"]}
        oc = {e["name"]: e for e in out_scene["constraints"]}
        for name, P, frame in parts:
            m0 = b[name].get("orientation", {"matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]})
            cols = [world(vec(frame, [m0["matrix"][i][j] for i in range(3)])) for j in range(3)]
            ob[name]["orientation"] = {"matrix": [[cols[j][i] for j in range(3)]
                                                  for i in range(3)]}
            ob[name]["position"] = world(P.pos_from(O))
            ob[name]["velocity"] = world(P.vel(N))
            ob[name]["angular_velocity"] = world(frame.ang_vel_in(N))
        # the joints' anchors and axes are world points and directions at t = 0
        for joint, P, axis in (("rear_hub", Wc, R.y), ("steer", S, s), ("front_hub", Fc, Fk.y)):
            oc[joint]["anchor"] = world(P.pos_from(O))
            oc[joint]["axis"] = world(axis)
        out = appell_eval(out_scene, tmp)
        for i, name in enumerate(("lean rate", "steer rate", "speed")):
            close(out["nu"][i], nu[i], "bicycle %d nu %s" % (trial, name), failures)
            close(out["nudot"][i], float(nudot[i]), "bicycle %d nudot %s" % (trial, name),
                  failures)


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        rolling_disk(tmp, failures)
        bicycle(tmp, failures)
    for f in failures:
        print("FAIL", f)
    print("%s: %d values compared, largest relative difference %.2g, %d failures" %
          (os.path.basename(__file__), CHECKED[0], WORST[0], len(failures)))
    return 1 if failures or CHECKED[0] < 60 else 0


if __name__ == "__main__":
    sys.exit(main())
