// Opens an appell report in headless Chromium and checks what a reader would see:
//   - no console error and no uncaught exception while loading and playing;
//   - the page has its four script elements (the data block did not swallow any);
//   - the WebGL canvas is not blank (its pixels vary);
//   - the animation moves: the clock advances while playing, and the canvas drawn at the
//     first and at the last instant holds different pixels;
//   - every chart the page meant to draw was drawn, and each has ink on it;
//   - for a JSON scene without includes: the shapes drawn, per kind, are the scene file's
//     (a body's visual shapes when it has some, else its collision shapes), the inertia
//     boxes those of the bodies without shapes; the "bodies" menu set to inertia boxes
//     shows one box per body and only the world's shapes.
// Screenshots go to OUTDIR/<name>.png (the whole page); the canvas at the first and the last
// instant to OUTDIR/<name>_3d_{a,b}.png.
//
// usage: node check_report.cjs REPORT.html OUTDIR NAME JSDIR [SCENE]
// Exit status: 0 pass, 1 fail, 77 skipped (no Chromium or no playwright-core).
'use strict';
const fs = require('fs');
const path = require('path');

const [report, outdir, name, jsdir, sceneFile] = process.argv.slice(2);

// What the page should draw for a JSON scene, read from the file itself: per body, its
// visual shapes if any, else its collision shapes (none: its inertia box); the world's
// likewise.  null when the scene includes other files (their shapes are not in it).
function expectedGeometry(file) {
  if (!file || !file.endsWith('.json')) return null;
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (doc.include) return null;
  const drawn = {};
  const drawnInertia = {};
  let inertia = 0;
  const count = (list, into) => {
    const visual = list.filter((s) => s.visual === true);
    const show = visual.length ? visual : list.filter((s) => s.visual !== true);
    for (const s of show) into[s.type] = (into[s.type] || 0) + 1;
    return show.length;
  };
  for (const b of doc.bodies || []) if (count(b.shapes || [], drawn) === 0) inertia += 1;
  const world = (doc.shapes || []).filter((s) => s.visual !== true);
  count(doc.shapes || [], drawn);
  for (const s of world) drawnInertia[s.type] = (drawnInertia[s.type] || 0) + 1;
  return { drawn, inertia, bodies: (doc.bodies || []).length, drawnInertia };
}
const sameCounts = (a, b) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
const CHROMIUM = process.env.APPELL_CHROMIUM || '/usr/bin/chromium';

function skip(why) {
  console.log('SKIPPED: ' + why);
  process.exit(77);
}
function fail(why) {
  console.error('FAIL: ' + why);
  process.exitCode = 1;
}

