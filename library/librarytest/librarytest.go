// Package librarytest generates module libraries for tests and
// benchmarks: the builtin library with generated modules added, shaped
// like a real skills collection (mostly task modules with intent and
// command triggers, descriptions of 100–1,000 characters, four locales).
// The same size always gives the same files.
package librarytest

import (
	"fmt"
	"io/fs"
	"strings"
	"testing/fstest"
	"unicode/utf8"

	"github.com/promptdesk/promptdesk/library"
)

// Locales are the locales of the generated modules: every one is in
// en-US; nine in ten are in zh-CN, one in three in ja and one in five in
// ko-KR (ModuleLocales).
var Locales = []string{"en-US", "zh-CN", "ja", "ko-KR"}

// Large is the size of the large library the console is measured at.
const Large = 10000

// word is one word or phrase in each of Locales, in that order.
type word [4]string

// topics and actions name the generated modules: task.<topic>-<action>-<n>.
var topics = []word{
	{"invoice", "发票", "請求書", "송장"}, {"contract", "合同", "契約書", "계약서"},
	{"meeting", "会议", "会議", "회의"}, {"spreadsheet", "表格", "表計算", "스프레드시트"},
	{"email", "邮件", "メール", "이메일"}, {"ticket", "工单", "チケット", "티켓"},
	{"release", "发布", "リリース", "릴리스"}, {"survey", "调查", "アンケート", "설문"},
	{"resume", "简历", "履歴書", "이력서"}, {"policy", "制度", "ポリシー", "정책"},
	{"changelog", "变更日志", "変更履歴", "변경 로그"}, {"budget", "预算", "予算", "예산"},
	{"diagram", "图表", "図", "다이어그램"}, {"dataset", "数据集", "データセット", "데이터셋"},
	{"interview", "访谈", "インタビュー", "인터뷰"}, {"patent", "专利", "特許", "특허"},
}

var actions = []word{
	{"extract", "提取", "抽出", "추출"}, {"check", "检查", "確認", "점검"},
	{"outline", "提纲", "アウトライン", "개요"}, {"compare", "比较", "比較", "비교"},
	{"draft", "起草", "下書き", "초안"}, {"classify", "分类", "分類", "분류"},
	{"explain", "讲解", "説明", "설명"},
}

// sentences are the phrases descriptions are made of; none holds a
// topic word, so a search for a topic finds the modules named after it.
var sentences = [4][]string{
	{
		"Reads the material the user points to and keeps every figure, name and date exactly as written.",
		"Asks one short question when the request is ambiguous instead of guessing.",
		"Works on pasted text, attachments and selected documents alike.",
		"Writes in the user's language unless asked for another one.",
		"Marks anything it could not verify so that a reviewer can follow up.",
		"Keeps the structure of the source and says which part each point comes from.",
		"Leaves out opinions and advice of its own.",
		"Returns a short list first and the details after it.",
		"Handles long inputs by working section by section.",
		"Never invents a source, a quotation or a number.",
	},
	{
		"读取用户指向的材料，所有数字、名称和日期保持原样。",
		"请求含糊时先简短提问，不做猜测。",
		"粘贴的文本、附件和选中的文档都能处理。",
		"除非用户另有要求，用用户的语言回答。",
		"无法核实的内容会标注出来，便于审阅者跟进。",
		"保留原文结构，并说明每一点出自哪一部分。",
		"不加入自己的观点和建议。",
		"先给出简短列表，再给出细节。",
	},
	{
		"ユーザーが示した資料を読み、数値・名前・日付をそのまま保ちます。",
		"依頼があいまいなときは推測せず、短く質問します。",
		"貼り付けたテキスト、添付ファイル、選択した文書のどれにも対応します。",
		"特に指定がなければユーザーの言語で書きます。",
		"確認できなかった点は印を付け、レビュー担当者が追えるようにします。",
		"元の構成を保ち、各項目がどの部分から来たかを示します。",
		"独自の意見や助言は加えません。",
		"まず短い一覧を示し、その後に詳細を書きます。",
	},
	{
		"사용자가 가리킨 자료를 읽고 숫자, 이름, 날짜를 그대로 유지합니다.",
		"요청이 모호하면 추측하지 않고 짧게 질문합니다.",
		"붙여 넣은 텍스트, 첨부 파일, 선택한 문서 모두 처리합니다.",
		"따로 요청이 없으면 사용자의 언어로 씁니다.",
		"확인하지 못한 내용은 표시하여 검토자가 후속 조치를 할 수 있게 합니다.",
		"원문의 구조를 유지하고 각 항목의 출처를 밝힙니다.",
		"자신의 의견이나 조언은 덧붙이지 않습니다.",
		"먼저 짧은 목록을 제시하고 그다음에 세부 내용을 씁니다.",
	},
}

