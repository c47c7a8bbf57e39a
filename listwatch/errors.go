package listwatch

import "errors"

var (
	// ErrInvalidResourceVersion: the server sent a resourceVersion that is
	// not a decimal uint64.
	ErrInvalidResourceVersion = errors.New("listwatch: invalid resourceVersion")
	// ErrListWentBackwards: a LIST returned a snapshot older than the RV the
	// client already holds. A consistent LIST (RV "") never does that, so
	// the client refuses the list and retries after a backoff.
	ErrListWentBackwards = errors.New("listwatch: list resourceVersion is older than the client's")
	// ErrNoInitialEventsEnd: a watch-list stream ended before its
	// k8s.io/initial-events-end bookmark.
	ErrNoInitialEventsEnd = errors.New("listwatch: watch-list ended before the initial-events-end bookmark")
	// ErrWatchListRefused: the server refused a watch-list request (4xx).
	ErrWatchListRefused = errors.New("listwatch: server refused watch-list")
)
