package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLayoutDiagram: lanes in order of first appearance with the server
// last; arrows between a lane and the server; each row shaded below the
// horizons in force when it happened, the watch cache's never below etcd's
// compaction.
func TestLayoutDiagram(t *testing.T) {
	tl := Timeline{
		{Kind: KindWrite, RV: "10", Text: "create default/a"},
		{Kind: KindRequest, RV: "10", Text: "GET /api/v1/namespaces/default/configmaps?watch=true", Lane: "naive"},
		{Kind: KindEvent, RV: "10", Text: "w1 ERROR Status 410 Expired", Lane: "naive"},
		{Kind: KindNote, RV: "6", Text: "watch cache", Horizon: HorizonWatchCache},
		{Kind: KindClient, RV: "8", Text: "listwatch: relist", Lane: "listwatch"},
		{Kind: KindFault, RV: "8", Text: "compaction", Horizon: HorizonCompaction},
	}
	d := layoutDiagram(tl)
	var lanes []string
	for _, l := range d.Lanes {
		lanes = append(lanes, l.Name)
	}
	if diff := cmp.Diff([]string{"naive", "listwatch", laneServer}, lanes); diff != "" {
		t.Errorf("lanes (-want +got):\n%s", diff)
	}
	if a := d.Rows[1].Arrow; a == nil || a.X1 != d.Lanes[0].X || a.X2 != d.ServerX || a.Label != "WATCH" {
		t.Errorf("request row arrow = %+v, want WATCH from lane naive to the server", a)
	}
	if a := d.Rows[2].Arrow; a == nil || a.X1 != d.ServerX || a.X2 != d.Lanes[0].X || a.Label != "ERROR" {
		t.Errorf("event row arrow = %+v, want ERROR from the server to lane naive", a)
	}
	if m := d.Rows[4].Mark; m == nil || m.X != d.Lanes[1].X || m.Class != "client" {
		t.Errorf("client row mark = %+v, want a decision on lane listwatch", m)
	}
	type shade struct{ compacted, cacheGone diagSpan }
	want := []shade{
		{}, {}, {},
		{cacheGone: d.Axis.span(0, 6)},
		{cacheGone: d.Axis.span(0, 6)},
		{compacted: d.Axis.span(0, 8)}, // the cache's horizon 6 is below the compaction
	}
	for i, r := range d.Rows {
		if got := (shade{r.Compacted, r.WatchCacheGone}); got != want[i] {
			t.Errorf("row %d (%s) shading = %+v, want %+v", i, tl[i].Text, got, want[i])
		}
	}
}
