// The override editor: turns the editor page's <textarea name="text">
// into a CodeMirror editor. The page works without it; this only
// enhances: the textarea stays in the form (hidden) and holds the text at
// every change, so Save and "Check without saving" post what is typed.
//
// What it adds, all driven by the page's JSON (#editor-config, built by
// handlers/override_editor.go):
// - highlighting: YAML between the --- fences, markdown after;
// - completion of placeholders ({{ → declared variables, environment
//   values, module ids) and frontmatter keys, trigger kinds and values;
// - the live check: the text is posted to the check URL 300 ms after it
//   stops changing; every error and checklist warning is marked on its
//   line and listed in the Problems panel beside the editor;
// - a live diff against the builtin text or the served text;
// - in the drift review's rebase (cfg.conflicts), the merge's conflict
//   blocks marked, each with "Take mine" and "Take builtin", and a bar to
//   go to the first, previous and next conflict. The server's check stays
//   the judge of what is left: it reports every marker line as an error;
// - Ctrl/Cmd-S saves (submits the form);
// - light and dark like the rest of the console: every colour is one of
//   app.css's variables, which follow prefers-color-scheme, and the
//   editor's own dark flag follows the same media query.
import { basicSetup } from "codemirror";
import { EditorView, Decoration, WidgetType } from "@codemirror/view";
import { Compartment, EditorSelection, StateField } from "@codemirror/state";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { markdownLanguage } from "@codemirror/lang-markdown";
import { yamlFrontmatter } from "@codemirror/lang-yaml";
import { autocompletion } from "@codemirror/autocomplete";
import { linter, lintGutter } from "@codemirror/lint";
import { unifiedMergeView, getChunks, getOriginalDoc } from "@codemirror/merge";

const fence = /^---[ \t]*$/;
const nameChars = /^[a-z0-9_.-]*$/;

function readConfig() {
  const el = document.getElementById("editor-config");
  return el ? JSON.parse(el.dataset.config) : null;
}

// frontmatterEnd is the line number of the closing fence, Infinity when
// the frontmatter is not closed yet, 0 when the text has none.
function frontmatterEnd(doc) {
  if (!fence.test(doc.line(1).text)) return 0;
  for (let n = 2; n <= doc.lines; n++) {
    if (fence.test(doc.line(n).text)) return n;
  }
  return Infinity;
}

// frontmatterLines are the frontmatter's lines as strings.
function frontmatterLines(doc) {
  const end = Math.min(frontmatterEnd(doc), doc.lines + 1);
  const out = [];
  for (let n = 2; n < end; n++) out.push(doc.line(n).text);
  return out;
}

// layerOf is the layer the text's frontmatter names, else the module's.
function layerOf(doc, cfg) {
  for (const l of frontmatterLines(doc)) {
    const m = /^layer:\s*([a-z]+)/.exec(l);
    if (m) return m[1];
  }
  return cfg.layer;
}

function option(c, type, extra) {
  return Object.assign({ label: c.name, type, detail: c.detail || undefined, info: c.info || undefined }, extra);
}

