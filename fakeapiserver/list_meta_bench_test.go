package fakeapiserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"
)

// BenchmarkListMetadataPage walks a 10 000 pod store in pages of 500 over
// loopback HTTP, as the objects and as their metadata alone
// (PartialObjectMetadataList: metadata informers, controller-runtime's
// metadata cache), in JSON and protobuf, and reports the time and body
// size per page (the client only reads the body). Both forms are copies of
// per-version cached encodings (list_encode.go, list_meta_encode.go); the
// caches are filled before the timing, so a metadata page costs what its
// smaller size costs. The pages' continue tokens are read once, from a first walk: the
// store does not change, and a token names the same page in every form.
func BenchmarkListMetadataPage(b *testing.B) {
	const pods = 10_000
	srv := Start(b)
	seedPods(b, srv, pods)
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	pages := benchPageURLs(b, client, srv.URL()+"/api/v1/pods")
	for _, tc := range []struct{ name, accept string }{
		{"full/json", "application/json"},
		{"metadata/json", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"},
		{"full/protobuf", "application/vnd.kubernetes.protobuf"},
		{"metadata/protobuf", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for _, u := range pages { // fill the encoding caches (b.Loop starts the timer)
				benchGet(b, client, u, tc.accept)
			}
			n, size := 0, 0
			for b.Loop() {
				for _, u := range pages {
					size += len(benchGet(b, client, u, tc.accept))
					n++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/page")
			b.ReportMetric(float64(size)/float64(n), "bytes/page")
		})
	}
}

// benchPageURLs walks collection in pages of benchPageSize and returns
// each page's URL, continue token included.
func benchPageURLs(b *testing.B, client *http.Client, collection string) []string {
	var urls []string
	q := url.Values{"limit": {strconv.Itoa(benchPageSize)}}
	for {
		u := collection + "?" + q.Encode()
		urls = append(urls, u)
		var l struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(benchGet(b, client, u, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"), &l); err != nil {
			b.Fatal(err)
		}
		if l.Metadata.Continue == "" {
			return urls
		}
		q.Set("continue", l.Metadata.Continue)
	}
}

// benchGet GETs u with accept and returns the 200 body.
func benchGet(b *testing.B, client *http.Client, u, accept string) []byte {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
	}
	return body
}
