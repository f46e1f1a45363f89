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
	"strings"

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
// later call fails until an operator fixes it. Data a migration cannot
// take (ErrUserNamesDifferInCase) is refused before anything is applied,
// so the schema stays clean and Up works once the data is fixed.
func Up(ctx context.Context, databaseURL string) error {
	return run(ctx, databaseURL, "up", func(m *migrate.Migrate, db *sql.DB) error {
		if err := namesUniqueIgnoringCase(ctx, m, db); err != nil {
			return err
		}
		return m.Up()
	})
}

// versionUsersIgnoringCase is the migration making user names unique
// ignoring case.
const versionUsersIgnoringCase = 8

// ErrUserNamesDifferInCase is the error of Up when user names that differ
// only in case exist, which the unique index on lower(name) cannot take.
var ErrUserNamesDifferInCase = errors.New("user names must be unique ignoring case")

// namesUniqueIgnoringCase refuses a schema below
// versionUsersIgnoringCase whose users table holds names differing only
// in case, naming them all and how to fix it.
func namesUniqueIgnoringCase(ctx context.Context, m *migrate.Migrate, db *sql.DB) error {
	version, dirty, err := m.Version()
	if errors.Is(err, migrate.ErrNilVersion) || err == nil && (dirty || version >= versionUsersIgnoringCase || version < 5) {
		return nil // users comes with 0005; a dirty schema fails in Up with its own message
	} else if err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, `SELECT string_agg(name, ', ' ORDER BY name COLLATE "C") FROM users
		GROUP BY lower(name) HAVING count(*) > 1 ORDER BY lower(name) COLLATE "C"`)
	if err != nil {
		return fmt.Errorf("checking user names: %w", err)
	}
	defer rows.Close()
	var groups []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return fmt.Errorf("checking user names: %w", err)
		}
		groups = append(groups, "("+g+")")
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("checking user names: %w", err)
	}
	if len(groups) == 0 {
		return nil
	}
	return fmt.Errorf("%w, and these accounts differ only in case: %s; rename all but one of each "+
		"(psql: UPDATE users SET name = 'new-name' WHERE name = 'old-name';) and start again; nothing was changed",
		ErrUserNamesDifferInCase, strings.Join(groups, " "))
}

// Down reverts every migration, dropping all tables; for tests. Errors as Up.
func Down(ctx context.Context, databaseURL string) error {
	return run(ctx, databaseURL, "down", func(m *migrate.Migrate, _ *sql.DB) error { return m.Down() })
}

func run(ctx context.Context, databaseURL, direction string, step func(*migrate.Migrate, *sql.DB) error) (err error) {
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

	if err := step(m, db); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("migrate %s: %w", direction, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("migrate %s: %w", direction, err)
	}
	return nil
}
