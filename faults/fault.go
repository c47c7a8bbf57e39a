package faults

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// Kind names what a fault does. Names are stable: the control API and
// scenario traces use them.
type Kind string

// Watch stream faults act on the watch streams in their [Streams] scope.
const (
	// EndWatch ends a stream cleanly (the response ends, as at a watch
	// timeout): client-go sees the result channel close and re-watches.
	EndWatch Kind = "EndWatch"
	// CutWatch writes the first half of a frame (a truncated JSON event),
	// then resets the connection: client-go sees an unexpected EOF or a
	// connection reset, and closes the watch without an ERROR event.
	CutWatch Kind = "CutWatch"
	// HangWatch stops the stream and keeps its connection open: no
	// events, no bookmarks, no end, until the client gives up, the fault
	// is removed or expires, a Restart fault fires, or the server closes.
	HangWatch Kind = "HangWatch"
	// WithholdBookmarks drops periodic BOOKMARK events (and the
	// initial-events-end one too when [Fault.InitialEventsEnd] is set).
	WithholdBookmarks Kind = "WithholdBookmarks"
	// DelayEvents holds every event back for [Fault.Delay] on the server's
	// clock before it is written.
	DelayEvents Kind = "DelayEvents"
)

// Request faults act on matching requests at request entry.
const (
	// FailRequest answers with [Fault.Code] (429, 500, 503 or 504) and the
	// Status body kube-apiserver sends for it; a Retry-After header goes
	// with it when [Fault.RetryAfterSeconds] is set (always for 429).
	FailRequest Kind = "FailRequest"
	// Latency waits [Fault.Delay] on the server's clock before the
	// request is served (before any header is written).
	Latency Kind = "Latency"
	// CutList writes the status line, headers and the first half of a
	// LIST body, then resets the connection.
	CutList Kind = "CutList"
	// TooLargeRV answers RV-constrained reads (GET or LIST with a
	// resourceVersion, continue tokens, watch-list with a resourceVersion)
	// at once with the 504 "Too large resource version" the watch cache
	// sends after waiting 3 s for an RV it has not reached. With
	// [Fault.AllReads] every such read fails; otherwise those whose RV is
	// above the current RV minus [Fault.Lag] (a server lagging K
	// revisions behind).
	TooLargeRV Kind = "TooLargeRV"
)

// State faults change the server's store; a proxy cannot inject them.
const (
	// Compact compacts the store to [Fault.RV], or to the current RV when
	// it is 0.
	Compact Kind = "Compact"
	// Restart is a kube-apiserver restart with etcd intact: every open
	// watch ends (hung ones too), and the watch window restarts at the
	// current RV, so watches from older RVs get the 410 ERROR event. LISTs
	// at older RVs are still served, as a restarted apiserver serves them
	// from etcd; add a Compact fault to expire them too.
	Restart Kind = "Restart"
)

// APIServer faults change one kube-apiserver instance of a server with
// several ([Fault.APIServer] names it: "apiserver-0", ...); the others and
// the store go on. A proxy (package faultproxy) takes them as the one
// instance "apiserver-0" it plays for its clients, for its watch streams
// and the requests a partition refuses; it keeps no older state, so its
// cache reads show the upstream's.
const (
	// LagAPIServer makes the instance's watch cache lag the store by
	// [Fault.Lag] writes or, with [Fault.Delay], by that long on the
	// server's clock; neither clears the lag. Cache reads (LIST with
	// resourceVersion "0" or NotOlderThan, GET with a resourceVersion,
	// watches) show the older state; reads that need a newer RV wait for
	// the cache (504 after 3 s).
	LagAPIServer Kind = "LagAPIServer"
	// FreezeAPIServer stops the instance's watch cache where it is.
	FreezeAPIServer Kind = "FreezeAPIServer"
	// PartitionAPIServer cuts the instance off the store: its cache
	// freezes, and reads it would delegate to storage and every write get
	// the 504 of a storage that never answers.
	PartitionAPIServer Kind = "PartitionAPIServer"
	// RestartAPIServer restarts the instance: its watches end, its cache
	// is re-initialised at the store's current RV, and no watch resumes on
	// it below that RV.
	RestartAPIServer Kind = "RestartAPIServer"
	// HealAPIServer clears the instance's lag, freeze and partition.
	HealAPIServer Kind = "HealAPIServer"
)

// APIServerTarget is implemented by targets with several apiserver
// instances (the fake server); the injector hands it the APIServer faults.
// A target without it refuses them with [ErrUnsupported].
type APIServerTarget interface {
	// ChangeAPIServer applies one APIServer fault of f (its Kind,
	// APIServer, Lag and Delay) and returns what it did, for the record.
	ChangeAPIServer(f Fault) (string, error)
}

// Random injects, at each matching request, one fault drawn from
// [Fault.Kinds] with probability [Fault.Probability], from a PRNG seeded
// with [Fault.Seed]: the same seed and the same request sequence give the
// same faults.
const Random Kind = "Random"

