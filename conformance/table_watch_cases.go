package conformance

// Cases for watches in the Table form (kubectl get -w, the e2e watchlist
// "Table format" spec): handlers/watch.go's embedded encoder converts every
// event but an ERROR (bookmarks included), sends the column definitions
// with the first event only, and computes the rows when it sends them.

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tableWatchCases are the cases of this file, in the order [Cases] runs them.
func tableWatchCases() []Case {
	return []Case{
		{Name: "TableWatchList", Run: runTableWatchList},
		{Name: "TableWatchEmptyList", Run: runTableWatchEmptyList},
		{Name: "TableWatchAge", Run: runTableWatchAge, Exclusive: true},
	}
}

// secret is an Opaque Secret body with one data key; its type is given,
// so the Table does not depend on the type's defaulting.
func secret(name string) object {
	return object{"apiVersion": "v1", "kind": "Secret", "metadata": object{"name": name, "labels": object{"watchlist": "true"}},
		"type": "Opaque", "data": object{"k": "dg=="}}
}

// blankAge returns a decoded Table with each row's Age cell set to nil
// (the e2e spec's removeAgeColumnValueAtIndex).
func blankAge(table object) object {
	age := -1
	cols, _ := table["columnDefinitions"].([]any)
	for i, c := range cols {
		if c.(object)["name"] == "Age" {
			age = i
		}
	}
	if age < 0 {
		age = 3 // a Secret's, for an event without its column definitions
	}
	rows, _ := table["rows"].([]any)
	for _, r := range rows {
		cells := r.(object)["cells"].([]any)
		if age < len(cells) {
			cells[age] = nil
		}
	}
	return table
}

// runTableWatchList: a watch-list of Secrets as Tables sends each object
// as the Table its GET answers, column definitions in the first event
// only (null after), and ends its initial events with a BOOKMARK Table of
// one row printed from the empty bookmark object, the row's object the
// annotated PartialObjectMetadata (even with includeObject=None), or the
// bookmark Secret itself with includeObject=Object.
func runTableWatchList(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	secrets := nsPath(e.ns, "secrets")
	for _, name := range []string{"a", "b", "c"} {
		e.createAt(ctx, secrets, secret(name), "create secret "+name)
	}
	e.catchUpCache(ctx)
	for _, include := range []string{"", "None", "Object"} {
		query := q("sendInitialEvents", "true", "resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true", "labelSelector", "watchlist=true")
		if include != "" {
			query.Set("includeObject", include)
		}
		w := e.c.watch(ctx, t, request{Path: secrets, Accept: tableAccept, Query: query})
		evs := w.takeN(ctx, 4, "watch-list as Table, includeObject="+include)
		w.stop()
		if diff := cmp.Diff([]string{"ADDED", "ADDED", "ADDED", "BOOKMARK"}, eventTypes(evs)); diff != "" {
			t.Fatalf("includeObject=%s: event types (-want +got):\n%s", include, diff)
		}
		for i, ev := range evs[:3] {
			getQuery := q()
			if include != "" {
				getQuery.Set("includeObject", include)
			}
			var want object
			r := e.c.do(ctx, t, request{Path: secrets + "/" + []string{"a", "b", "c"}[i], Accept: tableAccept, Query: getQuery})
			r.mustCode(t, http.StatusOK, "get secret as Table")
			r.decode(t, &want)
			if i > 0 {
				want["columnDefinitions"] = nil
			}
			if diff := cmp.Diff(blankAge(want), blankAge(ev.Object)); diff != "" {
				t.Errorf("includeObject=%s: event %d differs from the GET's Table (-get +event):\n%s", include, i, diff)
			}
		}
		checkTableEndBookmark(t, evs[3].Object, include)
	}
}

// checkTableEndBookmark checks the Table that ends a watch-list's
// initial events.
func checkTableEndBookmark(t *testing.T, table object, include string) {
	t.Helper()
	rv := metaOf(table)["resourceVersion"]
	embedded := object{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
		"metadata": object{"resourceVersion": rv, "annotations": object{initialEventsEnd: "true"}}}
	if include == "Object" {
		embedded["kind"], embedded["apiVersion"] = "Secret", "v1"
	}
	want := object{"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": object{"resourceVersion": rv}, "columnDefinitions": nil,
		"rows": []any{object{"cells": []any{"", "", float64(0), "<unknown>"}, "object": embedded}}}
	if diff := cmp.Diff(want, table); diff != "" {
		t.Errorf("includeObject=%s: end bookmark (-want +got):\n%s", include, diff)
	}
}

// runTableWatchEmptyList: the end bookmark of an empty watch-list is its
// first event, so it carries the column definitions.
func runTableWatchEmptyList(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	w := e.c.watch(ctx, t, request{Path: nsPath(e.ns, "secrets"), Accept: tableAccept,
		Query: q("sendInitialEvents", "true", "resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true", "labelSelector", "watchlist=true")})
	ev := w.mustNext(ctx, "empty watch-list as Table")
	cols, _ := ev.Object["columnDefinitions"].([]any)
	rows, _ := ev.Object["rows"].([]any)
	if ev.Type != "BOOKMARK" || ev.Object["kind"] != "Table" || len(cols) != 4 || len(rows) != 1 {
		t.Errorf("first event %s %v; want a BOOKMARK Table with the 4 Secret columns and one row", ev.Type, ev.Object)
	}
}

// runTableWatchAge: the Age cell of a Table event is computed when the
// event is sent: a watch replaying an object 3 s after another watch was
// sent it shows it at least 3 s old.
//
// Exclusive: on the fake it moves the clock.
func runTableWatchAge(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	before := itoa(e.currentRV(ctx))
	e.create(ctx, "a", nil)
	path := request{Path: e.cms(), Accept: tableAccept, Query: q("resourceVersion", before)}
	first := e.c.watch(ctx, t, path).mustNext(ctx, "first Table watch")
	wait(ctx, target, 3*time.Second, func() bool { return false })
	later := e.c.watch(ctx, t, path).mustNext(ctx, "later Table watch")
	firstAge, laterAge := ageCell(t, first.Object), ageCell(t, later.Object)
	if firstAge >= 3*time.Second || laterAge < 3*time.Second {
		t.Errorf("ages %v then %v 3 s later; want under 3 s, then at least 3 s", firstAge, laterAge)
	}
}

// ageCell parses the Age cell (a ConfigMap's third) of a one-row Table.
func ageCell(t *testing.T, table object) time.Duration {
	t.Helper()
	rows, _ := table["rows"].([]any)
	if len(rows) != 1 {
		t.Fatalf("Table %v, want one row", table)
	}
	cells := rows[0].(object)["cells"].([]any)
	s, _ := cells[len(cells)-1].(string)
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("Age cell %q: %v", s, err)
	}
	return d
}