// placeholderOptions completes {{name}} in the body.
function placeholderOptions(ctx, cfg, vars) {
  const m = ctx.matchBefore(/\\?\{\{[a-z0-9_.-]*$/);
  if (!m || m.text.startsWith("\\")) return null;
  const closed = ctx.state.sliceDoc(ctx.pos, ctx.pos + 2) === "}}";
  const apply = (name) => (closed ? name : name + "}}");
  const env = layerOf(ctx.state.doc, cfg) === "env";
  const options = [];
  for (const v of vars) options.push(option(v, "variable", { apply: apply(v.name), boost: 3, section: "Declared variables" }));
  for (const e of cfg.env) {
    if (e.envOnly && !env) continue;
    options.push(option(e, "constant", { apply: apply(e.name), boost: 2, section: "Environment values" }));
  }
  for (const mod of cfg.modules) options.push(option(mod, "namespace", { apply: apply(mod.name), section: "Modules (include)" }));
  return { from: m.from + 2, options, validFor: nameChars };
}

// frontmatterOptions completes keys and the values with a fixed set.
function frontmatterOptions(ctx, cfg) {
  const line = ctx.state.doc.lineAt(ctx.pos);
  const before = line.text.slice(0, ctx.pos - line.from);
  const value = (list, type) => {
    const m = /([a-zA-Z/]*)$/.exec(before);
    return { from: ctx.pos - m[1].length, options: list.map((c) => option(c, type)), validFor: /^[a-zA-Z]*$/ };
  };
  const names = (list) => list.map((n) => ({ name: n }));
  if (/^\s*(-\s+)?kind:\s*[a-z]*$/.test(before)) return value(cfg.triggerKinds, "enum");
  if (/^\s*(-\s+)?escape:\s*[a-z]*$/.test(before)) return value(names(["xml"]), "enum");
  if (/^layer:\s*[a-z]*$/.test(before)) return value(names(cfg.layers), "enum");
  if (/^requiresAttachments:\s*[a-z]*$/.test(before)) return value(names(["true", "false"]), "keyword");

  const key = /^(\s*-\s+|\s+)?([a-zA-Z]*)$/.exec(before);
  if (!key) return null;
  const from = ctx.pos - key[2].length;
  if (!key[1]) {
    // A top-level key: those not written yet; task-only keys in tasks.
    const present = new Set(frontmatterLines(ctx.state.doc).map((l) => (/^([A-Za-z]+)\s*:/.exec(l) || [])[1]));
    const task = layerOf(ctx.state.doc, cfg) === "task";
    const options = cfg.keys
      .filter((k) => !present.has(k.name) && (task || !k.taskOnly))
      .map((k) => option(k, "property", { apply: k.name + ": " }));
    return { from, options, validFor: /^[a-zA-Z]*$/ };
  }
  // An item key: the list is the last top-level key above the line.
  let list = "";
  for (let n = line.number - 1; n > 1; n--) {
    const m = /^([A-Za-z]+)\s*:/.exec(ctx.state.doc.line(n).text);
    if (m) {
      list = m[1];
      break;
    }
  }
  const items = list === "triggers" ? cfg.triggerKeys : list === "variables" ? cfg.variableKeys : null;
  if (!items) return null;
  return { from, options: items.map((k) => option(k, "property", { apply: k.name + ": " })), validFor: /^[a-zA-Z]*$/ };
}

function completionSource(cfg, vars) {
  return (ctx) => {
    const end = frontmatterEnd(ctx.state.doc);
    const n = ctx.state.doc.lineAt(ctx.pos).number;
    if (end && n > 1 && n < end) return frontmatterOptions(ctx, cfg);
    if (!end || n > end) return placeholderOptions(ctx, cfg, vars());
    return null;
  };
}

// diagnostic marks item on its line: the placeholder or the field its
// message names when the line has it, else the whole line.
function diagnostic(doc, item, severity) {
  const line = doc.line(Math.min(Math.max(item.line, 1), doc.lines));
  let from = line.from;
  let to = line.to;
  const ph = /\{\{[a-z_][a-z0-9_.-]*\}\}/.exec(item.message);
  const field = (item.field || "").split(".").pop().replace(/\[\d+\]$/, "");
  if (ph && line.text.includes(ph[0])) {
    from = line.from + line.text.indexOf(ph[0]);
    to = from + ph[0].length;
  } else if (field && field !== "body") {
    const m = new RegExp("^(\\s*(?:-\\s+)?)" + field + "\\s*:").exec(line.text);
    if (m) {
      from = line.from + m[1].length;
      to = from + field.length;
    }
  }
  const message = item.rule ? "[" + item.rule + "] " + item.message : item.message;
  return { from, to, severity, message, source: item.rule ? "module checklist" : "check" };
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function plural(n, one, many) {
  return n === 1 ? "1 " + one : n + " " + many;
}

// Problems keeps the panel beside the editor in step with the checks.
class Problems {
  constructor(panel) {
    this.view = null; // set once the editor exists
    this.panel = panel;
    this.status = panel.querySelector('[data-testid="problems-status"]');
    this.list = panel.querySelector('[data-testid="problem-list"]');
  }

  say(text) {
    this.status.textContent = text;
  }

  show(res) {
    // How many checks the panel has shown, for whoever waits for one.
    this.panel.dataset.checks = String(Number(this.panel.dataset.checks || 0) + 1);
    const items = [];
    for (const e of res.errors) items.push({ ...e, severity: "error" });
    for (const w of res.warnings) items.push({ ...w, severity: "warning" });
    items.sort((a, b) => a.line - b.line || (a.severity === b.severity ? 0 : a.severity === "error" ? -1 : 1));
    this.list.replaceChildren(
      ...items.map((it) => {
        const where = it.line > 0 ? "line " + it.line : "whole text";
        const msg = it.rule ? "[" + it.rule + "] " + it.message : it.message;
        return el(
          "li",
          { class: "problem problem-" + it.severity, "data-testid": "problem", "data-line": String(it.line), "data-severity": it.severity },
          el("button", { type: "button", class: "problem-line link", onclick: () => this.jump(it.line) }, where),
          " " + msg,
        );
      }),
      ...res.notices.map((n) =>
        el("li", { class: "problem problem-notice", "data-testid": "problem", "data-line": String(n.line), "data-severity": "notice" }, (n.rule ? "[" + n.rule + "] " : "") + n.message),
      ),
    );
    const errs = res.errors.length;
    const warns = res.warnings.length;
    if (errs + warns === 0) this.say("No errors, and the module checklist has no warnings.");
    else if (errs > 0 && !res.checklist) this.say(plural(errs, "error", "errors") + ". The module checklist runs once every field parses.");
    else this.say(plural(errs, "error", "errors") + ", " + plural(warns, "checklist warning", "checklist warnings") + ".");
  }

  jump(n) {
    const doc = this.view.state.doc;
    const line = doc.line(Math.min(Math.max(n, 1), doc.lines));
    this.view.dispatch({ selection: EditorSelection.cursor(line.from), effects: EditorView.scrollIntoView(line.from, { y: "center" }) });
    this.view.focus();
  }
}

// liveCheck is the lint source: it posts the text to the check URL and
// turns the answer into diagnostics. An answer for a text that has
// changed since is dropped (the linter does the same with its result).
function liveCheck(cfg, setVars, problems) {
  const token = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  return async (view) => {
    const doc = view.state.doc;
    let res;
    try {
      const r = await fetch(cfg.check, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": token() },
        body: JSON.stringify({ text: doc.toString() }),
      });
      // Refusals are JSON errors too (an ended session 401, an expired
      // security token 403) whose message says what to do.
      res = (r.headers.get("Content-Type") || "").startsWith("application/json") ? await r.json() : null;
      if (!r.ok || !res) throw new Error((res && res.error && res.error.message) || "the server answered " + r.status + " " + r.statusText);
    } catch (err) {
      problems.say("The text could not be checked: " + err.message + ". Check without saving still works.");
      return [];
    }
    if (view.state.doc !== doc) return [];
    setVars(res.variables);
    problems.show(res);
    return [...res.errors.map((e) => diagnostic(doc, e, "error")), ...res.warnings.map((w) => diagnostic(doc, w, "warning"))];
  };
}

// lineCount is the number of lines a chunk covers between from and to
// (to is one past its last line's end, possibly past the document's).
function lineCount(doc, from, to) {
  if (to <= from) return 0;
  return doc.lineAt(Math.min(to - 1, doc.length)).number - doc.lineAt(from).number + 1;
}

// conflictsOf finds the conflict blocks of a merged text as the drift
// review writes them: a line starting with "<<<<<<<", the override's
// lines, a "=======" line, the builtin's lines, a line starting with
// ">>>>>>>". A block not closed yet has close null; one without a
// separator has sep null (all its lines are the override's).
function conflictsOf(doc) {
  const out = [];
  let cur = null;
  for (let n = 1; n <= doc.lines; n++) {
    const line = doc.line(n);
    const t = line.text.replace(/[ \t]+$/, "");
    if (t.startsWith("<<<<<<<")) {
      cur = { open: line, sep: null, close: null };
      out.push(cur);
    } else if (cur && !cur.sep && t === "=======") {
      cur.sep = line;
    } else if (cur && t.startsWith(">>>>>>>")) {
      cur.close = line;
      cur = null;
    }
  }
  return out;
}

// sideText is one side of a closed conflict, each line with its newline.
function sideText(doc, c, side) {
  const slice = (from, to) => (to > from ? doc.sliceString(from, to) : "");
  if (side === "mine") return slice(c.open.to + 1, (c.sep || c.close).from);
  return c.sep ? slice(c.sep.to + 1, c.close.from) : "";
}

// ConflictActions is the row above a conflict block: which conflict it
// is, and for a closed block the buttons that replace it with one side.
class ConflictActions extends WidgetType {
  constructor(index, total, closed) {
    super();
    this.index = index;
    this.total = total;
    this.closed = closed;
  }

  eq(w) {
    return w.index === this.index && w.total === this.total && w.closed === this.closed;
  }

  toDOM(view) {
    const label = "Conflict " + (this.index + 1) + " of " + this.total + (this.closed ? ":" : ", not closed: edit it by hand");
    const take = (side, text, title) =>
      el("button", { type: "button", class: "btn btn-small", "data-testid": "hunk-take-" + side, title, onclick: () => takeSide(view, this.index, side) }, text);
    return el(
      "div",
      { class: "cm-conflict-actions", "data-testid": "conflict-actions", "data-conflict": String(this.index + 1) },
      el("span", { class: "cm-conflict-label" }, label),
      ...(this.closed
        ? [take("mine", "Take mine", "Keep the override's lines of this conflict"), take("builtin", "Take builtin", "Keep the builtin's lines of this conflict")]
        : []),
    );
  }
}

// conflictField holds the conflicts of the text and their marks.
const conflictField = StateField.define({
  create: (state) => markConflicts(state.doc),
  update: (value, tr) => (tr.docChanged ? markConflicts(tr.state.doc) : value),
  provide: (f) => EditorView.decorations.from(f, (v) => v.marks),
});

function markConflicts(doc) {
  const list = conflictsOf(doc);
  const marks = [];
  const lines = (from, to, cls) => {
    for (let n = from; n <= to; n++) marks.push(Decoration.line({ class: cls }).range(doc.line(n).from));
  };
  list.forEach((c, i) => {
    marks.push(Decoration.widget({ widget: new ConflictActions(i, list.length, !!c.close), block: true, side: -1 }).range(c.open.from));
    const last = c.close ? c.close.number - 1 : doc.lines; // the last line inside
    lines(c.open.number, c.open.number, "cm-conflict-marker");
    lines(c.open.number + 1, c.sep ? c.sep.number - 1 : last, "cm-conflict-mine");
    if (c.sep) {
      lines(c.sep.number, c.sep.number, "cm-conflict-marker");
      lines(c.sep.number + 1, last, "cm-conflict-builtin");
    }
    if (c.close) lines(c.close.number, c.close.number, "cm-conflict-marker");
  });
  return { list, marks: Decoration.set(marks, true) };
}

// takeSide replaces closed conflict index with the lines of one side.
function takeSide(view, index, side) {
  const doc = view.state.doc;
  const c = view.state.field(conflictField).list[index];
  if (!c || !c.close) return;
  let insert = sideText(doc, c, side);
  let to = c.close.to;
  if (to < doc.length) to++;
  else insert = insert.replace(/\n$/, "");
  view.dispatch({ changes: { from: c.open.from, to, insert }, selection: EditorSelection.cursor(c.open.from), scrollIntoView: true });
  view.focus();
}

// ConflictBar says how many conflicts are left and moves the cursor to
// the first, previous or next one (wrapping around).
class ConflictBar {
  constructor() {
    this.view = null; // set once the editor exists
    this.status = el("span", { class: "conflict-status", "data-testid": "conflict-status", "aria-live": "polite" });
    const button = (key, text, title) => el("button", { type: "button", class: "btn btn-small", "data-testid": "conflict-" + key, title, onclick: () => this.go(key) }, text);
    this.buttons = [button("first", "First conflict", "Go to the first conflict"), button("prev", "↑ Previous", "Go to the previous conflict"), button("next", "↓ Next", "Go to the next conflict")];
    this.dom = el("div", { class: "conflict-bar", role: "group", "aria-label": "Conflicts", "data-testid": "conflict-bar" }, this.status, ...this.buttons);
  }

  update() {
    const list = this.view.state.field(conflictField).list;
    this.dom.dataset.conflicts = String(list.length);
    this.status.textContent = list.length === 0 ? "No conflict left: check the text and save it." : plural(list.length, "conflict", "conflicts") + " left.";
    for (const b of this.buttons) b.disabled = list.length === 0;
  }

  go(key) {
    const list = this.view.state.field(conflictField).list;
    if (list.length === 0) return;
    const at = this.view.state.doc.lineAt(this.view.state.selection.main.head).from;
    let c = list[0];
    if (key === "next") c = list.find((x) => x.open.from > at) || list[0];
    if (key === "prev") c = [...list].reverse().find((x) => x.open.from < at) || list[list.length - 1];
    this.view.dispatch({ selection: EditorSelection.cursor(c.open.from), effects: EditorView.scrollIntoView(c.open.from, { y: "center" }) });
    this.view.focus();
  }
}

// DiffSwitch chooses what the live diff compares the text with: nothing,
// or one of cfg.against; the choice is remembered in this browser.
class DiffSwitch {
  constructor(cfg, compartment) {
    this.compartment = compartment;
    this.against = cfg.against;
    this.summary = el("span", { class: "diff-summary", "data-testid": "diff-summary" });
    const choices = [
      { key: "", label: "No diff", title: "Show no diff" },
      ...cfg.against.map((a) => ({ key: a.key, label: a.key === "builtin" ? "Against builtin" : "Against served", title: "Compare with " + a.label })),
    ];
    let saved = null;
    try {
      saved = localStorage.getItem(storageKey);
    } catch (err) {
      saved = null; // storage may be off; the default serves
    }
    this.key = choices.some((c) => c.key === saved) ? saved : cfg.defaultAgainst || "";
    this.dom = el(
      "div",
      { class: "diff-switch", role: "group", "aria-label": "Live diff", "data-testid": "diff-switch" },
      el("span", { class: "diff-switch-label" }, "Live diff:"),
      ...choices.map((c) =>
        el("button", { type: "button", class: "btn btn-small", "data-against": c.key, "data-testid": "diff-" + (c.key || "off"), title: c.title, onclick: () => this.choose(c.key) }, c.label),
      ),
      this.summary,
    );
  }

  // extension is the merge view of the current choice.
  extension() {
    const a = this.against.find((x) => x.key === this.key);
    if (!a) return [];
    return unifiedMergeView({ original: a.text, mergeControls: false, gutter: true, syntaxHighlightDeletions: true });
  }

  choose(key) {
    this.key = key;
    try {
      localStorage.setItem(storageKey, key);
    } catch (err) {
      // Not remembered: the choice still applies to this page.
    }
    this.view.dispatch({ effects: this.compartment.reconfigure(this.extension()) });
    this.update();
  }

  // update marks the chosen button and says how far the text is from
  // the chosen text, in changed lines.
  update() {
    for (const b of this.dom.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.against === this.key));
    const a = this.against.find((x) => x.key === this.key);
    const state = this.view.state;
    const chunks = a && getChunks(state);
    if (!chunks) {
      this.summary.textContent = "";
      delete this.summary.dataset.added;
      delete this.summary.dataset.removed;
      return;
    }
    const orig = getOriginalDoc(state);
    let added = 0;
    let removed = 0;
    for (const c of chunks.chunks) {
      added += lineCount(state.doc, c.fromB, c.toB);
      removed += lineCount(orig, c.fromA, c.toA);
    }
    this.summary.dataset.added = String(added);
    this.summary.dataset.removed = String(removed);
    this.summary.textContent = added + removed === 0 ? "no changes against " + a.label : "+" + added + " −" + removed + " lines against " + a.label;
  }
}

const storageKey = "promptdesk.editor.diff";

// The syntax colours of CodeMirror's default style, each an app.css
// variable with a light and a dark value.
const highlight = HighlightStyle.define([
  { tag: tags.meta, color: "var(--hl-meta)" },
  { tag: tags.link, textDecoration: "underline" },
  { tag: tags.heading, textDecoration: "underline", fontWeight: "bold" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strong, fontWeight: "bold" },
  { tag: tags.strikethrough, textDecoration: "line-through" },
  { tag: tags.keyword, color: "var(--hl-keyword)" },
  { tag: [tags.atom, tags.bool, tags.url, tags.contentSeparator, tags.labelName], color: "var(--hl-atom)" },
  { tag: [tags.literal, tags.inserted], color: "var(--hl-literal)" },
  { tag: [tags.string, tags.deleted], color: "var(--hl-string)" },
  { tag: [tags.regexp, tags.escape, tags.special(tags.string)], color: "var(--hl-special)" },
  { tag: [tags.definition(tags.variableName), tags.definition(tags.propertyName)], color: "var(--hl-definition)" },
  { tag: tags.local(tags.variableName), color: "var(--hl-local)" },
  { tag: [tags.typeName, tags.namespace], color: "var(--hl-type)" },
  { tag: tags.className, color: "var(--hl-class)" },
  { tag: [tags.special(tags.variableName), tags.macroName], color: "var(--hl-macro)" },
  { tag: tags.comment, color: "var(--hl-comment)" },
  { tag: tags.invalid, color: "var(--hl-invalid)" },
]);

// theme is the editor's look in the console's colours; dark picks
// CodeMirror's dark defaults for what is not set here.
function theme(dark) {
  return EditorView.theme(
    {
      "&": { fontSize: ".92rem", color: "var(--fg)", backgroundColor: "var(--field-bg)", border: "1px solid var(--line)", borderRadius: "6px" },
      "&.cm-focused": { outline: "2px solid var(--accent-soft)", borderColor: "var(--accent)" },
      ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.45", minHeight: "24rem", maxHeight: "72vh" },
      ".cm-content": { paddingBottom: "2rem", caretColor: "var(--fg)" },
      ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--fg)" },
      ".cm-gutters": { backgroundColor: "var(--bg-soft)", color: "var(--ln)", borderRight: "1px solid var(--line)" },
      ".cm-activeLine": { backgroundColor: "var(--row-hover)" },
      ".cm-activeLineGutter": { backgroundColor: "var(--accent-soft)", color: "var(--fg)" },
      "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection": {
        backgroundColor: "var(--accent-line)",
      },
      ".cm-selectionMatch": { backgroundColor: "var(--marker-bg)" },
      ".cm-tooltip": { backgroundColor: "var(--bg)", color: "var(--fg)", border: "1px solid var(--line)" },
      ".cm-tooltip-autocomplete > ul > li[aria-selected]": { backgroundColor: "var(--accent-strong)", color: "var(--on-accent)" },
      ".cm-completionDetail, .cm-completionInfo": { color: "var(--muted)" },
      ".cm-panels": { backgroundColor: "var(--bg-soft)", color: "var(--fg)" },
      ".cm-lintRange-error": { backgroundColor: "var(--bad-soft)" },
      ".cm-lintRange-warning": { backgroundColor: "var(--warn-soft)" },
      // The live diff in the colours of the console's other diffs.
      "&.cm-merge-b .cm-changedLine": { backgroundColor: "var(--diff-insert)" },
      "& .cm-deletedChunk": { backgroundColor: "var(--diff-delete)" },
      // Conflicts in the colours of the drift review's merged text.
      ".cm-conflict-marker": { backgroundColor: "var(--marker-bg)", color: "var(--warn)", fontWeight: "bold" },
      ".cm-conflict-mine": { backgroundColor: "var(--accent-soft)" },
      ".cm-conflict-builtin": { backgroundColor: "var(--builtin-bg)" },
    },
    { dark },
  );
}

