// Package migrations holds the numbered SQL schema files (NNNN_name.up.sql /
// .down.sql), embedded in the binary, and applies them with golang-migrate
// at start.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"

	"github.com/golang-migrate/migrate/v4"
	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx/v5" database/sql driver
)

//go:embed *.sql
var files embed.FS

// Up applies every pending migration to the database at databaseURL (any
// pgx connection string: URL or keyword=value form). A schema already up to
// date is success. golang-migrate holds a Postgres advisory lock while it
// works, so processes starting together are safe. Errors name the
// failing step; a half-applied migration leaves the schema dirty and every
// later call fails until an operator fixes it.
func Up(ctx context.Context, databaseURL string) error {
	return run(ctx, databaseURL, "up", (*migrate.Migrate).Up)
}

// Down reverts every migration, dropping all tables; for tests. Errors as Up.
func Down(ctx context.Context, databaseURL string) error {
	return run(ctx, databaseURL, "down", (*migrate.Migrate).Down)
}

func run(ctx context.Context, databaseURL, direction string, step func(*migrate.Migrate) error) (err error) {
	// An open *sql.DB instead of the driver's own URL parsing (which wants a
	// pgx5:// URL) accepts every form pgx does, keyword=value included.
	db, err := sql.Open("pgx/v5", databaseURL)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", direction, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return fmt.Errorf("migrate %s: connect: %w", direction, err)
	}
	driver, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	if err != nil {
		db.Close()
		return fmt.Errorf("migrate %s: %w", direction, err)
	}
	src, err := iofs.New(files, ".")
	if err != nil {
		driver.Close()
		return fmt.Errorf("migrate %s: %w", direction, err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", driver)
	if err != nil {
		src.Close()
		driver.Close()
		return fmt.Errorf("migrate %s: %w", direction, err)
	}
	defer func() {
		srcErr, dbErr := m.Close()
		if err == nil {
			err = errors.Join(srcErr, dbErr)
		}
	}()

	// golang-migrate takes no context; it stops between files when asked.
	stop := context.AfterFunc(ctx, func() { m.GracefulStop <- true })
	defer stop()

	if err := step(m); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("migrate %s: %w", direction, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("migrate %s: %w", direction, err)
	}
	return nil
}
