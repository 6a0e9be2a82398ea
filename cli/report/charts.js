// The uPlot charts of the run; a click on one seeks the animation.  One part of the
// page's script (report.js).

// numbers far from 1 (drifts, violations) in exponent form, the others plainly
function fmt(v) {
  if (v === null || v === undefined) return '—';
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(2);
  return String(Number(v.toPrecision(4)));
}

function chart(title, t, lines, onPick) {
  const box = document.createElement('div');
  box.className = 'plot';
  $('plots').append(box);
  const opts = {
    title,
    width: Math.max(box.clientWidth - 12, 300),
    height: 240,
    scales: { x: { time: false } },
    series: [{ label: 't (s)' }].concat(lines.map((l, k) => ({
      label: l.label, stroke: PALETTE[k % PALETTE.length], width: 1.5,
      value: (u, v) => fmt(v),
    }))),
    axes: [{ label: 't (s)' }, { size: 76, values: (u, splits) => splits.map(fmt) }],
    legend: { live: true },
  };
  const u = new uPlot(opts, [t].concat(lines.map((l) => l.values)), box);
  u.over.addEventListener('click', (e) => onPick(u.posToVal(e.offsetX, 'x')));
  window.addEventListener('resize', () => u.setSize({ width: Math.max(box.clientWidth - 12, 300), height: 240 }));
  state.plots += 1;
  return u;
}

function charts(THREE, data, onPick) {
  const s = data.series;
  const t = s.t;
  const specs = [
    ['Energy (J)', [{ label: 'E', values: s.energy }]],
    ['Energy drift E(t) − E(0) (J)', [{ label: 'E − E0', values: s.energy_drift }]],
    ['Constraint violation', [
      { label: 'position (max |g|)', values: s.violation_position },
      { label: 'velocity (max |π|)', values: s.violation_velocity }]],
  ];
  if (s.forces.length) {
    specs.push(['Constraint force magnitude |f| (N)',
      s.forces.map((f) => ({ label: f.name, values: f.values }))]);
  }
  const positions = [];
  data.scene.bodies.forEach((body, b) => {
    ['x', 'y', 'z'].forEach((axis, k) => positions.push({
      label: body.name + '.' + axis, values: t.map((_, i) => s.pose[b][7 * i + k]),
    }));
  });
  specs.push(['Body positions (m)', positions]);
  const angles = jointAngles(THREE, data);
  if (angles.length) specs.push(['Revolute joint angles from t = 0 (rad)', angles]);
  state.expectedPlots = specs.length;
  state.charts = specs.map(([title, lines]) => ({ title, lines }));
  return specs.map(([title, lines]) => chart(title, t, lines, onPick));
}
