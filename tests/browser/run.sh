#!/bin/sh
# ctest driver of one browser test: writes the report of SCENE with `appell simulate
# --report`, then opens it in headless Chromium (check_report.cjs).
# usage: run.sh APPELL SCENE NAME OUTDIR JSDIR DURATION
# Exit 77 (skipped, with the reason) only when node, Chromium or playwright-core is absent.
set -u
appell=$1 scene=$2 name=$3 outdir=$4 jsdir=$5 duration=$6
here=$(dirname "$0")
command -v node >/dev/null 2>&1 || { echo "SKIPPED: node is not installed (Debian package nodejs)"; exit 77; }
[ -x "${APPELL_CHROMIUM:-/usr/bin/chromium}" ] || { echo "SKIPPED: chromium is not installed"; exit 77; }
[ -e "$jsdir/node_modules/playwright-core/package.json" ] ||
  { echo "SKIPPED: playwright-core is not installed in $jsdir (npm was not available to cmake)"; exit 77; }
mkdir -p "$outdir"
"$appell" simulate "$scene" --duration "$duration" --report "$outdir/$name.html" --quiet || {
  echo "FAIL: appell simulate $scene --report exited with $?"; exit 1; }
exec node "$here/check_report.cjs" "$outdir/$name.html" "$outdir" "$name" "$jsdir" "$scene"
