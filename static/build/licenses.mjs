// licenses.mjs prints the license of every npm package that esbuild's
// metafile (the first argument) says went into the bundle, for
// ../editor.LICENSES.txt.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const meta = JSON.parse(readFileSync(process.argv[2], "utf8"));
const packages = new Set();
for (const input of Object.keys(meta.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m) packages.add(m[1]);
}
const out = ["Licenses of the npm packages bundled into editor.min.js (static/build/build.sh).", ""];
for (const name of [...packages].sort()) {
  const dir = join("node_modules", name);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  out.push("=".repeat(72), `${name} ${pkg.version} (${pkg.license})`, "=".repeat(72));
  out.push(file ? readFileSync(join(dir, file), "utf8").trim() : `License: ${pkg.license} (the package ships no license file).`, "");
}
process.stdout.write(out.join("\n") + "\n");
