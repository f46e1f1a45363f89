#!/bin/sh
# update.sh copies axe-core's axe.min.js (pinned in package-lock.json) and
# its license beside this file, where the browser tests embed it
# (browsertest.CheckAxe). Run it after changing the version in
# package.json (npm install axe-core@<version> first, to update the lock),
# then commit the files it wrote: the tests need no Node.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
cp node_modules/axe-core/axe.min.js axe.min.js
cp node_modules/axe-core/LICENSE axe.LICENSE
rm -rf node_modules
echo "axe.min.js: axe-core $(node -p 'require("./package-lock.json").packages["node_modules/axe-core"].version'), $(wc -c <axe.min.js) bytes"
