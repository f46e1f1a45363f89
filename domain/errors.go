package domain

import "errors"

// ErrUnavailable marks an error of a database that cannot be reached (no
// connection, a connection lost, the server shutting down, a timeout
// waiting for it), as opposed to an answer of the database: the request
// may succeed when retried later. The store marks every such error with
// it, so callers test errors.Is(err, ErrUnavailable).
var ErrUnavailable = errors.New("the database is unreachable")

// ErrResources marks an error of a database that is up but refused a
// statement for want of resources (SQLSTATE class 53: a full disk, no
// memory left, too many connections): the request may succeed once an
// operator frees them. A ResourceError matches it.
var ErrResources = errors.New("the database is out of resources")

// ResourceError is a statement the database refused for want of
// resources: Cause names the class in words ("disk full", "out of
// memory", "too many connections", "insufficient resources") and Code is
// the SQLSTATE (53100, 53200, 53300, or another of class 53). It matches
// ErrResources.
type ResourceError struct {
	Cause, Code string
}

func (e *ResourceError) Error() string {
	return "the database is out of resources: " + e.Cause + " (SQLSTATE " + e.Code + ")"
}

// Unwrap makes a ResourceError match ErrResources.
func (e *ResourceError) Unwrap() error { return ErrResources }

// ErrNotConfigured is the kind of error of a request the server cannot
// do as it was started: a setting it needs was not given (say, the key
// that webhook secrets are encrypted with). Nothing was changed.
var ErrNotConfigured = errors.New("the server is not configured for this")
