package listwatch

import (
	"context"
	"errors"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// next is what the run loop does after an attempt.
type next int

const (
	// rewatch: watch again from the client's RV, no LIST.
	rewatch next = iota
	// relist: LIST (or watch-list) again and diff it into the store.
	relist
)

// outcome is how one attempt (a list, or one watch stream) ended.
type outcome struct {
	next next
	// productive is set when the attempt moved the client forward: a list
	// stored, an RV advanced, or a watch that lasted healthyWatchDuration.
	// Only an unproductive attempt is followed by a backoff, so the loop
	// can never spin without progress.
	productive bool
	reason     string
	err        error
	// stream is an open watch to continue with (after a watch-list).
	stream *stream
}

// Run lists, watches and keeps the store in step until ctx is done, then
// returns once every request and stream it started has ended. It panics if
// called twice.
//
// The loop, as a state diagram:
//
//	      ┌─────────────── 410 Expired, too-large RV, refused (4xx) ───────────────┐
//	      ▼                                                                         │
//	┌───────────┐  stored   ┌─────────────────┐  EOF, timeout, reset, 5xx, 429  ┌───┴───┐
//	│ list /    │─────────▶│ watch from RV   │────────────────────────────────▶│ ended │
//	│ watch-list│           └─────────────────┘                                 └───┬───┘
//	└─────▲─────┘                   ▲                                               │
//	      │ error: backoff          └──────────── backoff unless productive ────────┘
//	      └──────────┘
//
// Every arrow out of an unproductive attempt (one that stored nothing and
// advanced no RV) passes through one backoff delay: [Options.Backoff],
// stretched to the server's Retry-After if that is longer.
func (c *Client) Run(ctx context.Context) {
	if c.running.Swap(true) {
		panic("listwatch: Client.Run called twice")
	}
	out := outcome{next: relist, productive: true}
	for ctx.Err() == nil {
		if !out.productive && !c.sleep(ctx, out.err) {
			break
		}
		if out.productive {
			c.backoff = c.opts.Backoff
		}
		switch {
		case out.next == relist:
			out = c.sync(ctx)
		default:
			out = c.watch(ctx, out.stream)
		}
	}
	if out.stream != nil {
		out.stream.stop()
	}
}

// sleep waits one backoff step, or longer if err carries a Retry-After
// (a 429 that the rest client stopped retrying, or a 429 ERROR event). It
// returns false if ctx ended first.
func (c *Client) sleep(ctx context.Context, err error) bool {
	d := c.backoffStep()
	reason := "exponential backoff"
	if secs, ok := apierrors.SuggestsClientDelay(err); ok && time.Duration(secs)*time.Second > d {
		d = time.Duration(secs) * time.Second
		reason = "server's Retry-After"
	}
	c.trace(TraceEvent{Kind: TraceBackoff, Delay: d, Reason: reason, Err: err})
	t := c.opts.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		return false
	}
}

// classify turns the error that ended a watch into the next step.
//
//   - 410 Expired/Gone, or a too-large RV: the RV is unusable; relist.
//   - 429, 5xx, and transport errors (no Status): transient; re-watch.
//   - any other Status (400, 403, 404, 422, ...): the server refused to
//     resume from this RV; relist, as the Reflector does.
func classify(err error) (next, string) {
	var status apierrors.APIStatus
	switch {
	case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
		return relist, "410: resourceVersion expired"
	case isTooLargeResourceVersion(err):
		return relist, "resourceVersion too large"
	case !errors.As(err, &status):
		return rewatch, "transport error"
	case status.Status().Code == http.StatusTooManyRequests || status.Status().Code >= 500:
		return rewatch, "server error " + statusText(status)
	default:
		return relist, "server refused resumption " + statusText(status)
	}
}

// isTooLargeResourceVersion matches the apiserver's "Too large resource
// version" error (storage/errors.go NewTooLargeResourceVersionError), as the
// Reflector's isTooLargeResourceVersionError does.
func isTooLargeResourceVersion(err error) bool {
	return apierrors.HasStatusCause(err, "ResourceVersionTooLarge")
}

// isRefusal reports whether err is a 4xx Status other than 410 and 429:
// the server will not serve this request however often it is repeated.
func isRefusal(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	code := status.Status().Code
	return code >= 400 && code < 500 && code != http.StatusGone && code != http.StatusTooManyRequests
}

func statusText(s apierrors.APIStatus) string {
	st := s.Status()
	return http.StatusText(int(st.Code)) + " (" + string(st.Reason) + ")"
}

// backoffStep is the next backoff delay, jittered from [Options.Rand]
// when it is set (wait.Backoff jitters from math/rand's global source,
// which no seed replays).
func (c *Client) backoffStep() time.Duration {
	if c.opts.Rand == nil {
		return c.backoff.Step()
	}
	jitter := c.backoff.Jitter
	c.backoff.Jitter = 0
	d := c.backoff.Step()
	c.backoff.Jitter = jitter
	if jitter > 0 {
		d += time.Duration(c.opts.Rand.Float64() * jitter * float64(d))
	}
	return d
}
