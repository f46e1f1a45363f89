#!/bin/sh
# Regenerates the screenshots the README shows, from the end-to-end tests:
# a real server on Postgres driven by headless Chromium (Debian's
# chromium). Each TestE2E… test, and the phone-size layout test, saves
# its pages into docs/screenshots.
set -eu
cd "$(dirname "$0")/.."
out="$PWD/docs/screenshots"
mkdir -p "$out"
PROMPTDESK_SCREENSHOTS="$out" go test -count=1 -run '^(TestE2E|TestPhoneLayout$)' ./handlers ./web
echo "screenshots in $out"
