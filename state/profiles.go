package state

import (
	"context"

	"github.com/promptdesk/promptdesk/store"
)

// ProfileStore is what Profiles needs from the store.
type ProfileStore interface {
	CreateProfile(ctx context.Context, p store.Profile) (store.Profile, error)
	UpdateProfile(ctx context.Context, p store.Profile) (store.Profile, error)
	DeleteProfile(ctx context.Context, id string) error
}

// Profiles writes assembly profiles and refreshes Served after each
// write, since assembly reads profiles from the View.
type Profiles struct {
	Store  ProfileStore
	Served *Served
}

// Create stores a new profile. Errors are the store's (library.ErrConflict
// when the id is taken).
func (s *Profiles) Create(ctx context.Context, p store.Profile) (store.Profile, error) {
	saved, err := s.Store.CreateProfile(ctx, p)
	if err != nil {
		return store.Profile{}, err
	}
	return saved, s.Served.refresh(ctx, "profile created")
}

// Update replaces a profile. Errors are the store's (library.ErrNotFound).
func (s *Profiles) Update(ctx context.Context, p store.Profile) (store.Profile, error) {
	saved, err := s.Store.UpdateProfile(ctx, p)
	if err != nil {
		return store.Profile{}, err
	}
	return saved, s.Served.refresh(ctx, "profile updated")
}

// Delete removes a profile. Errors are the store's (library.ErrNotFound).
func (s *Profiles) Delete(ctx context.Context, id string) error {
	if err := s.Store.DeleteProfile(ctx, id); err != nil {
		return err
	}
	return s.Served.refresh(ctx, "profile deleted")
}