// ID is the id and layer of generated module n (counted from the
// builtin's size): nine in ten are task modules, the rest spread over the
// other layers.
func ID(n int) (string, library.Layer) {
	layer := library.LayerTask
	switch r := n % 100; {
	case r >= 90 && r < 93:
		layer = library.LayerTool
	case r >= 93 && r < 96:
		layer = library.LayerAux
	case r >= 96 && r < 98:
		layer = library.LayerAgent
	case r == 98:
		layer = library.LayerStyle
	case r == 99 && n/100%2 == 0:
		layer = library.LayerBase
	case r == 99:
		layer = library.LayerEnv
	}
	t, a := topics[n%len(topics)], actions[n/len(topics)%len(actions)]
	return fmt.Sprintf("%s.%s-%s-%05d", layer, t[0], a[0], n), layer
}

// ModuleLocales are the locales generated module n is in (see Locales).
func ModuleLocales(n int) []string {
	out := []string{"en-US"}
	if n%10 != 9 {
		out = append(out, "zh-CN")
	}
	if n%3 == 0 {
		out = append(out, "ja")
	}
	if n%5 == 0 {
		out = append(out, "ko-KR")
	}
	return out
}

// Description is the description of generated module n in locale: 100
// to 1,000 characters, its length and sentences chosen by n.
func Description(n int, locale string) string {
	l := localeIndex(locale)
	want := 100 + n*7919%901
	var b strings.Builder
	b.WriteString(name(n, l) + ". ")
	count := utf8.RuneCountInString(b.String())
	for i := 0; count < want; i++ {
		s := sentences[l][(n+i*3)%len(sentences[l])]
		if l == 0 {
			s += " "
		}
		b.WriteString(s)
		count += utf8.RuneCountInString(s)
	}
	runes := []rune(b.String())[:want]
	return strings.TrimSpace(string(runes))
}

// name is the title of generated module n in the locale of index l.
func name(n, l int) string {
	t, a := topics[n%len(topics)], actions[n/len(topics)%len(actions)]
	if l == 0 {
		return fmt.Sprintf("%s %s %d", strings.ToUpper(t[0][:1])+t[0][1:], a[0], n)
	}
	return fmt.Sprintf("%s%s %d", t[l], a[l], n)
}

func localeIndex(locale string) int {
	for i, l := range Locales {
		if l == locale {
			return i
		}
	}
	return 0
}

// Module is the module file of id (of layer) in locale, generated as
// module n: version 1–5, title and description in the locale, for a task
// an intent trigger with keywords in the locale and a command, and a body
// of a few hundred bytes.
func Module(id string, layer library.Layer, locale string, n int) string {
	l := localeIndex(locale)
	var f strings.Builder
	fmt.Fprintf(&f, "---\nid: %s\nlayer: %s\nversion: %d\ntitle: %s\ndescription: %s\n", id, layer, 1+n%5, name(n, l), Description(n, locale))
	if layer == library.LayerTask {
		t, a := topics[n%len(topics)], actions[n/len(topics)%len(actions)]
		fmt.Fprintf(&f, "priority: %d\ntriggers:\n- kind: intent\n  keywords: %s %s, %s%d\n- kind: command\n  command: /%s-%s-%d\n",
			10+n%90, t[l], a[l], t[0], n, t[0], a[0], n)
	}
	f.WriteString("---\n")
	s := sentences[l]
	for i := range 3 {
		fmt.Fprintf(&f, "%s %s\n\n", s[(n+i)%len(s)], s[(n+i+5)%len(s)])
	}
	return f.String()
}

// FS is the files of a library of size module ids: the builtin library's
// files, then generated modules 0, 1, … (ID, ModuleLocales, Module) up to
// size ids. A size below the builtin's is an error.
func FS(size int) (fstest.MapFS, error) {
	builtin, err := library.Builtin()
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{}
	err = fs.WalkDir(library.BuiltinFS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(library.BuiltinFS(), p)
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		return nil, err
	}
	extra := size - len(builtin.IDs())
	if extra < 0 {
		return nil, fmt.Errorf("a library of %d ids is smaller than the builtin one (%d)", size, len(builtin.IDs()))
	}
	for n := range extra {
		id, layer := ID(n)
		for _, loc := range ModuleLocales(n) {
			fsys["modules/"+loc+"/"+library.FileName(id)] = &fstest.MapFile{Data: []byte(Module(id, layer, loc, n))}
		}
	}
	return fsys, nil
}

// Library loads FS(size).
func Library(size int) (*library.Snapshot, error) {
	fsys, err := FS(size)
	if err != nil {
		return nil, err
	}
	return library.Load(fsys, fmt.Sprintf("generated-%d", size))
}
