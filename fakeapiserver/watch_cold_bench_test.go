package fakeapiserver

import (
	"bufio"
	"encoding/binary"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// coldHistoryEvents is how many writes BenchmarkWatchColdHistory's watch
// replays; as many again, in another namespace, push them out of the
// store's hot writes (1 024), so their decoded objects are held only
// weakly, and a collection before each replay drops them.
const coldHistoryEvents = 2000

// BenchmarkWatchColdHistory measures a watch without selectors replaying
// coldHistoryEvents events of configmaps whose decoded objects are gone:
// the server's work per event once its encoding is cached (in the shared
// cache of encoded events, which holds them all), in JSON and protobuf,
// over real loopback HTTP with a client that only frames the events.
func BenchmarkWatchColdHistory(b *testing.B) {
	for _, accept := range []string{"application/json", "application/vnd.kubernetes.protobuf;stream=watch"} {
		b.Run(map[bool]string{true: "json", false: "protobuf"}[accept == "application/json"], func(b *testing.B) {
			benchColdHistory(b, accept, false)
		})
	}
}

// BenchmarkWatchListCold measures a watch-list without selectors
// (sendInitialEvents=true, as client-go's informers with WatchListClient
// open them) of the coldHistoryEvents configmaps BenchmarkWatchColdHistory
// writes, whose decoded objects are gone: its initial events and the
// bookmark that ends them.
func BenchmarkWatchListCold(b *testing.B) {
	for _, accept := range []string{"application/json", "application/vnd.kubernetes.protobuf;stream=watch"} {
		b.Run(map[bool]string{true: "json", false: "protobuf"}[accept == "application/json"], func(b *testing.B) {
			benchColdHistory(b, accept, true)
		})
	}
}

// benchColdHistory writes BenchmarkWatchColdHistory's configmaps and
// measures a watch that replays them, from their history or, with
// watchList, as initial events.
func benchColdHistory(b *testing.B, accept string, watchList bool) {
	srv := Start(b)
	res := configMapsResource(b, srv)
	from := formatRV(srv.store.CurrentRV())
	create := func(ns, name string) {
		cm := configMap(ns, name, "v", nil)
		// With its kind, as a create's decoded body has it: the store
		// keeps it as protobuf (store_codec.go), decoded while hot.
		cm.APIVersion, cm.Kind = "v1", "ConfigMap"
		if _, err := srv.createObject(res, ns, cm); err != nil {
			b.Fatal(err)
		}
	}
	for i := range coldHistoryEvents {
		create("default", "c"+strconv.Itoa(i))
	}
	for i := range coldHistoryEvents {
		create("kube-system", "h"+strconv.Itoa(i))
	}
	client := &http.Client{Transport: &http.Transport{}}
	query, frames := "?watch=true&resourceVersion="+from, coldHistoryEvents
	if watchList {
		query, frames = "?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", coldHistoryEvents+1
	}
	replay := func() {
		req, err := http.NewRequest(http.MethodGet, srv.URL()+watchCMPath+query, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Accept", accept)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		if err := readFrames(bufio.NewReaderSize(resp.Body, 64<<10), accept == "application/json", frames); err != nil {
			b.Fatal(err)
		}
	}
	replay() // encodes every event once, into the shared cache
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		runtime.GC() // the decoded objects of cold versions are held weakly
		before := processCPU(b)
		b.StartTimer()
		replay()
		cpu += processCPU(b) - before
	}
	events := float64(b.N * frames)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/events, "ns/event")
	b.ReportMetric(float64(cpu.Nanoseconds())/events, "cpu-ns/event")
}

// processCPU is the CPU time this process has used, user and system (the
// server and the client together).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readFrames reads n watch events off body: newline-delimited JSON, or
// protobuf frames (a 4-byte big-endian length, then the message).
func readFrames(body *bufio.Reader, json bool, n int) error {
	var size [4]byte
	for range n {
		if json {
			if _, err := body.ReadSlice('\n'); err != nil {
				return err
			}
			continue
		}
		if _, err := io.ReadFull(body, size[:]); err != nil {
			return err
		}
		if _, err := body.Discard(int(binary.BigEndian.Uint32(size[:]))); err != nil {
			return err
		}
	}
	return nil
}
