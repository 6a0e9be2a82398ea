// Pictures of a report for the README (docs/images/): the 3D view at a given time, or one
// chart.  usage: node screenshot.cjs REPORT.html OUT.png JSDIR TIME|plot:N [WIDTH]
'use strict';
const path = require('path');
const [report, out, jsdir, what, width] = process.argv.slice(2);
const playwright = require(path.resolve(jsdir, 'node_modules', 'playwright-core'));

(async () => {
  const browser = await playwright.chromium.launch({
    executablePath: process.env.APPELL_CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader', '--no-first-run', '--disable-background-networking'],
  });
  const page = await browser.newPage({ viewport: { width: Number(width || 720), height: 1200 } });
  await page.goto('file://' + path.resolve(report));
  await page.waitForFunction(() => window.appellReport && window.appellReport.ready);
  await page.click('#play'); // pause
  if (what.startsWith('plot:')) {
    const n = Number(what.slice(5));
    await page.evaluate((n) => window.appellReport.seek(0), n);
    await page.locator('.plot').nth(n).screenshot({ path: out });
  } else {
    await page.evaluate((t) => window.appellReport.seek(t), Number(what));
    await page.waitForTimeout(100);
    await page.locator('#stage canvas').screenshot({ path: out });
  }
  await browser.close();
})().catch((e) => { console.error(e); process.exit(1); });
