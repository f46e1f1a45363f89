package linediff

import (
	"errors"
	"slices"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// The conflict markers Merge writes around each conflict: the override's
// lines, then the builtin's (drift review).
const (
	MarkerOverride  = "<<<<<<< override"
	MarkerSeparator = "======="
	MarkerBuiltin   = ">>>>>>> builtin"
)

// The conflict markers of a stale save's merge: the lines of the edit
// that was refused, then the head's.
const (
	MarkerYours  = "<<<<<<< yours"
	MarkerTheirs = ">>>>>>> theirs"
)

// OwnMarker reports whether line (without its line break) is one of the
// opening or closing markers promptdesk's merges write, as opposed to a
// marker a module shows in an example.
func OwnMarker(line string) bool {
	switch strings.TrimRight(line, " \t\r") {
	case MarkerOverride, MarkerBuiltin, MarkerYours, MarkerTheirs:
		return true
	}
	return false
}

// ErrTooLarge is returned by Merge for texts with more distinct lines than
// its line encoding holds (61,440; a module is at most 256 KiB).
var ErrTooLarge = errors.New("linediff: the texts have too many distinct lines to merge")

// Merged is the result of a three-way merge.
type Merged struct {
	// Text is the merged text; each conflict is written in it between
	// MarkerOverride and MarkerBuiltin lines.
	Text      string
	Conflicts []Conflict
}

// Conflict is a region that the override and the builtin changed in
// different ways, or that could not be placed safely.
type Conflict struct {
	// Line is the 1-based line of the MarkerOverride line in Merged.Text.
	Line int
	// Override and Builtin are the two versions of the region, each
	// newline-terminated (empty when that side deleted it).
	Override, Builtin string
}

// Merge merges two edits of base: the operator's (base → override) onto
// upstream's (base → builtin), line by line (the drift review's rebase).
// CRLF counts as LF.
//
// The override's changes are diffmatchpatch patches (PatchMake of the line
// diff base → override) applied with PatchApply to builtin. Matching is
// exact: a patch applies only where its deleted lines and its context (one
// line on each side, more when needed to be unique) appear unchanged, so a
// fuzzy match can never drop an upstream change. A patch that does not
// apply becomes a conflict: its lines, widened to every change of either
// side touching them, are written between markers — unless builtin left
// that region and its neighbouring lines alone (then the override's lines
// are taken, as diff3 does) or both sides made the same change. The rest
// is merged again until every patch applies.
func Merge(base, override, builtin string) (Merged, error) {
	base = strings.ReplaceAll(base, "\r\n", "\n")
	override = strings.ReplaceAll(override, "\r\n", "\n")
	builtin = strings.ReplaceAll(builtin, "\r\n", "\n")
	switch {
	case override == base || override == builtin:
		return Merged{Text: builtin}, nil
	case builtin == base:
		return Merged{Text: override}, nil
	}
	c := &codec{index: map[string]rune{}}
	b, err := c.encode(base)
	if err != nil {
		return Merged{}, err
	}
	o, err := c.encode(override)
	if err != nil {
		return Merged{}, err
	}
	n, err := c.encode(builtin)
	if err != nil {
		return Merged{}, err
	}
	dmp := newMatcher()
	var marks []markers // of every conflict written so far
	// Each round turns at least one hunk of base → override into text that
	// all three sides share, so the rounds end; the limit is a safety net.
	for round := 0; ; round++ {
		merged, failed := applyPatches(dmp, b, o, n)
		if len(failed) == 0 {
			return c.result(merged, marks), nil
		}
		oh := hunksOf(dmp.DiffMainRunes(b, o, false))
		nh := hunksOf(dmp.DiffMainRunes(b, n, false))
		if round > len(oh)+1 {
			// Not expected: give the operator both texts whole.
			failed = []span{{0, len(b)}}
		}
		regions := closure(seeds(failed, oh, len(b)), oh, nh)
		b, o, n, err = c.settle(regions, b, o, n, oh, nh, &marks)
		if err != nil {
			return Merged{}, err
		}
	}
}

// MarkerLines returns the 1-based numbers of the lines of text that are
// conflict markers: lines starting with "<<<<<<<" or ">>>>>>>", and
// "=======" lines inside an unclosed "<<<<<<<" block.
func MarkerLines(text string) []int {
	var out []int
	open := false
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimRight(line, " \t\r")
		switch {
		case strings.HasPrefix(line, "<<<<<<<"):
			open = true
		case strings.HasPrefix(line, ">>>>>>>"):
			open = false
		case line == MarkerSeparator && open:
		default:
			continue
		}
		out = append(out, i+1)
	}
	return out
}

