package watchcheck_test

import (
	"context"
	"maps"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/watchcheck"
)

// TestTransportRecordsWatches: streams recorded by the Transport (a
// selector watch with a transition) and by a Recorder check clean against
// the history of the writes, and a planted gap in the recording is
// reported.
func TestTransportRecordsWatches(t *testing.T) {
	srv := fakeapiserver.Start(t)
	var rec watchcheck.Transport
	rc := srv.RESTConfig()
	rc.ContentType, rc.AcceptContentTypes = "application/json", "application/json"
	rc.WrapTransport = rec.Wrap
	cs := kubernetes.NewForConfigOrDie(rc)
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("default")

	start, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sel := "app=x"
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: start.ResourceVersion, LabelSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	startRV := mustRV(t, start.ResourceVersion)
	all, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: start.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	r := watchcheck.Record(all, watchcheck.Stream{Name: "recorder", StartRV: startRV})

	var h watchcheck.History
	note := func(cm *corev1.ConfigMap, deleted bool) {
		h = append(h, watchcheck.Change{RV: mustRV(t, cm.ResourceVersion), Key: "default/" + cm.Name, UID: string(cm.UID), Deleted: deleted, Labels: maps.Clone(cm.Labels)})
	}
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	note(cm, false)
	cm.Labels["app"] = "y"
	if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	note(cm, false)
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// No other writes: a consistent LIST's RV is the delete's.
	after, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h = append(h, watchcheck.Change{RV: mustRV(t, after.ResourceVersion), Key: "default/a", UID: string(cm.UID), Deleted: true, Labels: cm.Labels})

	var got []watch.EventType
	for range 2 {
		got = append(got, (<-w.ResultChan()).Type)
	}
	for range 3 {
		<-r.ResultChan()
	}
	w.Stop()
	r.Stop()
	if diff := cmp.Diff([]watch.EventType{watch.Added, watch.Deleted}, got); diff != "" {
		t.Fatalf("selector watch (-want +got):\n%s", diff)
	}
	streams := append(rec.Streams(), r.Stream())
	if len(streams) != 3 || rec.Skipped() != 0 {
		t.Fatalf("recorded %d streams (skipped %d), want 2 + the recorder's", len(streams), rec.Skipped())
	}
	if streams[0].Selector == nil || streams[0].Selector.String() != labels.SelectorFromSet(labels.Set{"app": "x"}).String() || streams[0].Resource != "configmaps" || streams[0].Namespace != "default" {
		t.Fatalf("stream parameters: %+v", streams[0])
	}
	if err := watchcheck.Check(h, streams...); err != nil {
		t.Fatal(err)
	}
	gap := streams[2]
	gap.Events = append(gap.Events[:1:1], gap.Events[2:]...)
	if err := watchcheck.Check(h, gap); err == nil {
		t.Fatal("Check passed a stream with a gap")
	}
}

func mustRV(t *testing.T, s string) int64 {
	t.Helper()
	rv, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", s, err)
	}
	return rv
}
