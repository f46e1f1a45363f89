package web

import (
	"strings"
	"testing"
	"time"

	"github.com/promptdesk/promptdesk/assembler"
	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// A started server's own write costs one read of its key: its
// notification arrives and is skipped. Another process's writes are read
// by the key each notification names, with no full read either.
func TestOwnNotificationsSkippedOthersReadByKey(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	srv := startOn(t, dbURL, time.Hour)
	// Open's read, then the one after the listener's first LISTEN.
	eventually(t, 5*time.Second, "the listener's first reload", func() bool { return srv.served.Reads().Full >= 2 })
	before := srv.served.Reads()

	lib, _ := library.Builtin()
	m, _ := lib.Module("base.identity", "en-US")
	ctx := domain.WithActor(t.Context(), "tester")
	start := time.Now()
	out, err := srv.overrides.Save(ctx, state.Edit{ID: "base.identity", Locale: "en-US", Text: strings.TrimRight(m.Text, "\n") + "\n\nOwn marker.\n"})
	if err != nil || out.Kind != state.OutcomeStored {
		t.Fatalf("save: %v %+v", err, out)
	}
	if got := srv.served.Reads(); got.Full != before.Full || got.Keys != before.Keys+1 {
		t.Fatalf("reads after the save %+v, before %+v: want one read by key", got, before)
	}
	eventually(t, 5*time.Second, "the save's own notification", func() bool { return srv.served.LastNotification().After(start) })
	time.Sleep(50 * time.Millisecond) // time for a wrongly queued read to start
	if got := srv.served.Reads(); got.Full != before.Full || got.Keys != before.Keys+1 {
		t.Errorf("reads after the save's own notification %+v, before %+v: want it skipped", got, before)
	}

	other, err := store.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	if _, err := other.Publish(ctx, "base.identity", "en-US", out.Saved.Revision); err != nil {
		t.Fatal(err)
	}
	key := assembler.Key("base.identity", "en-US")
	eventually(t, 5*time.Second, "the other process's publish served", func() bool {
		o, _ := srv.served.Current().State.Overrides.Get(key)
		return o != nil && strings.Contains(o.Module.Text, "Own marker.")
	})
	if _, err := other.CreateProfile(ctx, domain.Profile{ID: "ops", Name: "Ops", Locale: "en-US"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the other process's profile served", func() bool {
		return srv.served.Current().State.Profiles["ops"] != nil
	})
	if got := srv.served.Reads(); got.Full != before.Full || got.Keys != before.Keys+3 {
		t.Errorf("reads %+v, before %+v: want three reads by key (the save, the publish, the profile) and no full read", got, before)
	}
}