// Streams is the scope of a watch stream fault.
type Streams string

const (
	// OpenStreams are the streams open when the fault is armed (the
	// default): "end all watches now".
	OpenStreams Streams = "open"
	// NewStreams are the streams opened after the fault is armed.
	NewStreams Streams = "new"
	// AllStreams are both.
	AllStreams Streams = "all"
)

// Fault is one fault to inject. Add it with [Injector.Add]; the zero
// fields of a Fault take the defaults each field documents.
//
// Lifecycle:
//
//	pending --Trigger.AtRV reached and Trigger.Request-th match--> armed
//	armed --fired Times times--> spent
//	armed --Window elapsed--> expired
//	any --Remove/Clear--> removed
//
// Only an armed fault fires; spent, expired and removed faults stay in
// [Injector.Faults] with their state.
type Fault struct {
	// ID is set by Add (f1, f2, ...); Add ignores a given one.
	ID string `json:"id,omitempty"`
	// Kind is what the fault does.
	Kind Kind `json:"kind"`
	// Match selects the requests and streams the fault applies to; the
	// zero Match selects all.
	Match Match `json:"match,omitzero"`
	// Trigger is when the fault is armed and fires; the zero Trigger arms
	// it at once and fires it at the first opportunity.
	Trigger Trigger `json:"trigger,omitzero"`
	// Times caps the firings: requests failed, streams hit, state changes
	// made. If zero: once for FailRequest, Latency, CutList, Compact and
	// Restart; no cap for TooLargeRV and Random (bound them with Window or
	// Remove) and for stream faults (every stream in scope).
	Times int `json:"times,omitempty"`
	// Window ends an armed fault this long after it was armed (on the
	// server's clock), releasing streams it hangs. If zero, it lasts until
	// spent or removed.
	Window Duration `json:"window,omitempty"`
	// Streams is the scope of a stream fault. If empty, OpenStreams.
	Streams Streams `json:"streams,omitempty"`

	// Code is the status of FailRequest: 429, 500, 503 or 504.
	Code int `json:"code,omitempty"`
	// RetryAfterSeconds is FailRequest's Retry-After. If zero, 1 for 429
	// and none otherwise. client-go's rest client retries a 429 or 5xx
	// with Retry-After up to 10 times by itself.
	RetryAfterSeconds int `json:"retryAfterSeconds,omitempty"`
	// Message is the Status message of FailRequest; a default names the
	// fault.
	Message string `json:"message,omitempty"`
	// Delay is Latency's wait, DelayEvents' hold per event and
	// LagAPIServer's lag in time.
	Delay Duration `json:"delay,omitempty"`
	// RV is Compact's target; 0 means the current RV.
	RV int64 `json:"rv,omitempty"`
	// Lag is TooLargeRV's K: reads above current-K fail; and
	// LagAPIServer's number of writes.
	Lag int64 `json:"lag,omitempty"`
	// AllReads makes TooLargeRV fail every RV-constrained read.
	AllReads bool `json:"allReads,omitempty"`
	// InitialEventsEnd makes WithholdBookmarks drop the watch-list
	// initial-events-end bookmark too, so a watch-list never completes.
	InitialEventsEnd bool `json:"initialEventsEnd,omitempty"`

	// APIServer names the instance of an APIServer fault ("apiserver-0").
	// If empty, "apiserver-0".
	APIServer string `json:"apiserver,omitempty"`

	// Seed seeds a Random fault's PRNG.
	Seed uint64 `json:"seed,omitempty"`
	// Probability is the chance that a Random fault injects at a matching
	// request, in [0, 1].
	Probability float64 `json:"probability,omitempty"`
	// Kinds are what a Random fault draws from. If empty, the recoverable
	// ones: FailRequest, Latency, CutList, EndWatch, CutWatch,
	// WithholdBookmarks, DelayEvents, Compact, Restart (never HangWatch,
	// which stalls a client with no timeout for good).
	Kinds []Kind `json:"kinds,omitempty"`
}

// Match selects requests and streams. Empty fields match anything.
type Match struct {
	// Verbs are Kubernetes verbs: get, list, watch, create, update, patch,
	// delete, deletecollection.
	Verbs []string `json:"verbs,omitempty"`
	// Resource is the plural resource name, with ".group" for a non-core
	// group: "pods", "deployments.apps".
	Resource string `json:"resource,omitempty"`
	// Namespace is the request's namespace.
	Namespace string `json:"namespace,omitempty"`
	// LabelSelector and FieldSelector must equal the request's parameters.
	LabelSelector string `json:"labelSelector,omitempty"`
	FieldSelector string `json:"fieldSelector,omitempty"`
	// UserAgent must be a substring of the request's User-Agent.
	UserAgent string `json:"userAgent,omitempty"`
	// Page is a LIST page: 1 is a list without a continue token, k the
	// k-th page of a continue chain. 0 matches any request.
	Page int `json:"page,omitempty"`
}

