package faultproxy

import (
	"context"
	"maps"
	"strconv"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/watchcheck"
)

// TestProxyStreamsKeepWatchGuarantees: streams recorded by
// watchcheck.Transport on the far side of the proxy, while the proxy cuts
// them and the client resumes from its last RV, keep etcd's watch
// guarantees against the history of the writes; a cut stream is a prefix,
// and the resumed one continues it without gap or repeat.
func TestProxyStreamsKeepWatchGuarantees(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := proxiedTarget(t)
		var rec watchcheck.Transport
		cfg := rest.CopyConfig(tg.rest)
		cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
		cfg.WrapTransport = rec.Wrap
		cms := kubernetes.NewForConfigOrDie(cfg).CoreV1().ConfigMaps("default")
		wcms := tg.writer.CoreV1().ConfigMaps("default")
		ctx := context.Background()

		var h watchcheck.History
		note := func(cm *corev1.ConfigMap, deleted bool) {
			rv, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64)
			h = append(h, watchcheck.Change{RV: rv, Key: "default/" + cm.Name, UID: string(cm.UID), Deleted: deleted, Labels: maps.Clone(cm.Labels)})
		}
		write := func(name, app string) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}}}
			got, err := wcms.Update(ctx, cm, metav1.UpdateOptions{})
			if err != nil {
				got, err = wcms.Create(ctx, cm, metav1.CreateOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			note(got, false)
		}
		start, err := wcms.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		watchFrom := func(rv, sel string) watch.Interface {
			w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, LabelSelector: sel, AllowWatchBookmarks: true})
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		all, sel := watchFrom(start.ResourceVersion, ""), watchFrom(start.ResourceVersion, "app=x")
		write("a", "x")
		write("b", "x")
		write("a", "y")
		synctest.Wait()
		// Cut both streams at the proxy (half a frame, then a reset).
		if _, err := tg.inj.Add(faults.Fault{Kind: faults.CutWatch}); err != nil {
			t.Fatal(err)
		}
		last := ""
		for ev := range all.ResultChan() {
			if m, ok := ev.Object.(*corev1.ConfigMap); ok {
				last = m.ResourceVersion
			}
		}
		for range sel.ResultChan() {
		}
		write("b", "y")
		if err := wcms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		l, err := wcms.List(ctx, metav1.ListOptions{}) // no other writer: its RV is the delete's
		if err != nil {
			t.Fatal(err)
		}
		h = append(h, watchcheck.Change{RV: mustRV(l.ResourceVersion), Key: "default/a", UID: h[0].UID, Deleted: true, Labels: map[string]string{"app": "y"}})
		resumed := watchFrom(last, "")
		drained := make(chan struct{})
		go func() { // read, so the recorder sees every frame
			defer close(drained)
			for range resumed.ResultChan() {
			}
		}()
		synctest.Wait()
		resumed.Stop()
		<-drained

		streams := rec.Streams()
		if len(streams) != 3 {
			t.Fatalf("recorded %d streams, want 3", len(streams))
		}
		if err := watchcheck.Check(h, streams...); err != nil {
			t.Fatal(err)
		}
		want, _ := watchcheck.Expected(h, streams[2])
		if got := len(streams[2].Events); got != len(want) || got == 0 {
			t.Fatalf("resumed stream delivered %d events, want %d: %+v", got, len(want), streams[2].Events)
		}
	})
}

func mustRV(s string) int64 {
	rv, _ := strconv.ParseInt(s, 10, 64)
	return rv
}
