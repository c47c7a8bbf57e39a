package fakeapiserver

import (
	"bytes"
	"compress/gzip"
	"testing"

	"pgregory.net/rapid"
)

// TestGzipBodyMatchesCompressGzip is the property behind gzipping a page
// from its pieces: for any pieces (empty ones, bodies of whole 65 535-byte
// blocks and around them) and every level, gzipBody's stream is
// compress/gzip's for the joined body at that level, byte for byte, and
// stays so when the writers and buffers are recycled.
func TestGzipBodyMatchesCompressGzip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		level := rapid.IntRange(gzip.HuffmanOnly, gzip.BestCompression).Draw(rt, "level")
		g := &gzipWriters{level: level}
		for range rapid.IntRange(1, 3).Draw(rt, "bodies") {
			var pieces [][]byte
			var joined []byte
			for i := range rapid.IntRange(0, 8).Draw(rt, "pieces") {
				n := rapid.OneOf(
					rapid.IntRange(0, 40),
					rapid.IntRange(storedBlockMax-3, storedBlockMax+3),
					rapid.IntRange(0, 3*storedBlockMax),
				).Draw(rt, "len")
				b := bytes.Repeat([]byte{byte('a' + i)}, n)
				if n > 0 {
					b[rapid.IntRange(0, n-1).Draw(rt, "mark")] = byte(rapid.IntRange(0, 255).Draw(rt, "byte"))
				}
				pieces, joined = append(pieces, b), append(joined, b...)
			}
			got, release, err := g.gzipBody(pieces)
			if err != nil {
				rt.Fatal(err)
			}
			if want := gzipAt(t, level, joined); !bytes.Equal(got, want) {
				rt.Fatalf("level %d, %d pieces, %d bytes: stream of %d bytes differs from compress/gzip's %d", level, len(pieces), len(joined), len(got), len(want))
			}
			release()
		}
	})
}
