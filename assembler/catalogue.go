package assembler

import (
	"slices"
	"strings"
	"sync"
	"weak"

	ahocorasick "github.com/petar-dambovaliev/aho-corasick"

	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/library/weakcache"
)

// catalogue is the task modules of a library with its task overrides, as
// served in one locale, indexed once so that a request costs what it
// matches rather than what the library holds: the modules by id, their
// commands, one automaton over every intent and attachment keyword, the
// modules an attachment alone fires, the search index the skill ranking
// reads, and each module's skill-table row and skill-cut entries made
// ready. A catalogue is read-only once built.
type catalogue struct {
	// tasks are the served task modules, by id; an index into it is a
	// task's ref.
	tasks []Served
	byID  map[string]int32
	// overrides are the task overrides it was built from (taskOverrides):
	// a State with the same ones gets the same catalogue.
	overrides []*Override
	// commands maps a command to the tasks with a trigger for it.
	commands map[string][]int32
	// keywords finds every folded keyword in a folded message;
	// keywordTasks[p] are the tasks with pattern p among their intent or
	// attachment keywords. keywords is nil without keywords.
	keywords     *ahocorasick.AhoCorasick
	keywordTasks [][]int32
	// patterns numbers the folded keywords while the catalogue is built.
	patterns map[string]int
	// attachment are the tasks an attachment fires without a keyword.
	attachment []int32
	// rows are the tasks' skill-table rows; rowBytes[i] is the length of
	// row i as written, with its line break, and tableBytes their sum.
	rows       []skillRow
	rowBytes   []int
	tableBytes int
	// docs, postings and totalLength are the ranking's index: each task's
	// search document, the tasks whose document holds a term (ascending)
	// with its weighted frequency there, and the sum of the documents'
	// lengths.
	docs        []*skillDoc
	postings    map[string][]posting
	totalLength float64
	// cut is each task's skill-cut report entry, its Line set.
	cut []ReportEntry
}

// posting is one task whose search document holds a term, with the
// term's weighted frequency there.
type posting struct {
	ref int32
	tf  float64
}

// cataloguesKept is how many catalogues of one library and locale are
// kept for different task overrides: the served state's and a preview's
// drafts alternate without rebuilding each other's.
const cataloguesKept = 4

// catalogueKey identifies the catalogues of a library snapshot (weakly)
// in a locale (a locale key).
type catalogueKey struct {
	snap   weak.Pointer[library.Snapshot]
	locale string
}

// catalogues is the catalogues kept for one catalogueKey, the most
// recently built first.
type catalogues struct {
	mu   sync.Mutex
	list []*catalogue
}

// catalogue returns the catalogue of snap with st's task overrides in
// locale (a locale key), built on first use. lab is the labels of that
// locale, which the skill-table rows are written in.
func (a *Assembler) catalogue(snap *library.Snapshot, st *State, locale string, lab labeler) *catalogue {
	overrides := a.taskOverrides(st)
	key := catalogueKey{weak.Make(snap), locale}
	v, ok := a.catalogues.Load(key)
	if !ok {
		weakcache.Store(snap, &a.catalogues, key, &catalogues{})
		v, _ = a.catalogues.Load(key)
	}
	kept := v.(*catalogues)
	kept.mu.Lock()
	defer kept.mu.Unlock()
	for _, c := range kept.list {
		if slices.Equal(c.overrides, overrides) {
			return c
		}
	}
	c := a.buildCatalogue(snap, st, locale, lab, overrides)
	kept.list = slices.Insert(kept.list, 0, c)
	if len(kept.list) > cataloguesKept {
		kept.list = kept.list[:cataloguesKept]
	}
	return c
}

// taskOverrides returns st's overrides of task modules (user modules
// included) in key order; nil without any. It is made once per State.
func (a *Assembler) taskOverrides(st *State) []*Override {
	if st == nil || st.Overrides.Len() == 0 {
		return nil
	}
	key := weak.Make(st)
	if v, ok := a.stateTasks.Load(key); ok {
		return v.([]*Override)
	}
	var list []*Override
	for k, o := range st.Overrides.All() {
		if strings.HasPrefix(k.ID, "task.") {
			list = append(list, o)
		}
	}
	weakcache.Store(st, &a.stateTasks, key, list)
	return list
}

