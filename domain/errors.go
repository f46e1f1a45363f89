package domain

import "errors"

// ErrUnavailable marks an error of a database that cannot be reached (no
// connection, a connection lost, the server shutting down, a timeout
// waiting for it), as opposed to an answer of the database: the request
// may succeed when retried later. The store marks every such error with
// it, so callers test errors.Is(err, ErrUnavailable).
var ErrUnavailable = errors.New("the database is unreachable")
