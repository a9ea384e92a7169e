#!/usr/bin/env bash
# Renders a report.html to a PNG (or, for OUT.pdf, prints it as the page's A4 landscape, where the
# event strips are at true scale: 25 mm/s, 10 mm/mV) with headless Chromium (Debian package
# `chromium`), to look at the page without a browser, e.g. on a CI machine or a GPU host:
#
#   scripts/render-report.sh ecgpipe-out/report.html            # -> ecgpipe-out/report.png
#   scripts/render-report.sh ecgpipe-out/report.html out.png 1400 6000
#   scripts/render-report.sh ecgpipe-out/report.html report.pdf # printed, A4 landscape
#
# Arguments: REPORT.html [OUT.png|OUT.pdf] [WIDTH] [HEIGHT] (window size in px; the page is ~1350 px
# wide; its height grows with the event strips (~190 px each) and the model appendix (~3000 px):
# a screenshot shows the top HEIGHT px). Installs chromium with apt-get if missing.
# A page from hand-made data (every section filled, no run needed):
#   ECGPIPE_REPORT_SAMPLE=/tmp/sample.html build/ecgpipe_tests --gtest_filter=Report.SamplePageForLooking
set -euo pipefail

usage() { echo "usage: $0 REPORT.html [OUT.png] [WIDTH] [HEIGHT]" >&2; exit 2; }
[[ $# -ge 1 && $# -le 4 ]] || usage
html=$1
[[ -f $html ]] || { echo "render-report: no such file: $html" >&2; exit 3; }
out=${2:-${html%.html}.png}
width=${3:-1400}
height=${4:-6000}

browser=""
for name in chromium chromium-browser google-chrome; do
  if command -v "$name" >/dev/null 2>&1; then browser=$name; break; fi
done
if [[ -z $browser ]]; then
  echo "render-report: installing chromium (apt-get)" >&2
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  { $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2; } ||
    { echo "render-report: cannot install chromium (apt-get failed); open $html in a browser instead" >&2; exit 1; }
  browser=chromium
fi

abs_html=$(realpath "$html")
abs_out=$(realpath -m "$out")
# A private profile directory: headless Chromium must not touch (or lock) the user's profile.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars --user-data-dir="$profile" \
  $([[ $abs_out == *.pdf ]] && echo "--no-pdf-header-footer --print-to-pdf=$abs_out" || echo "--screenshot=$abs_out") \
  --window-size="$width,$height" "file://$abs_html" >/dev/null 2>&1 || {
  echo "render-report: $browser failed on $html" >&2; exit 1; }
[[ -s $abs_out ]] || { echo "render-report: nothing written to $abs_out" >&2; exit 1; }
echo "$abs_out"