// buildCatalogue indexes the task modules of snap and st in locale.
func (a *Assembler) buildCatalogue(snap *library.Snapshot, st *State, locale string, lab labeler, overrides []*Override) *catalogue {
	ids := a.index(snap, st).tasks
	c := &catalogue{
		tasks: make([]Served, 0, len(ids)), byID: make(map[string]int32, len(ids)), overrides: overrides,
		commands: map[string][]int32{}, postings: map[string][]posting{}, patterns: map[string]int{},
	}
	for _, id := range ids {
		if s, ok := a.Resolve(snap, st, id, locale); ok {
			c.byID[id] = int32(len(c.tasks))
			c.tasks = append(c.tasks, s)
		}
	}
	n := len(c.tasks)
	c.rows, c.rowBytes, c.docs = make([]skillRow, 0, n), make([]int, 0, n), make([]*skillDoc, 0, n)
	c.cut = make([]ReportEntry, 0, n)
	for i := range c.tasks {
		c.index(a, lab, int32(i))
	}
	if len(c.patterns) > 0 {
		keywords := make([]string, len(c.patterns))
		for k, p := range c.patterns {
			keywords[p] = k
		}
		b := ahocorasick.NewAhoCorasickBuilder(ahocorasick.Opts{MatchKind: ahocorasick.StandardMatch})
		ac := b.Build(keywords)
		c.keywords = &ac
	}
	c.patterns = nil
	return c
}

// index indexes c.tasks[ref], the next task not indexed yet.
func (c *catalogue) index(a *Assembler, lab labeler, ref int32) {
	s := &c.tasks[ref]
	m := s.Module
	attachmentOnly := false
	for _, t := range m.Triggers {
		switch t.Kind {
		case library.TriggerCommand:
			if t.Command != "" && !slices.Contains(c.commands[t.Command], ref) {
				c.commands[t.Command] = append(c.commands[t.Command], ref)
			}
		case library.TriggerIntent, library.TriggerAttachment:
			for _, k := range t.Keywords {
				c.addKeyword(k, ref)
			}
			if t.Kind == library.TriggerAttachment && len(t.Keywords) == 0 {
				attachmentOnly = true
			}
		}
	}
	if attachmentOnly {
		c.attachment = append(c.attachment, ref)
	}
	row := skillRow{served: s, name: m.ID, description: m.Description, trigger: a.triggerCell(lab, m)}
	c.rows = append(c.rows, row)
	var line strings.Builder
	writeSkillRow(&line, &row)
	c.rowBytes = append(c.rowBytes, line.Len()+1)
	c.tableBytes += line.Len() + 1
	d := a.moduleDoc(m)
	c.docs = append(c.docs, d)
	c.totalLength += d.length
	for t, tf := range d.tf {
		c.postings[t] = append(c.postings[t], posting{ref, tf})
	}
	cut := skillEntry(KindSkillCut, row)
	cut.Line = cut.TextForm()
	c.cut = append(c.cut, cut)
}

// addKeyword adds the task ref to the tasks of keyword k, folded.
func (c *catalogue) addKeyword(k string, ref int32) {
	f := foldKeyword(k).text
	if f == "" {
		return
	}
	p, ok := c.patterns[f]
	if !ok {
		p = len(c.patterns)
		c.patterns[f] = p
		c.keywordTasks = append(c.keywordTasks, nil)
	}
	if ts := c.keywordTasks[p]; len(ts) == 0 || ts[len(ts)-1] != ref {
		c.keywordTasks[p] = append(ts, ref)
	}
}

// candidates returns, sorted and each once, the tasks whose triggers can
// fire for a request with the folded message, command and attachments or
// none: those with a trigger for the command, those with a keyword found
// in the message (fire decides whether it is found as a word), and with
// an attachment, those an attachment alone fires. A task that is not
// among them cannot fire.
func (c *catalogue) candidates(folded, command string, attachments bool) []int32 {
	var out []int32
	if command != "" {
		out = append(out, c.commands[command]...)
	}
	if c.keywords != nil && folded != "" {
		it := c.keywords.IterOverlapping(folded)
		for m := it.Next(); m != nil; m = it.Next() {
			out = append(out, c.keywordTasks[m.Pattern()]...)
		}
	}
	if attachments {
		out = append(out, c.attachment...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
