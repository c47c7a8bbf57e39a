package fakeapiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// openTableWatch opens a JSON watch of path (query included) as Tables.
func (b *bubble) openTableWatch(t *testing.T, path string) *rawWatch {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.srv.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", tableAccept)
	return b.openWatchRequest(t, req)
}

// tableOf decodes an event's Table.
func tableOfEvent(t *testing.T, ev rawEvent) metav1.Table {
	t.Helper()
	var table metav1.Table
	if err := json.Unmarshal(ev.Object, &table); err != nil {
		t.Fatalf("%s event object %s: %v", ev.Type, ev.Object, err)
	}
	if table.Kind != "Table" {
		t.Fatalf("%s event object is a %q, want a Table: %s", ev.Type, table.Kind, ev.Object)
	}
	return table
}

// TestTableWatchListFraming: a watch-list of Tables (kubectl get -w,
// the e2e watchlist "Table format" spec) sends the column definitions with
// its first event only, each event equal to the GET Table of its object
// otherwise, and ends its initial events with a Table bookmark whose one
// row embeds the annotated PartialObjectMetadata, as handlers/watch.go and
// asTable write them.
func TestTableWatchListFraming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		for _, name := range []string{"s1", "s2", "s3"} {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: map[string]string{"k": "v"}}
			if _, err := b.cs.CoreV1().Secrets("default").Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		w := b.openTableWatch(t, "/api/v1/namespaces/default/secrets?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=30")
		synctest.Wait()
		evs := w.snapshot()
		if got := eventTypesOf(evs); !cmp.Equal(got, []string{"ADDED", "ADDED", "ADDED", "BOOKMARK"}) {
			t.Fatalf("event types %v, want three ADDED and the BOOKMARK", got)
		}
		for i, ev := range evs[:3] {
			got := tableOfEvent(t, ev)
			want := b.getTable(t, "/api/v1/namespaces/default/secrets/"+got.Rows[0].Cells[0].(string))
			if i > 0 {
				want.ColumnDefinitions = nil
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("event %d: Table differs from the GET's (-get +event):\n%s", i, diff)
			}
		}
		end := tableOfEvent(t, evs[3])
		wantCells := []any{"", "", float64(0), "<unknown>"}
		if end.ColumnDefinitions != nil || len(end.Rows) != 1 || !cmp.Equal(wantCells, end.Rows[0].Cells) {
			t.Fatalf("end bookmark Table: columns %v, rows %+v; want no columns and one row %v", end.ColumnDefinitions, end.Rows, wantCells)
		}
		var partial metav1.PartialObjectMetadata
		if err := json.Unmarshal(end.Rows[0].Object.Raw, &partial); err != nil {
			t.Fatal(err)
		}
		if partial.Kind != "PartialObjectMetadata" || partial.Annotations[metav1.InitialEventsAnnotationKey] != "true" || partial.ResourceVersion != end.ResourceVersion {
			t.Errorf("end bookmark row object %s, want the annotated PartialObjectMetadata at the Table's RV %s", end.Rows[0].Object.Raw, end.ResourceVersion)
		}
	})
}

// TestTableWatchAgeAtSend: a Table event's Age is computed when it is sent,
// on the server's clock, not when it was first encoded: a watch replaying
// an object 90 s after another watch was sent it shows it 90 s older,
// while watchers sent an event in the same second share one encoding.
func TestTableWatchAgeAtSend(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		before := b.currentRV()
		b.mustCreate(t, configMap("default", "a", "1", nil))
		path := "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + before + "&timeoutSeconds=600"
		first := b.openTableWatch(t, path)
		synctest.Wait()
		time.Sleep(90 * time.Second)
		replay := b.openTableWatch(t, path)
		synctest.Wait()
		if got := ageCells(t, first.snapshot()); !cmp.Equal(got, []string{"0s"}) {
			t.Errorf("first watch ages %v, want [0s]", got)
		}
		if got := ageCells(t, replay.snapshot()); !cmp.Equal(got, []string{"90s"}) {
			t.Errorf("replaying watch ages %v, want [90s]: the age must be computed at send time", got)
		}
		encodings := b.srv.WatchStats().Encodings
		b.mustCreate(t, configMap("default", "b", "1", nil))
		synctest.Wait()
		if n := b.srv.WatchStats().Encodings - encodings; n != 1 {
			t.Errorf("one live event to two Table watchers in the same second took %d encodings, want 1", n)
		}
		if a, r := first.snapshot(), replay.snapshot(); len(a) != 2 || len(r) != 2 || string(a[1].Object) != string(r[1].Object) {
			t.Errorf("live event: first watch %d events, replaying watch %d; want the same second event on both", len(a), len(r))
		}
	})
}

// TestTableWatchBookmarks: a periodic bookmark of a Table watch is a Table
// too (doTransformObject converts every event but an ERROR), its one row
// printed from the empty bookmark object, the column definitions sent
// with it only when it is the watch's first event.
func TestTableWatchBookmarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		b.mustCreate(t, configMap("default", "a", "1", nil))
		w := b.openTableWatch(t, "/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=150&resourceVersion="+b.currentRV())
		// Writes elsewhere move the RV each minute's bookmark reports.
		b.mustCreate(t, configMap("kube-system", "x", "1", nil))
		time.Sleep(61 * time.Second)
		b.mustCreate(t, configMap("kube-system", "y", "1", nil))
		evs := w.wait()
		if len(evs) < 2 {
			t.Fatalf("events %v, want at least two bookmarks", eventTypesOf(evs))
		}
		for i, ev := range evs {
			table := tableOfEvent(t, ev)
			if ev.Type != "BOOKMARK" || len(table.Rows) != 1 || (i == 0) != (table.ColumnDefinitions != nil) {
				t.Errorf("event %d: %s with %d rows and columns %v; want a BOOKMARK Table of one row, columns on the first only", i, ev.Type, len(table.Rows), table.ColumnDefinitions != nil)
			}
		}
	})
}

// getTable GETs path as a Table.
func (b *bubble) getTable(t *testing.T, path string) metav1.Table {
	t.Helper()
	resp := b.doAccept(t, path, tableAccept)
	var table metav1.Table
	if err := json.Unmarshal(resp, &table); err != nil {
		t.Fatalf("GET %s as Table: %v: %s", path, err, resp)
	}
	return table
}

// doAccept GETs path with an Accept header and returns the 200 body.
func (b *bubble) doAccept(t *testing.T, path, accept string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.srv.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := b.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v: %s", path, resp.StatusCode, err, body)
	}
	return body
}

// ageCells is the Age cell of each event's Table (the last column of a
// ConfigMap's).
func ageCells(t *testing.T, evs []rawEvent) []string {
	t.Helper()
	var out []string
	for _, ev := range evs {
		table := tableOfEvent(t, ev)
		cells := table.Rows[0].Cells
		out = append(out, cells[len(cells)-1].(string))
	}
	return out
}

// eventTypesOf lists the types of events.
func eventTypesOf(evs []rawEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}