// Trigger is when a fault is armed and when it fires.
type Trigger struct {
	// AtRV arms the fault once the store has reached this RV (for a proxy:
	// once an RV this high was seen going through). 0: at once.
	AtRV int64 `json:"atRV,omitempty"`
	// Request arms the fault at the Request-th matching request (counted
	// after AtRV is reached); that request is the first one a request or
	// state fault acts on (a state fault runs before it is served). 0: no
	// request is needed (a state fault fires as soon as it is armed).
	Request int `json:"request,omitempty"`
	// Events fires a stream fault on a stream after this many events were
	// sent on it since the fault attached (for a new stream, since it
	// started). 0: at once.
	Events int `json:"events,omitempty"`
	// After fires a stream fault on a stream this long after the fault
	// attached, on the server's clock. 0: at once.
	After Duration `json:"after,omitempty"`
}

// Duration is a time.Duration that reads and writes JSON as a Go duration
// string ("1.5s"); it also reads a number of nanoseconds.
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("duration %s: want a string like \"1s\"", b)
		}
		*d = Duration(n)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// ErrInvalid is wrapped by Add's error for a fault that makes no sense.
var ErrInvalid = errors.New("faults: invalid fault")

// ErrUnsupported is wrapped by Add's error for a fault the target cannot
// inject (a state fault in front of a real apiserver).
var ErrUnsupported = errors.New("faults: not supported by this target")

// isStreamKind reports whether k acts on watch streams.
func isStreamKind(k Kind) bool {
	switch k {
	case EndWatch, CutWatch, HangWatch, WithholdBookmarks, DelayEvents:
		return true
	}
	return false
}

// isStateKind reports whether k changes the server's state.
func isStateKind(k Kind) bool { return k == Compact || k == Restart || isAPIServerKind(k) }

// isAPIServerKind reports whether k changes one apiserver instance.
func isAPIServerKind(k Kind) bool {
	switch k {
	case LagAPIServer, FreezeAPIServer, PartitionAPIServer, RestartAPIServer, HealAPIServer:
		return true
	}
	return false
}

// isOneShot reports whether a stream kind ends the stream when it fires
// (the others are modes that stay on).
func isOneShot(k Kind) bool { return k == EndWatch || k == CutWatch || k == HangWatch }

// defaultRandomKinds are what a Random fault draws from by default.
var defaultRandomKinds = []Kind{FailRequest, Latency, CutList, EndWatch, CutWatch, WithholdBookmarks, DelayEvents, Compact, Restart}

// validate checks f and fills in its defaults.
func (f *Fault) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrInvalid, f.Kind, fmt.Sprintf(format, args...))
	}
	switch f.Kind {
	case EndWatch, CutWatch, HangWatch, WithholdBookmarks, DelayEvents:
		if f.Streams == "" {
			f.Streams = OpenStreams
		}
		if !slices.Contains([]Streams{OpenStreams, NewStreams, AllStreams}, f.Streams) {
			return bad("streams %q is not open, new or all", f.Streams)
		}
		if f.Kind == DelayEvents && f.Delay <= 0 {
			return bad("needs a positive delay")
		}
	case FailRequest:
		if !slices.Contains([]int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusGatewayTimeout}, f.Code) {
			return bad("code %d is not 429, 500, 503 or 504", f.Code)
		}
		if f.Code == http.StatusTooManyRequests && f.RetryAfterSeconds == 0 {
			f.RetryAfterSeconds = 1
		}
	case Latency:
		if f.Delay <= 0 {
			return bad("needs a positive delay")
		}
	case CutList, Compact, Restart:
	case LagAPIServer, FreezeAPIServer, PartitionAPIServer, RestartAPIServer, HealAPIServer:
		if f.APIServer == "" {
			f.APIServer = "apiserver-0"
		}
		if f.Lag < 0 || f.Delay < 0 || (f.Lag > 0 && f.Delay > 0) {
			return bad("lag %d and delay %v: at most one, neither negative", f.Lag, time.Duration(f.Delay))
		}
	case TooLargeRV:
		if f.Lag < 0 {
			return bad("lag %d is negative", f.Lag)
		}
	case Random:
		if f.Probability < 0 || f.Probability > 1 {
			return bad("probability %v is not in [0, 1]", f.Probability)
		}
		if len(f.Kinds) == 0 {
			f.Kinds = slices.Clone(defaultRandomKinds)
		}
		for _, k := range f.Kinds {
			if k == Random || k == TooLargeRV {
				return bad("cannot draw %s", k)
			}
		}
	default:
		return fmt.Errorf("%w: unknown kind %q", ErrInvalid, f.Kind)
	}
	if f.Times < 0 || f.Window < 0 || f.Trigger.Events < 0 || f.Trigger.After < 0 || f.Trigger.Request < 0 {
		return bad("negative times, window or trigger")
	}
	if f.Times == 0 && !isStreamKind(f.Kind) && f.Kind != TooLargeRV && f.Kind != Random {
		f.Times = 1
	}
	return nil
}
