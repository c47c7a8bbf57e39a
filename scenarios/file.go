package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/yaml"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// FileVersion is the version of the scenario file format this package
// reads.
const FileVersion = 1

// File is a scenario written as data: YAML (or JSON, which is YAML) that
// [LoadFile] reads strictly and [File.Scenario] turns into a runnable
// [Scenario]. The objects are ConfigMaps; the raw requests read the
// ConfigMaps of [Namespace]. A minimal file:
//
//	version: 1
//	name: delete-while-watching
//	seed: 7
//	objects: [{name: alpha}, {name: bravo}]
//	clients: [{name: lw, pageSize: 2}]
//	timeline:
//	  - startClient: lw
//	  - fault: {kind: Compact, lag: 1}
//	  - delete: {name: alpha}
//	  - advance: 1m
//	expect:
//	  storeEqualsServer: [lw]
//	  maxLists: {lw: 2}
//
// Values in queries and expected resourceVersions may name earlier
// results as {{name}} or {{name+N}}: the last write of an object, a
// list's or a currentRV step's id.
type File struct {
	Version int    `json:"version"`
	Name    string `json:"name,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Answers are the article's questions the scenario answers.
	Answers []QuestionID `json:"answers,omitempty"`
	// Explanation teaches the case (built-ins keep theirs in
	// library/<name>.txt).
	Explanation string     `json:"explanation,omitempty"`
	Seed        uint64     `json:"seed,omitempty"`
	Server      FileServer `json:"server,omitzero"`
	// Namespaces are created (quietly) before anything else.
	Namespaces []string `json:"namespaces,omitempty"`
	// Objects are created before the timeline, in order, or in an order
	// drawn from the seed when ShuffleObjects is set.
	Objects        []FileWrite  `json:"objects,omitempty"`
	ShuffleObjects bool         `json:"shuffleObjects,omitempty"`
	Clients        []FileClient `json:"clients,omitempty"`
	Timeline       []FileStep   `json:"timeline"`
	Expect         FileExpect   `json:"expect,omitzero"`
}

// FileServer configures the fake server's watch cache.
type FileServer struct {
	WatchCacheMinEvents int `json:"watchCacheMinEvents,omitempty"`
	WatchCacheMaxEvents int `json:"watchCacheMaxEvents,omitempty"`
	// CountOnly sizes the watch cache by events only (no 75 s growth).
	CountOnly bool `json:"countOnly,omitempty"`
}

// FileClient is a client the timeline starts with startClient. Kind is
// "listwatch" (this project's client; the default), "reflector" (a bare
// client-go Reflector into a store) or "informer" (a client-go
// SharedIndexInformer). WatchList syncs by a watch-list stream instead of
// LIST+WATCH. The client's lane in the timeline is its name.
type FileClient struct {
	Name            string                      `json:"name"`
	Kind            string                      `json:"kind,omitempty"`
	WatchList       bool                        `json:"watchList,omitempty"`
	PageSize        int64                       `json:"pageSize,omitempty"`
	MinWatchTimeout fakeapiserver.FaultDuration `json:"minWatchTimeout,omitempty"`
}

// FileWrite names a ConfigMap to write; Namespace defaults to [Namespace]
// and Value to the step's index (objects: "v<random>" when shuffled).
type FileWrite struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Value     string `json:"value,omitempty"`
}

// FileStep is one step of the timeline: exactly one field is set.
type FileStep struct {
	Note   string     `json:"note,omitempty"`
	Create *FileWrite `json:"create,omitempty"`
	Update *FileWrite `json:"update,omitempty"`
	// Write creates the object, or updates it if it exists.
	Write  *FileWrite `json:"write,omitempty"`
	Delete *FileWrite `json:"delete,omitempty"`
	// Fault is a fault of the fault API, in its JSON form (the control
	// API's).
	Fault       *fakeapiserver.Fault        `json:"fault,omitempty"`
	ClearFaults bool                        `json:"clearFaults,omitempty"`
	Advance     fakeapiserver.FaultDuration `json:"advance,omitempty"`
	// CurrentRV stores the server's current resourceVersion under this id.
	CurrentRV   string `json:"currentRV,omitempty"`
	StartClient string `json:"startClient,omitempty"`
	// WaitSync waits until the client's store equals the server's state.
	WaitSync *FileSync `json:"waitSync,omitempty"`
	// AwaitClient waits for a decision of a client and puts what the
	// clients did until then into the timeline.
	AwaitClient  *FileAwait  `json:"awaitClient,omitempty"`
	List         *FileList   `json:"list,omitempty"`
	Watch        *FileWatch  `json:"watch,omitempty"`
	ExpectEvents *FileEvents `json:"expectEvents,omitempty"`
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
	WatchCacheHorizon *FileHorizon `json:"watchCacheHorizon,omitempty"`
	// Close closes the watch with this id.
	Close string `json:"close,omitempty"`
}

// FileSync waits, stepping the clock a second at a time for at most
// Within (default 15m), until Client's store equals the server's state.
type FileSync struct {
	Client string                      `json:"client"`
	Within fakeapiserver.FaultDuration `json:"within,omitempty"`
}

// FileAwait waits, stepping the clock through the client's backoffs, for
// the client's first trace entry of kind Trace (synced, applied, relist,
// watch-start, ... : listwatch's TraceKind; or "response", an answer to
// one of the client's requests) whose text contains Contains.
type FileAwait struct {
	Client   string `json:"client"`
	Trace    string `json:"trace"`
	Contains string `json:"contains,omitempty"`
}

// FileHorizon is an RV and what it means, both expanded.
type FileHorizon struct {
	RV   string `json:"rv"`
	Note string `json:"note"`
}

// FileList is a raw LIST of the ConfigMaps of [Namespace]; its RV is
// stored under ID.
type FileList struct {
	ID string `json:"id,omitempty"`
	// Async sends the LIST without waiting for the answer (a read the
	// server holds until an RV arrives); awaitList ID receives it.
	Async  bool            `json:"async,omitempty"`
	Query  string          `json:"query,omitempty"`
	Lane   string          `json:"lane,omitempty"`
	Expect *FileListExpect `json:"expect,omitempty"`
}

// FileListExpect is what a LIST must answer: status code, the Status's
// reason, the item names in order.
type FileListExpect struct {
	Code   int                 `json:"code,omitempty"`
	Reason metav1.StatusReason `json:"reason,omitempty"`
	// Message is the Status's message.
	Message string `json:"message,omitempty"`
	// RV is the list's resourceVersion.
	RV    string   `json:"rv,omitempty"`
	Names []string `json:"names,omitempty"`
	// Header are response headers and their values.
	Header map[string]string `json:"header,omitempty"`
	// Lesson is what the answer teaches, for the timeline's check line.
	Lesson string `json:"lesson,omitempty"`
}

// FileWatch opens a raw WATCH of the ConfigMaps of [Namespace].
type FileWatch struct {
	ID    string `json:"id"`
	Query string `json:"query,omitempty"`
	Lane  string `json:"lane,omitempty"`
	// Expect checks the response's head, before any event.
	Expect *FileWatchExpect `json:"expect,omitempty"`
}

// FileWatchExpect is what a WATCH's response head must be: its status
// code, headers, and whether it is chunked with no Content-Length.
type FileWatchExpect struct {
	Code    int               `json:"code,omitempty"`
	Header  map[string]string `json:"header,omitempty"`
	Chunked bool              `json:"chunked,omitempty"`
	Lesson  string            `json:"lesson,omitempty"`
}

// FileEvents is the exact sequence of the next events of a watch.
type FileEvents struct {
	Watch  string      `json:"watch"`
	Events []FileEvent `json:"events"`
	// Lesson is what the events teach, for the timeline's check line.
	Lesson string `json:"lesson,omitempty"`
	// At, if set, is the virtual time since the start at which the last
	// event must have arrived.
	At fakeapiserver.FaultDuration `json:"at,omitempty"`
}

// FileEvent is one expected event; unset fields are not checked, but Type
// (or End) always is.
type FileEvent struct {
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
}

// FileExpect is checked after the timeline.
type FileExpect struct {
	// StoreEqualsServer names clients whose store must equal the server's
	// state within 15 virtual minutes (the faults are cleared first).
	StoreEqualsServer []string `json:"storeEqualsServer,omitempty"`
	// MaxLists bounds the LIST requests each named client sent.
	MaxLists map[string]int `json:"maxLists,omitempty"`
	// WatchStats are the server's watch counters at the end.
	WatchStats *FileWatchStats `json:"watchStats,omitempty"`
}

// FileWatchStats are the server's watch counters (fakeapiserver's
// WatchStats) a run must end with; nil fields are not checked.
type FileWatchStats struct {
	Started    *int64 `json:"started,omitempty"`
	EventsSent *int64 `json:"eventsSent,omitempty"`
	Expired    *int64 `json:"expired,omitempty"`
	Lesson     string `json:"lesson,omitempty"`
}

// ErrFile is wrapped by every error of reading a scenario file.
var ErrFile = errors.New("scenarios: bad scenario file")

// LoadFile reads the scenario file at path. A chaos schedule
// ([ChaosFile] JSON, with "ops") is accepted and converted.
func LoadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	return ParseFile(path, b)
}

// ParseFile parses b, the contents of the scenario file path (named in
// errors). Unknown fields are errors naming the file, the line and the
// field.
func ParseFile(path string, b []byte) (*File, error) {
	if isChaosJSON(b) {
		cf, err := parseChaosFile(path, b)
		if err != nil {
			return nil, err
		}
		return cf.File(), nil
	}
	if err := checkFields(path, b, &File{}); err != nil {
		return nil, err
	}
	f, err := decodeFile(path, b)
	if err != nil {
		return nil, err
	}
	if f.Name == "" {
		f.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrFile, path, err)
	}
	return f, nil
}

// decodeFile decodes b strictly (duplicate keys and unknown fields are
// errors); a value of the wrong type is reported with its line.
func decodeFile(path string, b []byte) (*File, error) {
	j, err := yaml.YAMLToJSONStrict(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrFile, path, err)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			if line := fieldLine(b, strings.Split(te.Field, ".")); line > 0 {
				return nil, fmt.Errorf("%w: %s:%d: field %s: %s value, want %s", ErrFile, path, line, te.Field, te.Value, te.Type)
			}
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrFile, path, err)
	}
	return &f, nil
}

// isChaosJSON reports whether b looks like a chaos file: JSON with an
// "ops" list.
func isChaosJSON(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && bytes.Contains(b, []byte(`"ops"`))
}

// validate checks what decoding cannot: versions, one field per step,
// names that refer to something.
func (f *File) validate() error {
	if f.Version != FileVersion {
		return fmt.Errorf("version %d, want %d", f.Version, FileVersion)
	}
	clients := map[string]bool{}
	for i, c := range f.Clients {
		if c.Name == "" || clients[c.Name] {
			return fmt.Errorf("clients[%d]: missing or duplicate name %q", i, c.Name)
		}
		switch c.Kind {
		case "", "listwatch", clientReflector, clientInformer:
		default:
			return fmt.Errorf("clients[%d] (%s): kind %q: want listwatch, reflector or informer", i, c.Name, c.Kind)
		}
		if c.Kind == clientReflector || c.Kind == clientInformer {
			if c.PageSize != 0 || c.MinWatchTimeout != 0 {
				return fmt.Errorf("clients[%d] (%s): pageSize and minWatchTimeout are listwatch options", i, c.Name)
			}
		}
		clients[c.Name] = true
	}
	watches, pending := map[string]bool{}, map[string]bool{}
	for i, s := range f.Timeline {
		kind, n := s.kind()
		if n != 1 {
			return fmt.Errorf("timeline[%d]: a step sets exactly one of note, create, update, write, delete, fault, clearFaults, advance, currentRV, startClient, waitSync, awaitClient, list, awaitList, awaitTimers, watch, expectEvents, close, compact, watchCacheHorizon; it sets %d", i, n)
		}
		var err error
		switch kind {
		case "create", "update", "write", "delete":
			if w := s.write(); w.Name == "" {
				err = fmt.Errorf("no name")
			}
		case "startClient":
			if !clients[s.StartClient] {
				err = fmt.Errorf("no client %q", s.StartClient)
			}
		case "waitSync":
			if !clients[s.WaitSync.Client] {
				err = fmt.Errorf("no client %q", s.WaitSync.Client)
			}
		case "awaitClient":
			if !clients[s.AwaitClient.Client] || s.AwaitClient.Trace == "" {
				err = fmt.Errorf("no client %q or no trace kind", s.AwaitClient.Client)
			}
		case "list":
			if s.List.Async && s.List.ID == "" {
				err = fmt.Errorf("an async list needs an id")
			}
			if s.List.Async {
				pending[s.List.ID] = true
			}
		case "awaitList":
			if !pending[s.AwaitList] {
				err = fmt.Errorf("no async list %q sent before", s.AwaitList)
			}
			delete(pending, s.AwaitList)
		case "watch":
			if s.Watch.ID == "" {
				err = fmt.Errorf("no id")
			}
			watches[s.Watch.ID] = true
		case "expectEvents":
			if !watches[s.ExpectEvents.Watch] {
				err = fmt.Errorf("no watch %q opened before", s.ExpectEvents.Watch)
			}
		case "close":
			if !watches[s.Close] {
				err = fmt.Errorf("no watch %q opened before", s.Close)
			}
		}
		if err != nil {
			return fmt.Errorf("timeline[%d] (%s): %w", i, kind, err)
		}
	}
	for _, c := range f.Expect.StoreEqualsServer {
		if !clients[c] {
			return fmt.Errorf("expect.storeEqualsServer: no client %q", c)
		}
	}
	for c := range f.Expect.MaxLists {
		if !clients[c] {
			return fmt.Errorf("expect.maxLists: no client %q", c)
		}
	}
	return nil
}

// kind names the step's one field and counts the fields set.
func (s *FileStep) kind() (string, int) {
	set := []struct {
		name string
		on   bool
	}{
		{"note", s.Note != ""}, {"create", s.Create != nil}, {"update", s.Update != nil},
		{"write", s.Write != nil}, {"delete", s.Delete != nil}, {"fault", s.Fault != nil},
		{"clearFaults", s.ClearFaults}, {"advance", s.Advance != 0}, {"currentRV", s.CurrentRV != ""},
		{"startClient", s.StartClient != ""}, {"waitSync", s.WaitSync != nil}, {"awaitClient", s.AwaitClient != nil}, {"list", s.List != nil},
		{"watch", s.Watch != nil}, {"expectEvents", s.ExpectEvents != nil}, {"close", s.Close != ""},
		{"awaitList", s.AwaitList != ""}, {"awaitTimers", s.AwaitTimers != 0}, {"compact", s.Compact != ""},
		{"watchCacheHorizon", s.WatchCacheHorizon != nil},
	}
	name, n := "", 0
	for _, f := range set {
		if f.on {
			name, n = f.name, n+1
		}
	}
	return name, n
}

// write is the step's write, whichever kind.
func (s *FileStep) write() *FileWrite {
	for _, w := range []*FileWrite{s.Create, s.Update, s.Write, s.Delete} {
		if w != nil {
			return w
		}
	}
	return nil
}
