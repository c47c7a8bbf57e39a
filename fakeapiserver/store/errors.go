package store

import "errors"

// Sentinel errors. Every method returns them wrapped with %w and the
// operation's context (resource, key, RVs involved); test for them with
// [errors.Is].
var (
	// ErrNotFound means the key is not live at the RV read (or, for writes,
	// not live now).
	ErrNotFound = errors.New("store: key not found")
	// ErrAlreadyExists means Create found the key live.
	ErrAlreadyExists = errors.New("store: key already exists")
	// ErrConflict means a write's expected RV differs from the live object's RV.
	ErrConflict = errors.New("store: resourceVersion precondition failed")
	// ErrCompacted means the requested RV is below [Store.CompactedRV].
	ErrCompacted = errors.New("store: required resourceVersion has been compacted")
	// ErrFutureRV means the requested RV is above [Store.CurrentRV].
	ErrFutureRV = errors.New("store: resourceVersion is newer than the store")
)