// StraySeparators returns the 1-based numbers of the lines of text that
// are exactly "=======" when none of the sources has such a line: the
// middle marker of a conflict whose other markers were removed. A source
// that uses the line itself (a setext heading) keeps it legitimate.
func StraySeparators(text string, sources ...string) []int {
	for _, src := range sources {
		for _, line := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
			if strings.TrimRight(line, " \t\r") == MarkerSeparator {
				return nil
			}
		}
	}
	var out []int
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.TrimRight(line, " \t\r") == MarkerSeparator {
			out = append(out, i+1)
		}
	}
	return out
}

// runeBytes is the UTF-8 length of every line code: diffmatchpatch
// patches and matching count bytes, so with codes of one fixed width every
// offset, margin and split falls on a line boundary.
const runeBytes = 3

// newMatcher returns diffmatchpatch set up for exact, line-aligned patches.
func newMatcher() *diffmatchpatch.DiffMatchPatch {
	dmp := diffmatchpatch.New()
	dmp.PatchMargin = runeBytes       // one line of context on each side (more if not unique)
	dmp.MatchMaxBits = 20 * runeBytes // patterns of up to 20 lines
	// One wrong byte in a pattern of at most MatchMaxBits bytes scores at
	// least 1/60: only exact matches pass, found anywhere (the distance
	// term stays below 0.001 for any module).
	dmp.MatchThreshold = 0.01
	dmp.MatchDistance = 1 << 30
	dmp.PatchDeleteThreshold = 0 // a long deletion must match exactly too
	return dmp
}

// codec gives each distinct line (with its newline) a 3-byte rune, shared
// by the three texts of a merge.
type codec struct {
	index map[string]rune
	lines []string
}

const (
	lowCodes  = 0xD800 - 0x800 // U+0800..U+D7FF
	highCodes = 0x2000         // U+E000..U+FFFF
)

// markers are the codes of one conflict's opening, separator and closing
// marker lines.
type markers [3]rune

