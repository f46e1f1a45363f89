package state_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/promptdesk/promptdesk/domain"
	"github.com/promptdesk/promptdesk/library"
	"github.com/promptdesk/promptdesk/state"
	"github.com/promptdesk/promptdesk/store"
	"github.com/promptdesk/promptdesk/store/storetest"
)

// testPassword is the password of every account these tests create.
const testPassword = "correct horse battery"

// countingStore is the store with its password comparisons counted.
type countingStore struct {
	*store.Store
	checks atomic.Int64
}

func (c *countingStore) CheckLogin(ctx context.Context, name, password string) (domain.User, error) {
	c.checks.Add(1)
	return c.Store.CheckLogin(ctx, name, password)
}

// newAccounts is Accounts over a fresh database, with the admin's actor.
func newAccounts(t *testing.T) (*state.Accounts, *countingStore, context.Context) {
	t.Helper()
	st, err := store.Open(context.Background(), storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	cs := &countingStore{Store: st}
	return &state.Accounts{Store: cs}, cs, domain.WithActor(context.Background(), "admin")
}

// addUser creates the account name with role and testPassword through a
// setup link.
func addUser(t *testing.T, a *state.Accounts, ctx context.Context, name, role string) domain.User {
	t.Helper()
	secret, err := a.Invite(ctx, name, role)
	if err != nil {
		t.Fatal(err)
	}
	u, err := a.CompleteSetup(ctx, secret, "", testPassword, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestLoginThrottleHoldsUnderParallelAttempts: 100 wrong passwords for
// one name sent at once compare LoginMaxFailuresPerAccount passwords;
// every other attempt is refused as throttled without a comparison, and
// then even the right password is refused.
func TestLoginThrottleHoldsUnderParallelAttempts(t *testing.T) {
	t.Parallel()
	a, cs, ctx := newAccounts(t)
	addUser(t, a, ctx, "alice", domain.RoleEditor)
	const attempts = 100
	var failed, throttled, other atomic.Int64
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range attempts {
		wg.Go(func() {
			<-start
			_, err := a.Login(context.Background(), "alice", "wrong password!", "192.0.2.1")
			switch {
			case errors.Is(err, domain.ErrLoginThrottled):
				throttled.Add(1)
			case errors.Is(err, domain.ErrLoginFailed):
				failed.Add(1)
			default:
				other.Add(1)
				t.Errorf("login: %v, want failed or throttled", err)
			}
		})
	}
	close(start)
	wg.Wait()
	checks := cs.checks.Load()
	t.Logf("%d attempts at once: %d password checks, %d failed, %d throttled", attempts, checks, failed.Load(), throttled.Load())
	if checks != state.LoginMaxFailuresPerAccount || failed.Load() != state.LoginMaxFailuresPerAccount ||
		throttled.Load() != attempts-state.LoginMaxFailuresPerAccount {
		t.Errorf("%d password checks, %d failed, %d throttled; want %d, %d, %d", checks, failed.Load(), throttled.Load(),
			state.LoginMaxFailuresPerAccount, state.LoginMaxFailuresPerAccount, attempts-state.LoginMaxFailuresPerAccount)
	}
	_, err := a.Login(context.Background(), "ALICE", testPassword, "198.51.100.7")
	if !errors.Is(err, domain.ErrLoginThrottled) || !strings.Contains(err.Error(), "wait 15 minutes") {
		t.Errorf("the right password after the failures: %v, want throttled, saying to wait 15 minutes", err)
	}
	if checks := cs.checks.Load(); checks != state.LoginMaxFailuresPerAccount {
		t.Errorf("after the throttled right password: %d password checks, want %d", checks, state.LoginMaxFailuresPerAccount)
	}
	entries, err := cs.ListAudit(context.Background(), domain.AuditFilter{Subject: domain.SubjectUser, SubjectID: "alice", Action: domain.ActionLoginFailed})
	if err != nil || len(entries) != state.LoginMaxFailuresPerAccount {
		t.Errorf("audited failures: %d (%v), want %d", len(entries), err, state.LoginMaxFailuresPerAccount)
	}
}

// TestLoginThrottlePerAddress: failures for many names from one address
// throttle that address for every name, and not another address.
func TestLoginThrottlePerAddress(t *testing.T) {
	t.Parallel()
	a, cs, ctx := newAccounts(t)
	addUser(t, a, ctx, "bob", domain.RoleViewer)
	for i := range state.LoginMaxFailuresPerAddress {
		if _, err := a.Login(ctx, "ghost"+strings.Repeat("x", i), "wrong password!", "192.0.2.9"); !errors.Is(err, domain.ErrLoginFailed) {
			t.Fatalf("failure %d: %v, want the login failed", i, err)
		}
	}
	if _, err := a.Login(ctx, "bob", testPassword, "192.0.2.9"); !errors.Is(err, domain.ErrLoginThrottled) {
		t.Errorf("bob from the throttled address: %v, want throttled", err)
	}
	u, err := a.Login(ctx, "bob", testPassword, "192.0.2.10")
	if err != nil || u.Name != "bob" {
		t.Errorf("bob from another address: %+v %v, want logged in", u, err)
	}
	if n := cs.checks.Load(); n != state.LoginMaxFailuresPerAddress+1 {
		t.Errorf("%d password checks, want %d", n, state.LoginMaxFailuresPerAddress+1)
	}
}

// TestChangePasswordCountsAsLogin: a wrong current password is a failed
// login of the account; at the limit even the right one is refused
// without a comparison, and so is a login.
func TestChangePasswordCountsAsLogin(t *testing.T) {
	t.Parallel()
	a, cs, ctx := newAccounts(t)
	erin := addUser(t, a, ctx, "erin", domain.RoleViewer)
	if _, err := a.ChangePassword(ctx, erin, testPassword, "a brand new password", "another new password", "192.0.2.1"); !errors.Is(err, state.ErrPasswordsDiffer) {
		t.Errorf("new passwords differing: %v, want ErrPasswordsDiffer", err)
	}
	for i := range state.LoginMaxFailuresPerAccount {
		if _, err := a.ChangePassword(ctx, erin, "wrong password!", "a brand new password", "a brand new password", "192.0.2.1"); !errors.Is(err, domain.ErrLoginFailed) {
			t.Fatalf("wrong current password %d: %v, want ErrLoginFailed", i, err)
		}
	}
	if _, err := a.ChangePassword(ctx, erin, testPassword, "a brand new password", "a brand new password", "192.0.2.1"); !errors.Is(err, domain.ErrLoginThrottled) {
		t.Errorf("right current password at the limit: %v, want throttled", err)
	}
	if _, err := a.Login(ctx, "erin", testPassword, "192.0.2.2"); !errors.Is(err, domain.ErrLoginThrottled) {
		t.Errorf("login at the limit: %v, want throttled", err)
	}
	if n := cs.checks.Load(); n != state.LoginMaxFailuresPerAccount+1 {
		t.Errorf("%d password checks, want %d", n, state.LoginMaxFailuresPerAccount+1)
	}
}

// TestAdminChangesOthersOnly: an admin's change of their own role or
// status is refused (ErrOwnAccount) whatever the name's case; two admins
// demoting each other at once leave one admin (ErrLastAdmin for the
// other change).
func TestAdminChangesOthersOnly(t *testing.T) {
	t.Parallel()
	a, _, ctx := newAccounts(t)
	ann := addUser(t, a, ctx, "ann", domain.RoleAdmin)
	ben := addUser(t, a, ctx, "ben", domain.RoleAdmin)
	if _, err := a.SetRole(ctx, ann, "ANN", domain.RoleViewer); !errors.Is(err, domain.ErrOwnAccount) || !errors.Is(err, library.ErrConflict) {
		t.Errorf("ann demoting ANN: %v, want ErrOwnAccount, a conflict", err)
	}
	if _, err := a.SetDisabled(ctx, ann, "ann", true); !errors.Is(err, domain.ErrOwnAccount) {
		t.Errorf("ann disabling herself: %v, want ErrOwnAccount", err)
	}
	if _, err := a.SetRole(ctx, ann, "nobody", domain.RoleViewer); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("unknown name: %v, want not found", err)
	}

	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Go(func() { _, errs[0] = a.SetRole(ctx, ann, "ben", domain.RoleEditor) })
	wg.Go(func() { _, errs[1] = a.SetDisabled(ctx, ben, "ann", true) })
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errors.Join(errs...), domain.ErrLastAdmin) {
		t.Errorf("admins demoting each other at once: %v, %v; want one done, the other ErrLastAdmin", errs[0], errs[1])
	}
	users, err := a.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	admins := 0
	for _, u := range users {
		if u.Role == domain.RoleAdmin && !u.Disabled {
			admins++
		}
	}
	if admins != 1 {
		t.Errorf("enabled admins after the changes: %d, want 1 (%+v)", admins, users)
	}
}

// TestFirstAdminLink: on an empty database one link is issued; asked
// again, the pending one is reported; once an account exists, nothing.
func TestFirstAdminLink(t *testing.T) {
	t.Parallel()
	a, _, ctx := newAccounts(t)
	secret, pending, err := a.FirstAdminLink(ctx)
	if err != nil || secret == "" || pending != nil {
		t.Fatalf("first call: %q %+v %v, want a secret", secret, pending, err)
	}
	again, pending, err := a.FirstAdminLink(ctx)
	if err != nil || again != "" || pending == nil || pending.CreatedBy != state.FirstAdminIssuer {
		t.Errorf("second call: %q %+v %v, want the pending link issued by %s", again, pending, err, state.FirstAdminIssuer)
	}
	if _, err := a.CompleteSetup(ctx, secret, "root", testPassword, testPassword); err != nil {
		t.Fatal(err)
	}
	if s, p, err := a.FirstAdminLink(ctx); s != "" || p != nil || err != nil {
		t.Errorf("with an account: %q %+v %v, want nothing", s, p, err)
	}
}
