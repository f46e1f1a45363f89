package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/store"
)

// PublishOverrides publishes n overrides through st, for benchmarks of
// how costs grow with them: one per module of lib in en-US (its text with
// a line added; task.summarize first), then generated user modules
// aux.user-NNNNN of a few hundred bytes, one in ten including the one
// before it. Errors: the store's.
func PublishOverrides(ctx context.Context, st *store.Store, lib *library.Snapshot, n int) error {
	i := 0
	ids := append([]string{"task.summarize"}, slices.DeleteFunc(slices.Clone(lib.IDs()), func(id string) bool { return id == "task.summarize" })...)
	for _, id := range ids {
		if i == n {
			return nil
		}
		m, ok := lib.Module(id, "en-US")
		if !ok {
			continue
		}
		o := domain.Override{ModuleID: id, Locale: "en-US", Text: strings.TrimRight(m.Text, "\n") + "\n\nAnswer briefly.\n", Title: m.Title,
			Version: m.Version, BasedOnVersion: m.Version, BaseSnapshot: m.Text, BaseHash: domain.TextHash(m.Text), Publish: true}
		if _, err := st.SaveOverride(ctx, o, 0); err != nil {
			return err
		}
		i++
	}
	for ; i < n; i++ {
		id := fmt.Sprintf("aux.user-%05d", i)
		var body strings.Builder
		for p := range 3 {
			fmt.Fprintf(&body, "Paragraph %d of module %d: the assistant reads the request, checks every figure against the documents and answers in the user's language.\n\n", p, i)
		}
		if i%10 == 0 {
			fmt.Fprintf(&body, "{{aux.user-%05d}}\n", i-1)
		}
		text := fmt.Sprintf("---\nid: %s\nlayer: aux\nversion: %d\ntitle: Generated module %d\ndescription: A generated user module, number %d\n---\n%s", id, 2+i%4, i, i, body.String())
		if _, err := st.SaveOverride(ctx, domain.Override{ModuleID: id, Locale: "en-US", Text: text, Title: fmt.Sprintf("Generated module %d", i), Version: 2 + i%4, Publish: true}, 0); err != nil {
			return err
		}
	}
	return nil
}
