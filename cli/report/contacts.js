// The contact layer of the 3-D view (scene.js).  One part of the page's script (report.js).

// contact points and their forces (moreau runs): a dot per point and an arrow of the
// force on the body that is not the world, its length relative to the run's typical
// force (the 90th percentile: an impact's spike does not flatten the resting forces)
function contactLayer(THREE, data, scene3, scale) {
  const rows = data.series.contacts;
  if (!rows) return { place() {} };
  const mags = [];
  for (const r of rows) for (let k = 0; k + 5 < r.length; k += 6) mags.push(Math.hypot(r[k + 3], r[k + 4], r[k + 5]));
  mags.sort((a, b) => a - b);
  const typical = mags.length ? mags[Math.floor(0.9 * (mags.length - 1))] || mags[mags.length - 1] : 1;
  const unit = 0.15 * scale / (typical > 0 ? typical : 1);
  const dot = new THREE.SphereGeometry(0.01 * scale, 12, 6);
  const color = 0xc2255c;
  const pool = [];
  const item = (k) => {
    while (pool.length <= k) {
      const marker = new THREE.Mesh(dot, new THREE.MeshBasicMaterial({ color }));
      const arrow = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1, color);
      // drawn over the bodies: the points lie on their surfaces, the arrows inside them
      for (const m of [marker.material, arrow.line.material, arrow.cone.material]) m.depthTest = false;
      marker.renderOrder = arrow.line.renderOrder = arrow.cone.renderOrder = 1;
      scene3.add(marker);
      scene3.add(arrow);
      pool.push({ marker, arrow });
    }
    return pool[k];
  };
  function place(i) {
    const r = rows[i] || [];
    const n = Math.floor(r.length / 6);
    for (let k = 0; k < n; ++k) {
      const { marker, arrow } = item(k);
      const at = new THREE.Vector3(r[6 * k], r[6 * k + 1], r[6 * k + 2]);
      const f = new THREE.Vector3(r[6 * k + 3], r[6 * k + 4], r[6 * k + 5]);
      const len = Math.min(f.length() * unit, 0.5 * scale);
      marker.position.copy(at);
      marker.visible = true;
      arrow.visible = len > 1e-6 * scale;
      if (arrow.visible) {
        arrow.position.copy(at);
        arrow.setDirection(f.normalize());
        arrow.setLength(len, Math.min(0.3 * len, 0.04 * scale), Math.min(0.15 * len, 0.02 * scale));
      }
    }
    for (let k = n; k < pool.length; ++k) pool[k].marker.visible = pool[k].arrow.visible = false;
  }
  return { place };
}