function enhance(textarea, cfg) {
  const form = textarea.form;
  const main = textarea.closest(".editor-main") || textarea.parentElement;
  let vars = cfg.variables || [];
  const problems = new Problems(document.querySelector('[data-testid="problems"]'));
  const diff = new Compartment();
  const switcher = cfg.against.length > 0 ? new DiffSwitch(cfg, diff) : null;
  const bar = cfg.conflicts ? new ConflictBar() : null;
  const look = new Compartment();
  const dark = window.matchMedia("(prefers-color-scheme: dark)");
  dark.addEventListener("change", () => view.dispatch({ effects: look.reconfigure(theme(dark.matches)) }));
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      basicSetup,
      EditorView.lineWrapping,
      look.of(theme(dark.matches)),
      syntaxHighlighting(highlight),
      yamlFrontmatter({ content: markdownLanguage }),
      autocompletion({ override: [completionSource(cfg, () => vars)] }),
      lintGutter(),
      cfg.check ? linter(liveCheck(cfg, (v) => (vars = v), problems), { delay: 300 }) : [],
      diff.of(switcher ? switcher.extension() : []),
      bar ? conflictField : [],
      EditorView.contentAttributes.of({ "aria-label": "Module file (frontmatter and body)", "data-testid": "code-editor" }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) textarea.value = u.state.doc.toString();
        if (switcher && (u.docChanged || u.transactions.some((t) => t.reconfigured))) switcher.update();
        if (bar && u.docChanged) bar.update();
      }),
    ],
  });
  problems.view = view;
  textarea.hidden = true;
  textarea.after(view.dom);
  if (bar) {
    bar.view = view;
    view.dom.before(bar.dom);
    bar.update();
  }
  if (switcher) {
    switcher.view = view;
    main.prepend(switcher.dom);
    switcher.update();
  }
  for (const e of document.querySelectorAll("[data-editor-static]")) e.hidden = true;
  const label = form.querySelector('label[for="' + textarea.id + '"]');
  if (label) label.addEventListener("click", () => view.focus());
  // Ctrl/Cmd-S saves, wherever the focus is on the page.
  const save = form.querySelector('[data-testid="save"], [data-testid="save-rebase"]');
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "s") {
      e.preventDefault();
      form.requestSubmit(save);
    }
  });
  form.dataset.editor = "ready";
}

function start() {
  const cfg = readConfig();
  const textarea = document.querySelector('form[data-testid="editor-form"] textarea[name="text"], form[data-testid="rebase-form"] textarea[name="text"]');
  if (cfg && textarea) enhance(textarea, cfg);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
