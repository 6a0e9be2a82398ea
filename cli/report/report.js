// The page of an appell report: the header, a three.js animation of the run and uPlot
// charts of its energy, constraint violations, constraint forces and body positions.
// Data: the JSON block #appell-data (cli/report_html.cpp); three.js: the text block
// #three-module, imported as a module from a Blob URL (the file has no network).
// window.appellReport tells the browser tests what was drawn (geometry: the shapes drawn
// per kind, the inertia boxes shown, the meshes' triangles).
//
// The script comes in parts: data.js (the run's numbers), geometry.js (the bodies'
// shapes), scene.js (the 3-D view), contacts.js (its contact layer), charts.js and this
// file (the header, playback, main), last since it starts the page.  cli/report_html.cpp
// joins them in that order in one strict-mode function, one script element: the parts
// share their names ($, PALETTE, state below) and add no global but window.appellReport.

const state = (window.appellReport = { ready: false, plots: 0, expectedPlots: 0 });
const PALETTE = ['#3b6fd8', '#d8553b', '#2f9e6a', '#a35bd1', '#d19a1f', '#1fa2b8', '#c2417e',
  '#6f7d1c', '#7a4f2b', '#4b5563'];
const $ = (id) => document.getElementById(id);

function header(meta, series) {
  document.title = meta.scene + ' — appell report';
  $('title').textContent = meta.scene;
  const facts = [
    ['scene file', meta.file], ['formulation', meta.formulation], ['integrator', meta.integrator],
    ['bodies', meta.bodies], ['constraints', meta.constraints], ['coordinates', meta.coordinates],
    ['rank', meta.rank === null ? 'n/a' : meta.rank], ['DoF', meta.dof === null ? 'n/a' : meta.dof],
    ['simulated', series.t[series.t.length - 1].toPrecision(4) + ' s'],
    ['rows', series.rows],
    ['run time', meta.wall_seconds === null ? 'unknown' : meta.wall_seconds.toPrecision(3) + ' s'],
  ];
  for (const [k, v] of facts) {
    const div = document.createElement('div');
    const dt = document.createElement('dt');
    const dd = document.createElement('dd');
    dt.textContent = k;
    dd.textContent = String(v);
    div.append(dt, dd);
    $('facts').append(div);
  }
  if (meta.status) {
    $('status').hidden = false;
    $('status').textContent = 'the run failed: ' + meta.status;
  }
}

// ---- playback -----------------------------------------------------------------------
function playback(anim, t, onTime) {
  const last = t.length - 1;
  const duration = t[last] - t[0];
  let playing = true;
  let now = t[0];
  let before = null;
  const at = (time) => { // the last instant not after `time`
    let lo = 0;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (t[mid] <= time) lo = mid; else hi = mid - 1;
    }
    return lo;
  };
  function seek(time) {
    now = Math.max(t[0], Math.min(t[last], time));
    const i = at(now);
    anim.show(i);
    $('slider').value = String(duration > 0 ? Math.round(1000 * (now - t[0]) / duration) : 0);
    $('clock').textContent = 't = ' + now.toFixed(3) + ' s';
    onTime(t[i]);
  }
  function frame(ms) {
    if (playing && before !== null && last > 0) {
      let next = now + Number($('speed').value) * (ms - before) / 1000;
      if (next > t[last]) next = t[0]; // loop
      seek(next);
    }
    before = ms;
    requestAnimationFrame(frame);
  }
  $('play').addEventListener('click', () => {
    playing = !playing;
    $('play').textContent = playing ? 'Pause' : 'Play';
  });
  $('slider').addEventListener('input', () => seek(t[0] + duration * Number($('slider').value) / 1000));
  requestAnimationFrame(frame);
  return { seek, time: () => now, playing: () => playing };
}

async function main() {
  const data = JSON.parse($('appell-data').textContent);
  header(data.meta, data.series);
  const source = $('three-module').textContent.replace(/<\\\//g, '</');
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const THREE = await import(url);
  URL.revokeObjectURL(url);
  const anim = animation(THREE, data);
  let plots = [];
  const player = playback(anim, data.series.t, (time) => {
    for (const u of plots) u.setCursor({ left: u.valToPos(time, 'x'), top: -10 });
  });
  plots = charts(THREE, data, (time) => player.seek(time));
  Object.assign(state, { seek: player.seek, time: player.time, canvas: anim.canvas,
    setBodies: anim.setBodies, ready: true });
}

main().catch((e) => {
  console.error('appell report: ' + (e && e.stack ? e.stack : e));
  $('status').hidden = false;
  $('status').textContent = 'the report could not be drawn: ' + e;
});
