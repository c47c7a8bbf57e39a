package fakeapiserver

import (
	"testing"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// TestSendChangeCountsStaleEvents: an event at or below the stream's last
// RV is not sent, and is counted, so the tests that read WatchStats (and
// Start's cleanup) fail on it instead of losing it silently. No request
// can make a correct server read one, so this drives sendChange directly.
func TestSendChangeCountsStaleEvents(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := &watchStream{s: s, lastRV: 7}
	for _, rv := range []int64{6, 7} {
		sent, err := w.sendChange(&store.Event{RV: rv})
		if sent || err != nil {
			t.Fatalf("sendChange(rv %d) after rv 7 = %v, %v; want not sent", rv, sent, err)
		}
	}
	if got := s.WatchStats().StaleDropped; got != 2 {
		t.Fatalf("WatchStats().StaleDropped = %d, want 2", got)
	}
}
