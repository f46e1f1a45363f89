#!/bin/sh
# build.sh builds the console's front-end files in static/ from the npm
# packages pinned in package-lock.json: the override editor (editor.js
# bundled with CodeMirror by esbuild into ../editor.min.js, and the
# licenses of what it bundles in ../editor.LICENSES.txt) and htmx
# (../htmx.min.js, ../htmx.LICENSE). Run it after changing editor.js or
# package.json (npm install <pkg>@<version> first, to update the lock),
# then commit the files it wrote: `go build` and the tests use the
# committed files and need no Node. Needs Node 18 or later and npm.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
out="$(dirname "$here")"
cd "$here"
npm ci --no-audit --no-fund --loglevel=error
# esbuild's own launcher finds its platform binary, so its install script
# (which npm may hold back) is not needed.
./node_modules/.bin/esbuild editor.js --bundle --alias:style-mod=./style-mod-adopted.js --minify --format=iife --target=es2020 \
	--legal-comments=none --metafile=meta.json --log-level=warning --outfile="$out/editor.min.js"
node licenses.mjs meta.json >"$out/editor.LICENSES.txt"
rm -f meta.json
cp node_modules/htmx.org/dist/htmx.min.js "$out/htmx.min.js"
cp node_modules/htmx.org/LICENSE "$out/htmx.LICENSE"
for f in editor.min.js htmx.min.js; do
	echo "$f: $(wc -c <"$out/$f") bytes, $(gzip -9c "$out/$f" | wc -c) gzipped"
done
