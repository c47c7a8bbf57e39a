// Package scenariofile is the scenario file format of lw-sim: the schema
// of a scenario written as data (YAML, or JSON, which is YAML), its strict
// reader, and its writer. Package scenarios runs these files; tests that
// cannot import scenarios (it imports the listwatch client) write them,
// such as listwatch's chaos property test, whose shrunk failures are
// scenario files "lw-sim run FILE" replays.
package scenariofile

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/faults"
)

// Version is the version of the scenario file format this package
// reads.
const Version = 1

// File is a scenario written as data: YAML (or JSON, which is YAML) that
// [Load] reads strictly and package scenarios runs. The objects are
// ConfigMaps; the raw requests read the ConfigMaps of the namespace
// "default". A minimal file:
//
//	version: 1
//	name: delete-while-watching
//	seed: 7
//	objects: [{name: alpha}, {name: bravo}]
//	clients: [{name: lw, pageSize: 2}]
//	timeline:
//	  - startClient: lw
//	  - fault: {kind: Compact}
//	  - delete: {name: alpha}
//	  - advance: 1m
//	expect:
//	  storeEqualsServer: [lw]
//	  maxLists: {lw: 2}
//
// Values in queries, names, notes and expectations may name earlier
// results as {{name}} or {{name+N}}: the last write of an object, a
// list's or a currentRV step's id (see [Step] for the others). Two
// draw from the run's seed: {{rand N}}, a number in [0, N), and
// {{pick a b c}}, one of the words.
type File struct {
	Version int    `json:"version"`
	Name    string `json:"name,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Answers are the article's questions the scenario answers, by
	// their ids (scenarios.QuestionID: "watch-breaks", ...).
	Answers []string `json:"answers,omitempty"`
	// Proves names the conformance cases (conformance.Cases, by name:
	// "WatchTooOldRV") that check against the real kube-apiserver what
	// the scenario teaches: a lesson teaching a row of
	// docs/rv-semantics.md names that row's cases. The loader
	// (scenarios.ParseFile) refuses a name that is no case.
	Proves []string `json:"proves,omitempty"`
	// Explanation teaches the case (built-ins keep theirs in
	// library/<name>.txt).
	Explanation string `json:"explanation,omitempty"`
	Seed        uint64 `json:"seed,omitempty"`
	Server      Server `json:"server,omitzero"`
	// APIServers puts several kube-apiserver instances, each with its own
	// watch cache, over the one store, and routes lanes to them.
	APIServers APIServers `json:"apiservers,omitzero"`
	// Namespaces are created (quietly) before anything else.
	Namespaces []string `json:"namespaces,omitempty"`
	// Objects are created before the timeline, in order, or in an order
	// drawn from the seed when ShuffleObjects is set.
	Objects        []Write  `json:"objects,omitempty"`
	ShuffleObjects bool     `json:"shuffleObjects,omitempty"`
	Clients        []Client `json:"clients,omitempty"`
	Timeline       []Step   `json:"timeline"`
	Expect         Expect   `json:"expect,omitzero"`
}

// Server configures the fake server's watch cache.
type Server struct {
	WatchCacheMinEvents int `json:"watchCacheMinEvents,omitempty"`
	WatchCacheMaxEvents int `json:"watchCacheMaxEvents,omitempty"`
	// CountOnly sizes the watch cache by events only (no 75 s growth).
	CountOnly bool `json:"countOnly,omitempty"`
	// SlowWatcherMaxLag ends a watch, with no ERROR event, that falls
	// more than this many events behind (fakeapiserver's
	// WatchConfig.SlowWatcherMaxLag).
	SlowWatcherMaxLag int `json:"slowWatcherMaxLag,omitempty"`
}

// APIServers is the topology: Count instances ("apiserver-0", ...) behind
// a load balancer (Balancing: fakeapiserver's "round-robin", the default,
// "sticky-connection" or "sticky-client"). Routes sends every request of a
// lane (a client's name, or a list's or watch's lane; "scenario", or
// "", is the scenario's own) to one instance; other lanes go through the balancer.
// The instance faults (LagAPIServer, FreezeAPIServer, PartitionAPIServer,
// RestartAPIServer, HealAPIServer) are fault steps. Balancing
// "round-robin-per-lane" ([BalanceRoundRobinPerLane]) is the chaos
// property tests' own balancer: each lane's requests go to the instances
// in turn, so which instance a request meets depends on its lane alone.
type APIServers struct {
	Count     int               `json:"count,omitempty"`
	Balancing string            `json:"balancing,omitempty"`
	Routes    map[string]string `json:"routes,omitempty"`
}

// Client is a client the timeline starts with startClient. Kind is
// "listwatch" (this project's client; the default), "reflector" (a bare
// client-go Reflector into a store), "reflector-1.11" (the same Reflector
// as Kubernetes 1.11 ran it: every LIST at resourceVersion=0, and a relist
// a second after its watch failed; kubernetes#59848) or "informer" (a
// client-go SharedIndexInformer). WatchList syncs by a watch-list stream
// instead of LIST+WATCH. The client's lane in the timeline is its name.
type Client struct {
	Name            string          `json:"name"`
	Kind            string          `json:"kind,omitempty"`
	WatchList       bool            `json:"watchList,omitempty"`
	PageSize        int64           `json:"pageSize,omitempty"`
	MinWatchTimeout faults.Duration `json:"minWatchTimeout,omitempty"`
	// UserAgent is appended to the client's User-Agent, so that faults
	// can aim at it (a fault's match.userAgent is a substring).
	UserAgent string `json:"userAgent,omitempty"`
}

// Write names a ConfigMap to write; Namespace defaults to the namespace "default"
// and Value to the step's index (objects: "v<random>" when shuffled).
type Write struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Value     string `json:"value,omitempty"`
	// Labels are the object's labels after the write (an update without
	// them keeps the labels it had; {} removes them all).
	Labels map[string]string `json:"labels,omitempty"`
}

// Step is one step of the timeline: exactly one field is set.
type Step struct {
	Note   string `json:"note,omitempty"`
	Create *Write `json:"create,omitempty"`
	Update *Write `json:"update,omitempty"`
	// Write creates the object, or updates it if it exists.
	Write  *Write `json:"write,omitempty"`
	Delete *Write `json:"delete,omitempty"`
	// Fault is a fault of the fault API, in its JSON form (the control
	// API's).
	Fault       *faults.Fault   `json:"fault,omitempty"`
	ClearFaults bool            `json:"clearFaults,omitempty"`
	Advance     faults.Duration `json:"advance,omitempty"`
	// CurrentRV stores the server's current resourceVersion under this id.
	CurrentRV string `json:"currentRV,omitempty"`
	// Route sends the lane's requests from now on to one apiserver (a
	// load balancer's choice when the client reconnects); it needs
	// apiservers.
	Route       *Route `json:"route,omitempty"`
	StartClient string `json:"startClient,omitempty"`
	// WaitSync waits until the client's store equals the server's state.
	WaitSync *Sync `json:"waitSync,omitempty"`
	// AwaitClient waits for a decision of a client and puts what the
	// clients did until then into the timeline.
	AwaitClient *Await `json:"awaitClient,omitempty"`
	List        *List  `json:"list,omitempty"`
	// Get is a raw GET of one ConfigMap (Name), with the fields of a
	// list step but follow and into.
	Get          *List   `json:"get,omitempty"`
	Watch        *Watch  `json:"watch,omitempty"`
	ExpectEvents *Events `json:"expectEvents,omitempty"`
	// AwaitList receives the answer of the async list with this id and
	// checks it.
	AwaitList string `json:"awaitList,omitempty"`
	// AwaitTimers waits until this many timers are armed on the clock
	// (the server's watch deadlines, bookmarks, reads waiting for an RV):
	// before an advance that must fire them.
	AwaitTimers int `json:"awaitTimers,omitempty"`
	// Compact compacts the history below this RV, as etcd does.
	Compact string `json:"compact,omitempty"`
	// WatchCacheHorizon says where the watch cache's window starts (only
	// the file knows: it sized the window), for the HTML diagram.
	WatchCacheHorizon *Horizon `json:"watchCacheHorizon,omitempty"`
	// Close closes the watch with this id.
	Close string `json:"close,omitempty"`
	// RestartWatchCache restarts the apiserver as far as watches can
	// tell: every open watch ends cleanly and the watch cache forgets its
	// history. The RV its window starts at now is stored under this id.
	RestartWatchCache string `json:"restartWatchCache,omitempty"`
	// CreateMany creates many large objects, recorded as one write.
	CreateMany *CreateMany `json:"createMany,omitempty"`
	// Resume lets the paused watch with this id read again.
	Resume string `json:"resume,omitempty"`
	// Drain reads a watch to its end and checks how it ended.
	Drain *Drain `json:"drain,omitempty"`
	// ExpectRecorded checks that the timeline so far has an entry.
	ExpectRecorded *Recorded `json:"expectRecorded,omitempty"`
	// Pager lists with client-go's pager.
	Pager *Pager `json:"pager,omitempty"`
	// ExpectStore checks, now, that a client's store equals the
	// server's state (expect.storeEqualsServer waits for it instead).
	ExpectStore *StoreCheck `json:"expectStore,omitempty"`
	// ExpectCache checks what a naive cache holds.
	ExpectCache *CacheCheck `json:"expectCache,omitempty"`
	// Set stores a value under an id (see [Set]).
	Set *Set `json:"set,omitempty"`
	// ReadInitialEvents reads a watch-list's initial events.
	ReadInitialEvents *InitialEvents `json:"readInitialEvents,omitempty"`
	// ExpectLess checks measurements against each other.
	ExpectLess *Less `json:"expectLess,omitempty"`
}

// InitialEvents reads the events of a watch-list stream (Watch) without
// recording each, up to its initial-events-end bookmark, and records one
// summary line. It stores, under ID, the bookmark's RV; under ID.added
// the number of ADDED events, ID.bytes their frames' bytes in all (the
// bookmark's included), ID.maxFrame the largest ADDED frame. Expect, if
// set, checks them.
type InitialEvents struct {
	Watch  string              `json:"watch"`
	ID     string              `json:"id"`
	Expect *InitialEventsCheck `json:"expect,omitempty"`
}

// InitialEventsCheck is what a watch-list's initial events must be: this
// many ADDED events, ending at the bookmark's RV (expanded).
type InitialEventsCheck struct {
	Added  int    `json:"added,omitempty"`
	RV     string `json:"rv,omitempty"`
	Lesson string `json:"lesson,omitempty"`
}

// Less checks that Values, once expanded, are integers in strictly
// increasing order. A value may be a product, "{{x.bytes}}*2".
type Less struct {
	Values []string `json:"values"`
	Lesson string   `json:"lesson,omitempty"`
}

// StoreCheck names a started client whose store must equal the
// server's state now; or, with Names, whose store must hold exactly the
// objects of these names now (a way back in time is a store that differs
// from the server's).
type StoreCheck struct {
	Client string   `json:"client"`
	Names  []string `json:"names,omitempty"`
	Lesson string   `json:"lesson,omitempty"`
}

// Route sends every later request of Lane to APIServer ("apiserver-N").
type Route struct {
	Lane      string `json:"lane"`
	APIServer string `json:"apiserver"`
}

// CacheCheck is what a naive cache must hold: exactly Names.
//
// A naive cache is the state of a deliberately wrong client that the
// timeline plays with raw requests: a list step with into: NAME fills
// it with the list's items, and an expectEvents step with apply: NAME
// applies the events read (ADDED and MODIFIED put the object in,
// DELETED takes it out, anything else, such as an ERROR event, is
// ignored). Such a client does none of what listwatch does, so the
// timeline shows what it gets wrong.
type CacheCheck struct {
	Cache  string   `json:"cache"`
	Names  []string `json:"names"`
	Lesson string   `json:"lesson,omitempty"`
}

// Pager lists the ConfigMaps of the namespace "default" with client-go's
// pager (k8s.io/client-go/tools/pager), PageSize items a page, through
// the recorded clientset. Between are steps run once, after the first
// page and before the second (writes, a compaction). The result's RV is
// stored under ID; Expect checks the result (code, reason, message and
// header do not apply: the pager returns items or an error).
type Pager struct {
	ID       string      `json:"id,omitempty"`
	PageSize int64       `json:"pageSize"`
	Between  []Step      `json:"between,omitempty"`
	Expect   *ListExpect `json:"expect,omitempty"`
}

// Set stores Value, expanded, under ID: a seeded choice with
// {{pick a b c}}, or a name to refer to later.
type Set struct {
	ID    string `json:"id"`
	Value string `json:"value"`
}

// Recorded is an entry the timeline must have: one of Kind (request,
// response, event, write, clock, fault, client, check, note) whose text
// contains every one of Contains (expanded). A client's decisions enter
// the timeline when a step awaits that client.
type Recorded struct {
	Kind     string   `json:"kind"`
	Contains []string `json:"contains,omitempty"`
	// Text, if set, is the entry's whole text (expanded).
	Text string `json:"text,omitempty"`
	// RV, if set, is the entry's resourceVersion (expanded).
	RV string `json:"rv,omitempty"`
	// Count, if set, is how many entries must match, exactly.
	Count  int    `json:"count,omitempty"`
	Lesson string `json:"lesson,omitempty"`
}

// CreateMany creates Count ConfigMaps named Prefix plus a zero-padded
// index, each holding Bytes bytes, quietly: the timeline gets one write
// line (with Note, if set). The last one's RV is stored under ID.
type CreateMany struct {
	ID     string `json:"id,omitempty"`
	Prefix string `json:"prefix"`
	Count  int    `json:"count"`
	Bytes  int    `json:"bytes"`
	Note   string `json:"note,omitempty"`
}

// Drain reads the watch's events, without recording each, until the
// stream ends, and checks the end: Clean, that the response ended with
// no decode error; FewerThan, that fewer events than that arrived.
type Drain struct {
	Watch     string `json:"watch"`
	Clean     bool   `json:"clean,omitempty"`
	FewerThan int    `json:"fewerThan,omitempty"`
	Lesson    string `json:"lesson,omitempty"`
}

// Sync waits, stepping the clock a second at a time for at most
// Within (default 15m), until Client's store equals the server's state.
type Sync struct {
	Client string          `json:"client"`
	Within faults.Duration `json:"within,omitempty"`
}

// Await waits, stepping the clock through the client's backoffs, for
// the client's first trace entry of kind Trace (synced, applied, relist,
// watch-start, ... : listwatch's TraceKind; "backoff" also for a
// client-go Reflector; "request" and "response", one of the client's
// requests and an answer to one; "event", an ERROR event on a client-go
// client's watch) whose text contains Contains. A client-go Reflector
// sends its WATCH only once it has put its LIST's items in its store: a
// step that awaits that request may check the store.
type Await struct {
	Client   string `json:"client"`
	Trace    string `json:"trace"`
	Contains string `json:"contains,omitempty"`
}

// Horizon is an RV and what it means, both expanded.
type Horizon struct {
	RV   string `json:"rv"`
	Note string `json:"note"`
}

// List is a raw LIST of the ConfigMaps of the namespace "default"; its RV is
// stored under ID, its continue token (or that of its 410 Status) under
// ID.continue, its response's size under ID.bytes (in a template,
// {{kib ID.bytes}} renders a size in KiB).
type List struct {
	ID string `json:"id,omitempty"`
	// Name is the object a get step reads (a list step has none); its
	// expectation's names are [Name] when it answers the object.
	Name string `json:"name,omitempty"`
	// Async sends the LIST without waiting for the answer (a read the
	// server holds until an RV arrives); awaitList ID receives it.
	Async  bool        `json:"async,omitempty"`
	Query  string      `json:"query,omitempty"`
	Lane   string      `json:"lane,omitempty"`
	Expect *ListExpect `json:"expect,omitempty"`
	// Into fills the naive cache of this name with the list's items
	// (see [CacheCheck]).
	Into string `json:"into,omitempty"`
	// Follow follows the continue tokens: one request per page, until
	// the last. The expectation is checked on the last page; ID.pages is
	// the number of pages, ID.bytes their bytes in all, ID.maxBytes the
	// largest.
	Follow bool `json:"follow,omitempty"`
}

// ListExpect is what a LIST must answer: status code, the Status's
// reason, the item names in order.
type ListExpect struct {
	Code   int                 `json:"code,omitempty"`
	Reason metav1.StatusReason `json:"reason,omitempty"`
	// Message is the Status's message.
	Message string `json:"message,omitempty"`
	// RV is the list's resourceVersion.
	RV    string   `json:"rv,omitempty"`
	Names []string `json:"names,omitempty"`
	// Header are response headers and their values.
	Header map[string]string `json:"header,omitempty"`
	// Count is the number of items (0: not checked; names: [] expects
	// none).
	Count int `json:"count,omitempty"`
	// Pages is the number of pages a followed list took.
	Pages int `json:"pages,omitempty"`
	// RemainingItemCount is the list's metadata.remainingItemCount.
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
	// More expects a continue token: in the list's metadata, or in the
	// metadata of a 410's Status (a token to go on inconsistently).
	More bool `json:"more,omitempty"`
	// LastPage expects neither a continue token nor a
	// remainingItemCount.
	LastPage bool `json:"lastPage,omitempty"`
	// Token is what the continue token must decode to.
	Token *Token `json:"token,omitempty"`
	// Lesson is what the answer teaches, for the timeline's check line.
	Lesson string `json:"lesson,omitempty"`
}

// Token is a continue token's content (kube-apiserver's
// pkg/storage/continue.go): the list's RV and the key after which the
// next page starts, both expanded. Unset fields are not checked.
type Token struct {
	RV    string `json:"rv,omitempty"`
	Start string `json:"start,omitempty"`
}

// Watch opens a raw WATCH of the ConfigMaps of the namespace "default".
type Watch struct {
	ID    string `json:"id"`
	Query string `json:"query,omitempty"`
	Lane  string `json:"lane,omitempty"`
	// Typed opens the watch with client-go's typed clientset instead of
	// raw HTTP: Query holds its list options (resourceVersion=...), and
	// a stream that ends is reported like client-go reports it, with no
	// frame or decode error.
	Typed bool `json:"typed,omitempty"`
	// Paused opens the watch with a client that reads nothing until a
	// resume step: the server's writes block once the connection's
	// buffers are full.
	Paused bool `json:"paused,omitempty"`
	// Expect checks the response's head, before any event.
	Expect *WatchExpect `json:"expect,omitempty"`
}

// WatchExpect is what a WATCH's response head must be: its status
// code, headers, and whether it is chunked with no Content-Length.
type WatchExpect struct {
	Code    int               `json:"code,omitempty"`
	Header  map[string]string `json:"header,omitempty"`
	Chunked bool              `json:"chunked,omitempty"`
	Lesson  string            `json:"lesson,omitempty"`
}

// Events is the exact sequence of the next events of a watch.
type Events struct {
	Watch  string  `json:"watch"`
	Events []Event `json:"events"`
	// Lesson is what the events teach, for the timeline's check line.
	Lesson string `json:"lesson,omitempty"`
	// Apply applies the events read to the naive cache of this name
	// (see [CacheCheck]).
	Apply string `json:"apply,omitempty"`
	// Silent, with no Events, expects nothing to have arrived: the
	// stream is open and has nothing to read now (deterministic only for
	// a stream the scenario knows to be stopped, a hung one).
	Silent bool `json:"silent,omitempty"`
	// At, if set, is the virtual time since the start at which the last
	// event must have arrived.
	At faults.Duration `json:"at,omitempty"`
}

// Event is one expected event; unset fields are not checked, but Type
// (or End) always is.
type Event struct {
	Type             watch.EventType     `json:"type,omitempty"`
	Name             string              `json:"name,omitempty"`
	RV               string              `json:"rv,omitempty"`
	InitialEventsEnd bool                `json:"initialEventsEnd,omitempty"`
	Code             int32               `json:"code,omitempty"`
	Reason           metav1.StatusReason `json:"reason,omitempty"`
	// Message is an ERROR event's Status message (expanded).
	Message string `json:"message,omitempty"`
	// Kind and APIVersion are the event object's (raw watches).
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	// End expects the clean end of the stream (the response ended, no
	// decode error).
	End bool `json:"end,omitempty"`
	// Cut expects the stream to break: a frame cut short or the
	// connection reset, not a clean end.
	Cut bool `json:"cut,omitempty"`
}

// Expect is checked after the timeline.
type Expect struct {
	// StoreEqualsServer names clients whose store must equal the server's
	// state within 15 virtual minutes (the faults are cleared first).
	StoreEqualsServer []string `json:"storeEqualsServer,omitempty"`
	// MaxLists bounds the LIST requests each named client sent.
	MaxLists map[string]int `json:"maxLists,omitempty"`
	// WatchStats are the server's watch counters at the end.
	WatchStats *WatchStats `json:"watchStats,omitempty"`
}

// WatchStats are the server's watch counters (fakeapiserver's
// WatchStats) a run must end with; nil fields are not checked.
type WatchStats struct {
	Started    *int64 `json:"started,omitempty"`
	EventsSent *int64 `json:"eventsSent,omitempty"`
	Expired    *int64 `json:"expired,omitempty"`
	// SlowTerminated counts watches ended for falling behind.
	SlowTerminated *int64 `json:"slowTerminated,omitempty"`
	Lesson         string `json:"lesson,omitempty"`
}
