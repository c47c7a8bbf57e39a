package faultproxy

import (
	"context"
	"net"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// BenchmarkProxyWatchList measures the relay: per iteration, one
// watch-list of 2 000 ConfigMaps (2 000 ADDED events, then the
// initial-events-end bookmark) through the proxy, with no fault armed;
// events/s is the relay's rate (the fake upstream's time included).
func BenchmarkProxyWatchList(b *testing.B) {
	const objects = 2000
	up := fakeapiserver.Start(b)
	p, err := New(Config{Upstream: up.RESTConfig()})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := p.ServeBackground(ln)
	b.Cleanup(func() {
		_ = p.Close()
		<-done
	})
	direct := kubernetes.NewForConfigOrDie(up.RESTConfig()).CoreV1().ConfigMaps("default")
	for i := range objects {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm" + strconv.Itoa(i)}, Data: map[string]string{"k": "v"}}
		if _, err := direct.Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	cfg := p.RESTConfig()
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	cms := kubernetes.NewForConfigOrDie(cfg).CoreV1().ConfigMaps("default")
	b.ResetTimer()
	events := 0
	for b.Loop() {
		w, err := cms.Watch(context.Background(), metav1.ListOptions{
			SendInitialEvents: ptr(true), AllowWatchBookmarks: true, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		})
		if err != nil {
			b.Fatal(err)
		}
		for ev := range w.ResultChan() {
			events++
			if ev.Type == watch.Bookmark {
				break
			}
		}
		w.Stop()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
