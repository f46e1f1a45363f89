package assembler_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/promptdesk/promptdesk/assembler"
)

// scenarioDir holds the shared real-world assemble requests; it sits
// beside the project and is absent from a user's clone.
const scenarioDir = "../../shared/cases/scenarios"

// scenario assembles one shared scenario with the builtin library, no
// operator state and token counting on.
func scenario(t *testing.T, name string) *assembler.Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(scenarioDir, name+".json"))
	if os.IsNotExist(err) {
		if _, dirErr := os.Stat(scenarioDir); os.IsNotExist(dirErr) {
			t.Skip(scenarioDir + " not found: real-scenario tests need the shared cases folder beside the project")
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	req, err := assembler.DecodeRequest(data)
	if err != nil {
		t.Fatalf("%s does not decode: %v", name, err)
	}
	res, err := assembler.New(assembler.Config{CountTokens: true}).Assemble(builtinLib(t), nil, req, fixedNow)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// requireLines fails for every wanted line missing from lines.
func requireLines(t *testing.T, what string, lines, want []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(lines, w) {
			t.Errorf("%s has no line %q", what, w)
		}
	}
}

func TestScenarioRAGMinutesZh(t *testing.T) {
	t.Parallel()
	res := scenario(t, "rag-minutes-zh")

	requireLines(t, "report", reportLines(res), []string{
		"prompt(env.knowledge v1 · knowledge-bases:2)",
		"knowledge(kb-weknora-docs · shown:10 cut:32)",
		"knowledge(kb-weknora-faq · shown:10 cut:35)",
		"prompt(env.selected-docs v1 · selected-documents:2)",
		"prompt(task.doc-minutes v1 · intent:纪要)",
		"prompt(env.skills v1 · skills:16)",
	})
	if got := segmentNames(res); !slices.Equal(got, []string{"base", "knowledge", "skills-hit", "skills-available"}) {
		t.Errorf("segments = %v", got)
	}
	for _, e := range entries(res, assembler.KindPrompt) {
		if e.Source != assembler.SourceBuiltin || e.Locale != "zh-CN" || e.Fallback {
			t.Errorf("%s served from %s %s (fallback %v), want builtin zh-CN", e.Module, e.Source, e.Locale, e.Fallback)
		}
	}
	// 2026-11-29T15:45Z is 23:45 in Asia/Shanghai, a Sunday.
	if !strings.Contains(res.Text, "- 今天：2026-11-29（星期日）\n- 当前时间：2026-11-29T23:45:00+08:00") {
		t.Errorf("date lines are not in Asia/Shanghai")
	}

	kb := res.Tables.Knowledge
	tables := parseTables(t, kb)
	if len(tables) != 2 {
		t.Fatalf("%d knowledge tables, want 2:\n%s", len(tables), kb)
	}
	docs, faq := tables[0], tables[1]
	if !slices.Equal(docs.header, []string{"标题", "类型", "创建时间", "大小", "摘要"}) {
		t.Errorf("document header = %v", docs.header)
	}
	if !slices.Equal(faq.header, []string{"问题", "答案", "分块 ID"}) {
		t.Errorf("FAQ header = %v", faq.header)
	}
	if len(docs.rows) != 10 || len(faq.rows) != 10 {
		t.Fatalf("rows: %d documents, %d FAQ; want 10 each", len(docs.rows), len(faq.rows))
	}
	lines := strings.Split(kb, "\n")
	requireLines(t, "knowledge tables", lines, []string{
		"#### WeKnora 文档（文档库，42 篇文档）：WeKnora 项目文档（部署、API、沙箱、技能）",
		"#### WeKnora 常见问题（问答库，45 条问答）：部署与使用中的常见问题 按主题整理",
		"另有 32 条未列出",
		"另有 35 条未列出",
		// Checked by hand against the request: sizes 8282, 4337 and 1032
		// bytes; 2026-05-28T18:01:17+09:00 is 17:01 in Shanghai; the
		// OpenSearch summary (187 characters) is cut to 120.
		"| WeKnora 沙箱：以 E2B 协议为唯一接入契约 | md | 2026-08-11 20:14 | 8.1 KB | 本文说明 WeKnora 为什么把 E2B 协议当作沙箱后端的唯一对接契约、现在还有哪些例外、以及可以直接拿来用的开源实现有哪些。面向部署方与要新接一种沙箱后端的开发者。 |",
		"| OpenSearch k-NN driver — local integration test | md | 2026-05-28 17:01 | 4.2 KB | This guide brings up a single-node OpenSearch cluster and exercises the OpenSearch retrieve engine end to end. The drive… |",
		"| WeKnora 云镜像打包指南 | md | 2026-05-11 11:56 | 1.0 KB | 把 WeKnora 打包成可分发的云镜像（AMI / 自定义镜像 / Snapshot），用户基于镜像创建实例后开机即用、自动随机化密钥、零私密泄漏。 |",
		// Two answers, each with a newline, in one cell on one line.
		"| 如何启动和停止服务？ | ```bash<br># 启动服务<br>./scripts/start_all.sh<br><br># 停止服务<br>./scripts/start_all.sh --stop | chunk-002 |",
		"| 如何查看日志？ | ```bash<br>docker compose logs -f app docreader postgres<br>``` | chunk-001 |",
	})
	cut := 0
	for _, s := range column(docs, 4) {
		if strings.HasSuffix(s, "…") {
			cut++
		}
	}
	if cut != 4 {
		t.Errorf("%d summaries cut, want 4 (rows 2, 4, 7, 8 are over 120 characters)", cut)
	}
	if got := column(docs, 2)[1]; got != "2026-08-11 15:31" {
		t.Errorf("row 2 created = %q", got)
	}
	wantChunks := []string{"chunk-001", "chunk-002", "chunk-003", "chunk-004", "chunk-005", "chunk-006", "chunk-007", "chunk-008", "chunk-009", "chunk-010"}
	if got := column(faq, 2); !slices.Equal(got, wantChunks) {
		t.Errorf("FAQ chunk column = %v: an answer broke out of its row", got)
	}

	sel := parseTables(t, res.Tables.Selected)
	if len(sel) != 1 {
		t.Fatalf("selected tables: %d", len(sel))
	}
	wantSel := [][]string{
		{"Embed 独立子域部署（可选）", "md", "WeKnora 文档", "doc-863b7974"},
		{"knowledge-base.md", "-", "WeKnora 文档", "doc-api-kb"},
	}
	if !slices.Equal(sel[0].header, []string{"标题", "文件类型", "所属知识库", "文档 ID"}) || !slices.EqualFunc(sel[0].rows, wantSel, slices.Equal) {
		t.Errorf("selected table =\n%s", res.Tables.Selected)
	}

	skills := parseTables(t, res.Tables.Skills)
	if len(skills) != 1 {
		t.Fatalf("skill tables: %d", len(skills))
	}
	wantNames := []string{"task.code-review", "task.data-analysis", "task.summarize", "task.translate",
		"algorithmic-art", "brand-guidelines", "canvas-design", "claude-api", "frontend-design", "internal-comms",
		"mcp-builder", "skill-creator", "slack-gif-creator", "theme-factory", "web-artifacts-builder", "webapp-testing"}
	if got := column(skills[0], 0); !slices.Equal(got, wantNames) {
		t.Errorf("skill names = %v\nwant %v", got, wantNames)
	}
	for i, row := range skills[0].rows[4:] {
		if row[2] != "由运行时提供" {
			t.Errorf("runtime skill %d trigger = %q", i, row[2])
		}
	}
	requireLines(t, "skill table", strings.Split(res.Tables.Skills, "\n"), []string{
		"| task.translate | 在不同语言之间翻译文本或文档，保持原意、语气和格式 | 关键词：翻译、译成、译为；命令 /translate |",
	})
	if res.Tokens == 0 || res.Encoding != "o200k_base" {
		t.Errorf("tokens %d with encoding %q; gpt-4o uses o200k_base", res.Tokens, res.Encoding)
	}
}

func TestScenarioCommandNoAttachmentZh(t *testing.T) {
	t.Parallel()
	res := scenario(t, "command-no-attachment-zh")
	requireLines(t, "report", reportLines(res), []string{
		"prompt(task.doc-minutes v1 · command:/minutes)",
		"knowledge(kb-weknora-docs · shown:10 cut:32)",
		"prompt(env.skills v1 · skills:4)",
	})
	// 2026-02-28T16:30Z is 2026-03-01 00:30 in Shanghai, a Sunday.
	if !strings.Contains(res.Text, "- 今天：2026-03-01（星期日）") || !strings.Contains(res.Text, "- 本次请求的附件：无") {
		t.Errorf("session facts wrong")
	}
	if res.Tables.Selected != "" || slices.Contains(promptModules(res), assembler.ModuleSelectedDocs) {
		t.Errorf("selected documents without any")
	}
}

func TestScenarioPureTranslateEn(t *testing.T) {
	t.Parallel()
	res := scenario(t, "pure-translate-en")
	mods := promptModules(res)
	if !slices.Contains(mods, assembler.ModulePureAgent) || slices.Contains(mods, assembler.ModuleKnowledge) {
		t.Errorf("prompt modules %v: want env.pure-agent and no env.knowledge", mods)
	}
	if res.Tables.Knowledge != "" || strings.Contains(strings.ToLower(res.Text), "knowledge") {
		t.Errorf("knowledge wording in a request without knowledge bases")
	}
	requireLines(t, "report", reportLines(res), []string{
		"prompt(env.pure-agent v1 · no-knowledge-base)",
		"prompt(task.translate v1 · intent:translate)",
		"prompt(env.skills v1 · skills:9)",
	})
	// One minute before midnight UTC: still Sunday 2026-11-29.
	if !strings.Contains(res.Text, "- Today: 2026-11-29 (Sunday)\n- Current time: 2026-11-29T23:59:30Z") {
		t.Errorf("date lines wrong")
	}
	skills := parseTables(t, res.Tables.Skills)
	want := []string{"task.code-review", "task.data-analysis", "task.doc-minutes", "task.summarize",
		"algorithmic-art", "brand-guidelines", "canvas-design", "claude-api", "frontend-design"}
	if len(skills) != 1 || !slices.Equal(column(skills[0], 0), want) {
		t.Errorf("skill table =\n%s", res.Tables.Skills)
	}
	requireLines(t, "skill table", strings.Split(res.Tables.Skills, "\n"), []string{
		"| task.doc-minutes | Turn meeting material (transcript, notes, recording text) into structured minutes with decisions and action items | keywords: minutes, meeting notes, meeting minutes; command /minutes |",
	})
}

func TestScenarioFallbackLocaleJa(t *testing.T) {
	t.Parallel()
	res := scenario(t, "fallback-locale-ja")
	if res.Locale != "ja-JP" {
		t.Errorf("Locale = %q", res.Locale)
	}
	prompts := entries(res, assembler.KindPrompt)
	if len(prompts) == 0 {
		t.Fatal("no prompt entries")
	}
	for _, e := range prompts {
		if !e.Fallback || e.Locale != "en-US" || e.Source != assembler.SourceBuiltin || !strings.HasSuffix(e.Line, " · fallback:en-US)") {
			t.Errorf("%s: %+v, want builtin en-US by fallback", e.Module, e)
		}
	}
	// The en-US keywords do not include 要約: no task fires.
	if slices.Contains(segmentNames(res), assembler.SegmentSkillsHit) {
		t.Errorf("a task fired: %v", reportLines(res))
	}
	lines := strings.Split(res.Tables.Knowledge, "\n")
	requireLines(t, "knowledge table", lines, []string{
		"#### WeKnora 常见问题 (FAQ base, 45 Q&A entries): 部署与使用中的常见问题 按主题整理",
		"| Question | Answer | Chunk ID |",
		"+35 more",
	})
	tables := parseTables(t, res.Tables.Knowledge)
	if len(tables) != 1 || len(tables[0].rows) != 10 {
		t.Errorf("want one FAQ table of 10 rows")
	}
	// 2026-11-29T01:00Z is 10:00 in Asia/Tokyo.
	if !strings.Contains(res.Text, "- Today: 2026-11-29 (Sunday)\n- Current time: 2026-11-29T10:00:00+09:00") ||
		!strings.Contains(res.Text, "- Attachments in this request: spec.pdf") {
		t.Errorf("session facts wrong")
	}
}
