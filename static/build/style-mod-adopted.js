// style-mod-adopted.js stands in for the style-mod package (build.sh
// aliases it) so that CodeMirror's styles work under the console's
// Content-Security-Policy, which allows no inline <style> element:
// style-mod puts a document's rules in a <style> element and uses a
// constructed stylesheet (document.adoptedStyleSheets, which the policy
// does not restrict) only for shadow roots. Mounting on a document goes
// through a stand-in root without a head, so style-mod takes the
// constructed stylesheet there too. Everything else is style-mod's own.
import { StyleModule as Base } from "./node_modules/style-mod/src/style-mod.js";

const standIns = new WeakMap();

function standIn(doc) {
  let s = standIns.get(doc);
  if (!s) {
    s = {
      ownerDocument: doc,
      get adoptedStyleSheets() {
        return doc.adoptedStyleSheets;
      },
      set adoptedStyleSheets(sheets) {
        doc.adoptedStyleSheets = sheets;
      },
    };
    standIns.set(doc, s);
  }
  return s;
}

export class StyleModule extends Base {
  static mount(root, modules, options) {
    const doc = root.nodeType === 9 && root.adoptedStyleSheets && root.defaultView && root.defaultView.CSSStyleSheet;
    Base.mount(doc ? standIn(root) : root, modules, options);
  }
}
