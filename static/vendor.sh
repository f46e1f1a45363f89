#!/bin/sh
# vendor.sh refreshes the vendored htmx in this folder from the npm
# registry. Run it by hand when upgrading; the build itself needs no Node:
# htmx.min.js is committed and embedded by static.go.
set -eu
version="${1:-2}"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack --silent "htmx.org@$version" >/dev/null
tar -xzf htmx.org-*.tgz
cp package/dist/htmx.min.js "$here/htmx.min.js"
cp package/LICENSE "$here/htmx.LICENSE"
echo "vendored htmx $(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' package/package.json) into $here"