async function main() {
  if (!fs.existsSync(CHROMIUM)) skip(CHROMIUM + ' not found (install the Debian package chromium)');
  let playwright;
  try {
    playwright = require(path.resolve(jsdir, 'node_modules', 'playwright-core'));
  } catch (e) {
    skip('playwright-core is not installed in ' + jsdir + ' (npm was not available to cmake)');
  }
  fs.mkdirSync(outdir, { recursive: true });
  const profile = fs.mkdtempSync(path.join(outdir, 'profile-'));
  const browser = await playwright.chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 1400 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  const errors = [];
  try {
    const page = browser.pages()[0] || (await browser.newPage());
    page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
    page.on('pageerror', (e) => errors.push('exception: ' + e.message));
    page.on('requestfailed', (r) => errors.push('request failed: ' + r.url()));
    await page.goto('file://' + path.resolve(report));
    await page.waitForFunction(() => window.appellReport && window.appellReport.ready, null,
      { timeout: 30000 });

    // the page's four scripts (data, three.js, uPlot, the report) are separate elements:
    // no name in the data block ended it early or swallowed the ones after it
    const scripts = await page.evaluate(() => Array.from(document.scripts).map((s) => s.id || s.type || 'js'));
    if (scripts.length !== 4) fail('expected 4 script elements, found ' + JSON.stringify(scripts));

    // the 3D view: pixels vary, and it moves while playing
    const colours = await page.evaluate(() => {
      const src = window.appellReport.canvas;
      const c = document.createElement('canvas');
      c.width = src.width;
      c.height = src.height;
      const ctx = c.getContext('2d');
      ctx.drawImage(src, 0, 0);
      const px = ctx.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < px.length; i += 4 * 7) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
      return seen.size;
    });
    if (colours < 20) fail('the WebGL canvas is blank: ' + colours + ' distinct colours');
    // the clock advances while playing (up to five waits on a loaded machine)
    const t0 = await page.evaluate(() => window.appellReport.time());
    let t1 = t0;
    for (let k = 0; k < 5 && t1 === t0; ++k) {
      await page.waitForTimeout(900);
      t1 = await page.evaluate(() => window.appellReport.time());
    }
    if (!(t1 !== t0)) fail('the clock did not advance while playing: ' + t0 + ' then ' + t1);
    // the picture follows the clock: the first and the last instant, drawn within one task
    // (no animation frame between them), give different pixels. Comparing canvas pixels, not
    // screenshots, keeps the compositor's timing out of the check.
    const frames = await page.evaluate(() => {
      const r = window.appellReport;
      const t = JSON.parse(document.getElementById('appell-data').textContent).series.t;
      r.seek(t[0]);
      const first = r.canvas.toDataURL('image/png');
      r.seek(t[t.length - 1]);
      const last = r.canvas.toDataURL('image/png');
      return { first, last, t0: t[0], t1: t[t.length - 1] };
    });
    for (const [key, file] of [['first', '_3d_a.png'], ['last', '_3d_b.png']])
      fs.writeFileSync(path.join(outdir, name + file), Buffer.from(frames[key].split(',')[1], 'base64'));
    if (frames.first === frames.last)
      fail('the 3D view at t = ' + frames.t0 + ' and t = ' + frames.t1 + ' is the same picture');

    // the charts: as many as the page meant, each with ink
    const plots = await page.evaluate(() => {
      const out = { expected: window.appellReport.expectedPlots, drawn: [] };
      for (const c of document.querySelectorAll('.plot .uplot canvas')) {
        const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let ink = 0;
        for (let i = 3; i < px.length; i += 4) if (px[i] > 0) ++ink;
        out.drawn.push(ink);
      }
      return out;
    });
    if (plots.expected < 4) fail('expected at least 4 charts, the page planned ' + plots.expected);
    if (plots.drawn.length !== plots.expected)
      fail(plots.drawn.length + ' charts drawn, expected ' + plots.expected);
    plots.drawn.forEach((ink, k) => { if (ink < 200) fail('chart ' + k + ' is empty'); });
    // a revolute joint on the world: its charted angle is the turn of the child's centre of
    // mass about the axis through the anchor, atan2(n·(r0 × r), r0·r), r ⟂ n
    const angleError = await page.evaluate(() => {
      const data = JSON.parse(document.getElementById('appell-data').textContent);
      const chart = window.appellReport.charts.find((c) => c.title.startsWith('Revolute joint angles'));
      let worst = 0;
      let checked = 0;
      for (const link of data.scene.links) {
        if (link.type !== 'revolute' || link.points[0].body >= 0) continue;
        const b = link.points[1].body;
        const n = link.axis.map((v) => v / Math.hypot(...link.axis));
        const a = link.points[0].p;
        const perp = (i) => {
          const p = data.series.pose[b];
          const r = [0, 1, 2].map((k) => p[7 * i + k] - a[k]);
          const rn = r[0] * n[0] + r[1] * n[1] + r[2] * n[2];
          return r.map((v, k) => v - rn * n[k]);
        };
        const r0 = perp(0);
        if (Math.hypot(...r0) < 1e-6) continue;
        const line = chart.lines.find((l) => l.label === link.name);
        for (let i = 0; i < data.series.t.length; ++i) {
          const r = perp(i);
          const cross = [r0[1] * r[2] - r0[2] * r[1], r0[2] * r[0] - r0[0] * r[2], r0[0] * r[1] - r0[1] * r[0]];
          const geom = Math.atan2(cross[0] * n[0] + cross[1] * n[1] + cross[2] * n[2],
            r0[0] * r[0] + r0[1] * r[1] + r0[2] * r[2]);
          let d = line.values[i] - geom;
          d -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
          worst = Math.max(worst, Math.abs(d));
        }
        ++checked;
      }
      return { worst, checked };
    });
    if (angleError.worst > 1e-4) fail('a joint angle differs from its body\'s turn by ' + angleError.worst + ' rad');
    // the bodies' geometry against the scene file
    const expected = expectedGeometry(sceneFile);
    let geometryNote = 'geometry not checked (not a self-contained JSON scene)';
    if (expected) {
      const g = await page.evaluate(() => window.appellReport.geometry);
      if (!sameCounts(g.drawn, expected.drawn) || g.inertia !== expected.inertia)
        fail('drawn ' + JSON.stringify(g) + ', the scene file has ' + JSON.stringify(expected));
      await page.selectOption('#bodies', 'inertia');
      const gi = await page.evaluate(() => window.appellReport.geometry);
      if (gi.mode !== 'inertia' || gi.inertia !== expected.bodies || !sameCounts(gi.drawn, expected.drawnInertia))
        fail('with inertia boxes: drawn ' + JSON.stringify(gi) + ', expected ' + expected.bodies +
          ' boxes and the world shapes ' + JSON.stringify(expected.drawnInertia));
      await page.selectOption('#bodies', 'geometry');
      geometryNote = 'geometry ' + JSON.stringify(g.drawn) + ' + ' + g.inertia + ' inertia boxes as in the scene file';
    }
    await page.screenshot({ path: path.join(outdir, name + '.png'), fullPage: true });
    console.log(name + ': ' + colours + ' colours in the 3D view; t ' + t0.toFixed(3) + ' -> ' +
      t1.toFixed(3) + ' s; ' + plots.drawn.length + ' charts; ' + angleError.checked +
      ' joint angles checked (worst ' + angleError.worst.toExponential(1) + ' rad); ' + geometryNote +
      '; screenshots in ' + outdir);
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  for (const e of errors) fail(e);
}

main().catch((e) => {
  console.error('FAIL: ' + (e && e.stack ? e.stack : e));
  process.exit(1);
});
