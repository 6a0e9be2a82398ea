// The report's numbers from its data block (#appell-data, cli/report_html.cpp): the
// bodies' poses, sizes and bounds over the run, the meshes' arrays, the revolute joints'
// angles.  One part of the page's script (report.js says how the parts are joined).

// body b's pose at instant i: series.pose[b] holds x, y, z, qw, qx, qy, qz per instant
function pose(THREE, series, b, i) {
  const p = series.pose[b];
  return {
    x: new THREE.Vector3(p[7 * i], p[7 * i + 1], p[7 * i + 2]),
    q: new THREE.Quaternion(p[7 * i + 4], p[7 * i + 5], p[7 * i + 6], p[7 * i + 3]),
  };
}

// a body's bounding radius about its centre of mass
function extent(shape, scale) {
  const s = shape.size || [];
  if (shape.kind === 'box') return 0.5 * Math.hypot(s[0], s[1], s[2]);
  if (shape.kind === 'sphere') return s[0];
  if (shape.kind === 'cylinder') return Math.hypot(s[0], 0.5 * s[1]);
  return 0.03 * scale;
}

// each body's bounding radius about its centre of mass over its shapes (planes aside)
function shapeExtent(data, b) {
  let r = 0;
  for (const sh of (data.geometry && data.geometry.shapes) || []) {
    if (sh.body !== b || sh.kind === 'plane') continue;
    r = Math.max(r, Math.hypot(sh.p[0], sh.p[1], sh.p[2]) + sh.r);
  }
  return r;
}

// bounds of every body over the run (its centre of mass ± its bounding radius)
function bounds(THREE, data, scale0) {
  const box = new THREE.Box3();
  const s = data.series;
  let low = Infinity;
  const up = new THREE.Vector3().fromArray(data.scene.up);
  data.scene.bodies.forEach((body, b) => {
    const r = Math.max(extent(body.shape, scale0), shapeExtent(data, b));
    for (let i = 0; i < s.t.length; ++i) {
      const x = pose(THREE, s, b, i).x;
      box.expandByPoint(x.clone().addScalar(r)).expandByPoint(x.clone().addScalar(-r));
      low = Math.min(low, x.dot(up) - r);
    }
  });
  box.expandByPoint(new THREE.Vector3(0, 0, 0));
  return { box, low };
}

// the meshes' base64 arrays (cli/report_geometry.cpp), as a typed array
function decode(text, Type) {
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
  return new Type(bytes.buffer);
}

// Revolute joint angles from the bodies' rotations: the child's rotation relative to the
// parent, R(t) = Q_Pᵀ Q_C, is R(t) = Δ(θ) R(0) with Δ the rotation by θ about the axis
// a_P fixed in the parent; from Δ's quaternion (cos θ/2, sin θ/2 a_P), θ = 2 atan2(v·a_P, w),
// unwrapped to a continuous curve.
function jointAngles(THREE, data) {
  const s = data.series;
  const lines = [];
  for (const link of data.scene.links) {
    if (link.type !== 'revolute' || !link.axis_local) continue;
    const [p, c] = link.points.map((pt) => pt.body);
    const rot = (b, i) => (b < 0 ? new THREE.Quaternion() : pose(THREE, s, b, i).q);
    const rel = (i) => rot(p, i).invert().multiply(rot(c, i));
    const rel0inv = rel(0).invert();
    const axis = new THREE.Vector3().fromArray(link.axis_local).normalize(); // parent's frame
    const values = [];
    let prev = 0;
    for (let i = 0; i < s.t.length; ++i) {
      const d = rel(i).multiply(rel0inv);
      let th = 2 * Math.atan2(d.x * axis.x + d.y * axis.y + d.z * axis.z, d.w);
      while (th - prev > Math.PI) th -= 2 * Math.PI;
      while (th - prev < -Math.PI) th += 2 * Math.PI;
      values.push(th);
      prev = th;
    }
    lines.push({ label: link.name, values });
  }
  return lines;
}