func (c *codec) encode(text string) ([]rune, error) {
	parts := strings.SplitAfter(text, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	out := make([]rune, len(parts))
	for i, p := range parts {
		r, err := c.code(p)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// code returns the code of line, giving it one if it has none.
func (c *codec) code(line string) (rune, error) {
	if r, ok := c.index[line]; ok {
		return r, nil
	}
	r, err := c.fresh(line)
	if err == nil {
		c.index[line] = r
	}
	return r, err
}

// fresh returns a new code for line, distinct from every other even when
// the text is the same (conflict markers use that to stay identifiable).
func (c *codec) fresh(line string) (rune, error) {
	k := len(c.lines)
	var r rune
	switch {
	case k < lowCodes:
		r = rune(0x800 + k)
	case k < lowCodes+highCodes:
		r = rune(0xE000 + k - lowCodes)
	default:
		return 0, ErrTooLarge
	}
	c.lines = append(c.lines, line)
	return r, nil
}

func (c *codec) line(r rune) string {
	if r < 0xD800 {
		return c.lines[r-0x800]
	}
	return c.lines[int(r-0xE000)+lowCodes]
}

func (c *codec) decode(rs []rune) string {
	var sb strings.Builder
	for _, r := range rs {
		sb.WriteString(c.line(r))
	}
	return sb.String()
}

// result decodes the merged text and finds each conflict by its markers'
// codes.
func (c *codec) result(merged []rune, marks []markers) Merged {
	m := Merged{Text: c.decode(merged)}
	seen := map[rune]bool{}
	for i, r := range merged {
		k := slices.IndexFunc(marks, func(m markers) bool { return m[0] == r })
		if k < 0 || seen[r] {
			continue
		}
		seen[r] = true
		conf := Conflict{Line: i + 1}
		j := i + 1
		for ; j < len(merged) && merged[j] != marks[k][1]; j++ {
			conf.Override += c.line(merged[j])
		}
		for j++; j < len(merged) && merged[j] != marks[k][2]; j++ {
			conf.Builtin += c.line(merged[j])
		}
		m.Conflicts = append(m.Conflicts, conf)
	}
	return m
}

// span is a range [s, e) of base lines.
type span struct{ s, e int }

// hunk is a change of base: lines [s, e) replaced by repl.
type hunk struct {
	span
	repl []rune
}

func (h hunk) delta() int { return len(h.repl) - (h.e - h.s) }

// touches reports whether the hunk overlaps or borders [s, e].
func (h hunk) touches(r span) bool { return h.s <= r.e && h.e >= r.s }

// hunksOf lists the changes of a line diff in base order.
func hunksOf(diffs []diffmatchpatch.Diff) []hunk {
	var hs []hunk
	pos, open := 0, false
	for _, d := range diffs {
		rs := []rune(d.Text)
		if d.Type == diffmatchpatch.DiffEqual {
			open = false
			pos += len(rs)
			continue
		}
		if !open {
			hs = append(hs, hunk{span: span{pos, pos}})
			open = true
		}
		h := &hs[len(hs)-1]
		if d.Type == diffmatchpatch.DiffDelete {
			h.e += len(rs)
			pos += len(rs)
		} else {
			h.repl = append(h.repl, rs...)
		}
	}
	return hs
}

// applyPatches applies the patches of b → o to n one at a time, keeping
// those that apply whole, and returns the result and the base lines of
// the patches that did not apply.
func applyPatches(dmp *diffmatchpatch.DiffMatchPatch, b, o, n []rune) ([]rune, []span) {
	patches := dmp.PatchMake(string(b), dmp.DiffMainRunes(b, o, false))
	toN := dmp.DiffMainRunes(b, n, false)
	text := string(n)
	var failed []span
	rolled, applied := 0, 0 // PatchMake's positions include the earlier patches
	for _, p := range patches {
		start := p.Start1 - rolled // in base, bytes
		rolled += p.Length2 - p.Length1
		// Look first where base's lines went in the text.
		p.Start2 = dmp.DiffXIndex(toN, start) + applied
		out, ok := dmp.PatchApply([]diffmatchpatch.Patch{p}, text)
		if len(ok) > 0 && !slices.Contains(ok, false) {
			text = out
			applied += p.Length2 - p.Length1
			continue
		}
		failed = append(failed, span{start / runeBytes, (start + p.Length1) / runeBytes})
	}
	return []rune(text), failed
}

// seeds returns, for each failed patch, the override hunks inside it: the
// lines it meant to change (its span also holds context lines).
func seeds(failed []span, oh []hunk, size int) []span {
	var out []span
	for _, f := range failed {
		var r span
		found := false
		for _, h := range oh {
			if h.touches(f) {
				if !found {
					r, found = h.span, true
				}
				r.s, r.e = min(r.s, h.s), max(r.e, h.e)
			}
		}
		if !found { // not expected: the patch's span is always right
			r = span{max(f.s, 0), min(f.e, size)}
		}
		out = append(out, r)
	}
	return out
}

// closure widens the regions until every hunk of either side that touches
// one lies inside it, and joins regions that meet; sorted.
func closure(regions []span, oh, nh []hunk) []span {
	all := append(slices.Clone(oh), nh...)
	for changed := true; changed; {
		changed = false
		for i := range regions {
			for _, h := range all {
				if h.touches(regions[i]) && (h.s < regions[i].s || h.e > regions[i].e) {
					regions[i].s, regions[i].e = min(regions[i].s, h.s), max(regions[i].e, h.e)
					changed = true
				}
			}
		}
		slices.SortFunc(regions, func(a, b span) int { return a.s - b.s })
		for i := 0; i+1 < len(regions); i++ {
			if regions[i].e >= regions[i+1].s {
				regions[i].e = max(regions[i].e, regions[i+1].e)
				regions = slices.Delete(regions, i+1, i+2)
				i--
				changed = true
			}
		}
	}
	return regions
}

// project returns where base region r lies in a side whose changes are
// hs; every hunk of hs touching r lies inside it.
func project(hs []hunk, r span) (s, e int) {
	s, e = r.s, r.e
	for _, h := range hs {
		switch {
		case h.e < r.s:
			s += h.delta()
			e += h.delta()
		case h.s <= r.e:
			e += h.delta()
		}
	}
	return s, e
}

// settle makes each region the same text on all three sides: the
// override's lines when builtin did not touch the region or made the same
// change, else a conflict block. It returns the new sides.
func (c *codec) settle(regions []span, b, o, n []rune, oh, nh []hunk, marks *[]markers) (nb, no, nn []rune, err error) {
	pb, po, pn := 0, 0, 0
	for _, r := range regions {
		os, oe := project(oh, r)
		ns, ne := project(nh, r)
		nb = append(nb, b[pb:r.s]...)
		no = append(no, o[po:os]...)
		nn = append(nn, n[pn:ns]...)
		ours, theirs := o[os:oe], n[ns:ne]
		builtinMoved := slices.ContainsFunc(nh, func(h hunk) bool { return h.touches(r) })
		content := ours
		if builtinMoved && !slices.Equal(ours, theirs) {
			if content, err = c.block(ours, theirs, marks); err != nil {
				return nil, nil, nil, err
			}
		}
		nb = append(nb, content...)
		no = append(no, content...)
		nn = append(nn, content...)
		pb, po, pn = r.e, oe, ne
	}
	nb = append(nb, b[pb:]...)
	no = append(no, o[po:]...)
	nn = append(nn, n[pn:]...)
	return nb, no, nn, nil
}

// block writes a conflict: markers around both versions, each version
// ending with a newline so that the markers stay on lines of their own.
// The markers get codes of their own, so that result finds them even when
// a text has a line that reads like one.
func (c *codec) block(ours, theirs []rune, marks *[]markers) ([]rune, error) {
	var m markers
	var err error
	for i, text := range []string{MarkerOverride, MarkerSeparator, MarkerBuiltin} {
		if m[i], err = c.fresh(text + "\n"); err != nil {
			return nil, err
		}
	}
	*marks = append(*marks, m)
	out := []rune{m[0]}
	for i, side := range [][]rune{ours, theirs} {
		out = append(out, side...)
		if k := len(out) - 1; len(side) > 0 && !strings.HasSuffix(c.line(out[k]), "\n") {
			if out[k], err = c.code(c.line(out[k]) + "\n"); err != nil {
				return nil, err
			}
		}
		out = append(out, m[i+1])
	}
	return out, nil
}

// Conflicts finds the conflict blocks left in text (a merged text the
// operator may have edited): each "<<<<<<<" line, the lines up to
// "=======" and from there up to ">>>>>>>". An unclosed block runs to the
// end of the text.
func Conflicts(text string) []Conflict {
	var out []Conflict
	var cur *Conflict
	side := 0 // 1: override, 2: builtin
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimRight(line, " \t")
		switch {
		case strings.HasPrefix(trimmed, "<<<<<<<"):
			out = append(out, Conflict{Line: i + 1})
			cur, side = &out[len(out)-1], 1
		case cur != nil && side == 1 && trimmed == MarkerSeparator:
			side = 2
		case cur != nil && strings.HasPrefix(trimmed, ">>>>>>>"):
			cur, side = nil, 0
		case cur != nil && side == 1:
			cur.Override += line + "\n"
		case cur != nil && side == 2:
			cur.Builtin += line + "\n"
		}
	}
	return out
}
