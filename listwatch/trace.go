package listwatch

import (
	"fmt"
	"strings"
	"time"
)

// TraceKind names one kind of decision in a [TraceEvent].
type TraceKind string

// The decisions a [Client] reports. Each TraceEvent's RV is the client's
// resourceVersion right after the decision.
const (
	// TracePage: one LIST page arrived (Items, Continue, ListRV set).
	TracePage TraceKind = "page"
	// TraceFullList: a continue token expired, so the pager re-listed in
	// full (client-go pager's FullListIfExpired).
	TraceFullList TraceKind = "full-list"
	// TraceListed: a LIST or watch-list completed and was diffed into the
	// store; Items is the number of objects, ListRV the snapshot's RV.
	TraceListed TraceKind = "listed"
	// TraceSynced: the first list is in the store; HasSynced is now true.
	TraceSynced TraceKind = "synced"
	// TraceWatchStart: a watch was requested from RV.
	TraceWatchStart TraceKind = "watch-start"
	// TraceWatchEnd: a watch ended; Reason says how, Err holds the error.
	TraceWatchEnd TraceKind = "watch-end"
	// TraceApplied: one event changed the store and was handed to the
	// handler (EventType, Key, ObjectRV).
	TraceApplied TraceKind = "applied"
	// TraceSkipped: one event was not applied; Reason says why.
	TraceSkipped TraceKind = "skipped"
	// TraceBookmark: a bookmark advanced the client's RV.
	TraceBookmark TraceKind = "bookmark"
	// TraceRelist: the client will list again; Reason says why.
	TraceRelist TraceKind = "relist"
	// TraceBackoff: the client waits Delay before its next request.
	TraceBackoff TraceKind = "backoff"
	// TraceFallback: the server refused watch-list; LIST+WATCH from now on.
	TraceFallback TraceKind = "watch-list-fallback"
	// TraceListError: a LIST (or watch-list) failed with Err.
	TraceListError TraceKind = "list-error"
)

// TraceEvent is one decision of a [Client], for the trace sink in
// [Options.Trace]; `lw-sim explain` prints them. Fields that do not apply to
// a Kind are zero.
type TraceEvent struct {
	Kind TraceKind
	// Time is when the decision was made, on the client's clock.
	Time time.Time
	// RV is the client's resourceVersion after the decision.
	RV string
	// ListRV is the RV of a list snapshot (TracePage, TraceListed).
	ListRV string
	// EventType is the watch event type (ADDED, ..., or a relist diff's
	// ADDED/MODIFIED/DELETED) of TraceApplied and TraceSkipped.
	EventType string
	// Key and ObjectRV identify the object of TraceApplied/TraceSkipped.
	Key      string
	ObjectRV string
	// Items counts list items (TracePage, TraceListed).
	Items int
	// Continue is set on a TracePage that has more pages after it.
	Continue bool
	// Delay is the wait of a TraceBackoff.
	Delay time.Duration
	// Reason explains the decision in a few words.
	Reason string
	// Err is the error behind the decision, if any.
	Err error
}

// String renders e on one line, as `lw-sim explain` would print it.
func (e TraceEvent) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s rv=%s", e.Kind, e.RV)
	add := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%s", k, v)
		}
	}
	add("listRV", e.ListRV)
	add("type", e.EventType)
	add("key", e.Key)
	add("objectRV", e.ObjectRV)
	if e.Kind == TracePage || e.Kind == TraceListed {
		fmt.Fprintf(&b, " items=%d", e.Items)
	}
	if e.Continue {
		b.WriteString(" continue")
	}
	if e.Delay != 0 {
		add("delay", e.Delay.String())
	}
	add("reason", e.Reason)
	if e.Err != nil {
		add("err", e.Err.Error())
	}
	return b.String()
}
