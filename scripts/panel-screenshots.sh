#!/bin/sh
# Regenerates docs/panel/*.png: the web panel's browser tests (webtest/panel.test.mjs)
# against a fresh `reviewd demo`, screenshotting every page at 1280 and 390 px wide
# (and the overview and queue in dark mode). Needs node, Debian's Chromium and
# `npm ci` in webtest/ once.
set -eu
cd "$(dirname "$0")/.."
rm -f docs/panel/*.png
mkdir -p docs/panel
REVIEWD_CHROMIUM="${REVIEWD_CHROMIUM:-/usr/bin/chromium}" REVIEWD_WEBTEST_ONLY=panel \
	REVIEWD_PANEL_SHOTS="$PWD/docs/panel" REVIEWD_WEBTEST_DIR="$PWD/webtest" \
	go test -count=1 -run TestBrowser -v ./app/cli | grep -E "BUDGET|^(---|ok|FAIL)" || true
ls docs/panel
