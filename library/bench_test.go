package library_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/library"
)

// Benchmarks of loading and parsing (targets and figures in BENCHMARKS.md):
//
//	go test ./library -run '^$' -bench . -benchtime 2s -count 3

// genLayers is the layer mix of the generated library: 500 ids, each in
// en-US and zh-CN, so 1,000 module files.
var genLayers = []struct {
	layer library.Layer
	count int
}{
	{library.LayerBase, 20}, {library.LayerEnv, 30}, {library.LayerTask, 150},
	{library.LayerAgent, 80}, {library.LayerTool, 60}, {library.LayerAux, 120},
	{library.LayerStyle, 40},
}

var genWordsEN = strings.Fields(`the assistant reads the request and answers in the user's language;
it checks every figure against the documents, names the file it quotes, keeps lists short,
asks one question when the request is ambiguous, never invents a source, a person or a date,
and says plainly when a tool failed or a document could not be read. Prefer tables for
comparisons, numbered steps for procedures and one short paragraph for a summary.`)

var genWordsZH = []string{"助手", "先阅读", "用户的请求", "再用", "用户的语言", "回答", "；", "核对", "每一个数字",
	"与文档", "是否一致", "，", "引用时", "写明", "文件名", "。", "请求", "含糊时", "只问", "一个问题",
	"，", "绝不", "编造", "来源", "、", "人名", "或日期", "。", "工具", "失败时", "直接说明", "。"}

// genText is about size bytes of prose in the locale, in paragraphs.
func genText(locale string, seed, size int) string {
	var b strings.Builder
	words, sep := genWordsEN, " "
	if locale == "zh-CN" {
		words, sep = genWordsZH, ""
	}
	for i := seed; b.Len() < size; i++ {
		b.WriteString(words[(i*7)%len(words)])
		b.WriteString(sep)
		if i%23 == 22 {
			b.WriteString("\n\n")
		}
	}
	return strings.TrimSpace(b.String())
}

// genModule is one generated module file: realistic frontmatter, a 1–3 KB
// body with a few placeholders (declared variables, environment values,
// includes of earlier modules of the same layer).
func genModule(layer library.Layer, n, locale string, i int, ids []string) string {
	id := string(layer) + "." + n
	var vars []string
	for v := 0; v < i%4; v++ {
		vars = append(vars, fmt.Sprintf("var_%d", v))
	}
	var f strings.Builder
	fmt.Fprintf(&f, "---\nid: %s\nlayer: %s\nversion: %d\n", id, layer, 1+i%5)
	if locale == "zh-CN" {
		fmt.Fprintf(&f, "title: 生成的模块 %d\ndescription: 用于加载基准测试的生成模块，第 %d 号\n", i, i)
	} else {
		fmt.Fprintf(&f, "title: Generated module %d\ndescription: A generated module for the load benchmark, number %d\n", i, i)
	}
	if len(vars) > 0 {
		f.WriteString("variables:\n")
		for k, v := range vars {
			if k == 1 {
				fmt.Fprintf(&f, "- {name: %s, escape: xml}\n", v)
			} else {
				fmt.Fprintf(&f, "- %s\n", v)
			}
		}
	}
	if layer == library.LayerTask {
		fmt.Fprintf(&f, "priority: %d\n", 10+i%90)
		if i%3 == 0 {
			f.WriteString("requiresAttachments: true\n")
		}
		f.WriteString("triggers:\n- kind: intent\n")
		if locale == "zh-CN" {
			fmt.Fprintf(&f, "  keywords: 关键词%d, 任务%d, 整理\n", i, i)
		} else {
			fmt.Fprintf(&f, "  keywords: keyword%d, task%d, tidy\n", i, i)
		}
		fmt.Fprintf(&f, "- kind: command\n  command: /cmd%03d\n", i)
	}
	if i%4 == 1 {
		f.WriteString("outputContract: |\n")
		for _, line := range strings.Split(genText(locale, i+3, 300), "\n") {
			if line != "" {
				f.WriteString("  " + line + "\n")
			}
		}
	}
	f.WriteString("---\n")

	size := 1024 + (i*7919)%2048
	paras := strings.Split(genText(locale, i, size), "\n\n")
	var uses []string
	for _, v := range vars {
		uses = append(uses, "{{"+v+"}}")
	}
	if layer == library.LayerEnv {
		uses = append(uses, "{{date}} ({{weekday}})", "{{model}}")
	}
	uses = append(uses, "{{web_search_status}}")
	if len(ids) > 0 && i%2 == 0 {
		uses = append(uses, "{{"+ids[(i*31)%len(ids)]+"}}") // an earlier module: no cycle
	}
	for k, p := range paras {
		f.WriteString(p)
		if k < len(uses) {
			f.WriteString(" " + uses[k])
		}
		f.WriteString("\n\n")
	}
	for k := len(paras); k < len(uses); k++ {
		f.WriteString(uses[k] + "\n")
	}
	return f.String()
}

// genLibrary writes the 1,000-file library folder (and the project's
// label files) into dir.
func genLibrary(tb testing.TB, dir string) (files int) {
	tb.Helper()
	labels, err := filepath.Glob(filepath.Join("labels", "*.yaml"))
	if err != nil || len(labels) == 0 {
		tb.Fatalf("no label files under labels/ (%v)", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "labels"), 0o755); err != nil {
		tb.Fatal(err)
	}
	for _, p := range labels {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "labels", filepath.Base(p)), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for _, locale := range []string{"en-US", "zh-CN"} {
		folder := filepath.Join(dir, "modules", locale)
		if err := os.MkdirAll(folder, 0o755); err != nil {
			tb.Fatal(err)
		}
		i := 0
		for _, l := range genLayers {
			var earlier []string
			for k := 0; k < l.count; k++ {
				name := fmt.Sprintf("gen-%03d", k)
				text := genModule(l.layer, name, locale, i, earlier)
				id := string(l.layer) + "." + name
				if err := os.WriteFile(filepath.Join(folder, library.FileName(id)), []byte(text), 0o644); err != nil {
					tb.Fatal(err)
				}
				earlier = append(earlier, id)
				i++
				files++
			}
		}
	}
	return files
}

// BenchmarkLoadDir1000 loads a generated library folder of 1,000 module
// files (500 ids in en-US and zh-CN, every layer, 1–3 KB bodies with a few
// placeholders) plus the label files. Target: ≤ 200 ms.
func BenchmarkLoadDir1000(b *testing.B) {
	dir := b.TempDir()
	if files := genLibrary(b, dir); files != 1000 {
		b.Fatalf("generated %d module files, want 1000", files)
	}
	snap, err := library.LoadDir(dir)
	if err != nil {
		b.Fatalf("the generated library does not load:\n%v", err)
	}
	if n := len(snap.IDs()); n != 500 {
		b.Fatalf("loaded %d ids, want 500", n)
	}
	var lo, hi int
	for _, id := range snap.IDs() {
		for _, loc := range snap.ModuleLocales(id) {
			m, _ := snap.Module(id, loc)
			if lo == 0 || len(m.Body) < lo {
				lo = len(m.Body)
			}
			hi = max(hi, len(m.Body))
		}
	}
	if lo < 900 || hi > 3400 {
		b.Fatalf("bodies are %d–%d bytes, want about 1–3 KB", lo, hi)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := library.LoadDir(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse parses one builtin module, the largest task module with
// triggers and an output contract.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("modules", "zh-CN", "task-doc-minutes.md"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := library.Parse("task-doc-minutes.md", data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := library.Parse("task-doc-minutes.md", data); err != nil {
			b.Fatal(err)
		}
	}
}
