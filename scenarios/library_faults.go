package scenarios

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/listwatch"
)

// cutHangWatchTimeout is the listwatch client's MinWatchTimeout in
// watch-cut-and-hang: its watches ask for timeoutSeconds in [1m, 2m).
const cutHangWatchTimeout = time.Minute

// cutHangGrace is how long past timeoutSeconds the listwatch client waits
// for the server to end a watch (listwatch's watchDeadlineGrace).
const cutHangGrace = 30 * time.Second

// Lanes of the clients a scenario drives by hand.
const (
	laneRawHTTP  = "raw-http"
	laneClientGo = "client-go"
)

func watchCutAndHang() *Scenario {
	return &Scenario{
		Name:    "watch-cut-and-hang",
		Answers: []QuestionID{QWatchBreaks, QWatchTimeout},
		Summary: "A connection cut mid-frame is seen at once (half a JSON event, then EOF) and the client re-watches from its last RV; a hung stream sends nothing and never ends, and only a client-side deadline (listwatch's timeoutSeconds plus 30 s) notices: a client-go watch just waits.",
		Seed:    12,
		Steps: func(e *Env) error {
			r := &cutHangRun{e: e}
			return phases(r.startWatchers, r.cutMidFrame, r.listwatchResumes, r.hang, r.onlyDeadlineNotices)
		},
	}
}

// cutHangRun is the state watch-cut-and-hang carries from phase to phase.
type cutHangRun struct {
	e     *Env
	c     *Client
	raw   *Stream
	cg    *Stream
	bravo string
}

// startWatchers starts the listwatch client and a raw watch next to it.
func (r *cutHangRun) startWatchers() error {
	e := r.e
	if _, err := e.Create(Namespace, "alpha", "1"); err != nil {
		return err
	}
	c, err := e.StartClient(Namespace, listwatch.Options{MinWatchTimeout: cutHangWatchTimeout})
	if err != nil {
		return err
	}
	r.c = c
	if err := awaitClientResponse(e, "the listwatch client watching"); err != nil {
		return err
	}
	e.SetLane(laneRawHTTP)
	defer e.SetLane("")
	r.raw, err = e.Watch(cmPath + "?watch=true&resourceVersion=" + c.LastSyncResourceVersion())
	return err
}

// cutMidFrame cuts both watches in the middle of charlie's frame: the raw
// client sees a broken frame.
func (r *cutHangRun) cutMidFrame() error {
	e := r.e
	e.Note("part 1: the network cuts both connections in the middle of the second event's frame")
	var err error
	e.Fault("network cut: the next event after one more is written half, then the connection is reset (fault CutWatch, after 1 event)", func() {
		_, err = e.Server().Faults().Add(fakeapiserver.Fault{Kind: fakeapiserver.CutWatch, Streams: fakeapiserver.OpenStreams, Trigger: fakeapiserver.FaultTrigger{Events: 1}})
	})
	if err != nil {
		return err
	}
	if r.bravo, err = e.Create(Namespace, "bravo", "1"); err != nil {
		return err
	}
	if _, err := r.raw.Expect(watch.Added, key("bravo")); err != nil {
		return err
	}
	if err := e.AwaitClient("bravo applied", func(en Entry) bool { return IsClientEntry(en, listwatch.TraceApplied) }); err != nil {
		return err
	}
	if _, err := e.Create(Namespace, "charlie", "1"); err != nil {
		return err
	}
	ev, err := r.raw.Next()
	if err != nil {
		return err
	}
	return e.Expect(ev.End && isCut(ev.Err),
		"the raw client's stream broke in charlie's frame: a decode error (unexpected EOF, or a reset), not a clean end")
}

// listwatchResumes waits for the listwatch client to re-watch from its
// last RV and get charlie.
func (r *cutHangRun) listwatchResumes() error {
	e := r.e
	if err := e.AwaitClientStepping("charlie applied after the re-watch", func(en Entry) bool {
		return IsClientEntry(en, listwatch.TraceApplied) && strings.Contains(en.Text, "default/charlie")
	}); err != nil {
		return err
	}
	if err := e.Expect(hasEntry(e.Timeline(), KindClient, "watch-start", "resume from rv "+r.bravo),
		"listwatch saw its stream close, re-watched from bravo's rv %s and got charlie: a cut loses nothing", r.bravo); err != nil {
		return err
	}
	// listwatch is watching again: the server's deadline and bookmark
	// timers and the client's own deadline.
	return e.AwaitTimers(3)
}

// hang opens a client-go watch next to listwatch's and makes every open
// stream hang.
func (r *cutHangRun) hang() error {
	e := r.e
	e.Note("part 2: a stream that hangs: the connection stays open, nothing more is sent, the response never ends")
	e.SetLane(laneClientGo)
	cg, err := e.WatchTyped(Namespace, metav1.ListOptions{ResourceVersion: r.c.LastSyncResourceVersion()})
	e.SetLane("")
	if err != nil {
		return err
	}
	r.cg = cg
	e.Fault("hung streams: every open watch stops sending and its response never ends (fault HangWatch)", func() {
		_, err = e.Server().Faults().Add(fakeapiserver.Fault{Kind: fakeapiserver.HangWatch, Streams: fakeapiserver.OpenStreams})
	})
	if err != nil {
		return err
	}
	_, err = e.Create(Namespace, "delta", "1")
	return err
}

// onlyDeadlineNotices steps past every timer: listwatch's own deadline
// ends its silent stream, the client-go watch goes on waiting.
func (r *cutHangRun) onlyDeadlineNotices() error {
	e := r.e
	// Before the hang four timers were armed (the listwatch watch's
	// server deadline and bookmark timers and its client deadline, the
	// client-go watch's server deadline); once the streams hang three are
	// left. The step below passes every one of them: only the client's
	// deadline makes anything happen.
	if err := e.AwaitTimers(3); err != nil {
		return err
	}
	e.Note("nobody learns of delta. listwatch asked for timeoutSeconds in [%s, %s) and gives the server %s more", cutHangWatchTimeout, 2*cutHangWatchTimeout, cutHangGrace)
	e.Step(2*cutHangWatchTimeout + cutHangGrace)
	if err := e.AwaitClientStepping("delta applied after the client's deadline", func(en Entry) bool {
		return IsClientEntry(en, listwatch.TraceApplied) && strings.Contains(en.Text, "default/delta")
	}); err != nil {
		return err
	}
	if err := e.Expect(hasEntry(e.Timeline(), KindClient, "watch-end", "no end of stream by timeoutSeconds plus grace"),
		"listwatch ended the silent stream at its own deadline, re-watched and got delta"); err != nil {
		return err
	}
	return e.Expect(r.cg.Silent(),
		"the client-go watch has received nothing %s later and is still open: the Reflector would wait until the server or the TCP connection ends it", 2*cutHangWatchTimeout+cutHangGrace)
}

// awaitClientResponse waits until the listwatch client's watch request
// was answered (the response headers arrived).
func awaitClientResponse(e *Env, what string) error {
	return e.AwaitClientStepping(what, func(en Entry) bool {
		return en.Kind == KindResponse && strings.Contains(en.Text, "the body stays open")
	})
}
