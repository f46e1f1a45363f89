package state

import "context"

// FullRebuild is how a write updated the View before updates by key: the
// whole operator state read, and every text parsed again (the parses kept
// are dropped first). For the benchmark comparing both.
func (s *Served) FullRebuild(ctx context.Context) error {
	s.mu.Lock()
	s.parsed = nil
	s.mu.Unlock()
	return s.rebuild(ctx)
}

// UpdateOverride is the update of one write to the override of id in
// locale, as refresh makes it.
func (s *Served) UpdateOverride(ctx context.Context, id, locale string) error {
	return s.update(ctx, overrideKey(id, locale))
}

// UpdateProfile is the update of one write to the profile id, as refresh
// makes it.
func (s *Served) UpdateProfile(ctx context.Context, id string) error {
	return s.update(ctx, profileKey(id))
}
