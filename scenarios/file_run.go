package scenarios

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// fileSyncWindow is how long waitSync and storeEqualsServer give a client
// by default, in virtual time: the largest backoff (30 s) plus a watch
// deadline (2·5 min + 30 s), with room.
const fileSyncWindow = 15 * time.Minute

// Scenario turns f into a runnable scenario.
func (f *File) Scenario() *Scenario {
	return &Scenario{
		Name:        f.Name,
		Answers:     questionIDs(f.Answers),
		Summary:     f.Summary,
		Explanation: strings.TrimSpace(f.Explanation),
		Seed:        max(f.Seed, 1),
		Config: func(c *fakeapiserver.Config) {
			if f.Server.WatchCacheMinEvents != 0 {
				c.Watch.HistoryMinEvents = f.Server.WatchCacheMinEvents
			}
			if f.Server.WatchCacheMaxEvents != 0 {
				c.Watch.HistoryMaxEvents = f.Server.WatchCacheMaxEvents
			}
			if f.Server.CountOnly {
				c.Watch.HistoryMinAge = -1
			}
			if f.Server.SlowWatcherMaxLag != 0 {
				c.Watch.SlowWatcherMaxLag = f.Server.SlowWatcherMaxLag
			}
		},
		Steps: func(e *Env) error { return (&fileRun{f: f, e: e}).run() },
	}
}

// questionIDs types the answers of a file.
func questionIDs(ids []string) []QuestionID {
	if ids == nil {
		return nil
	}
	out := make([]QuestionID, len(ids))
	for i, id := range ids {
		out[i] = QuestionID(id)
	}
	return out
}

// fileRun is the state of one run of a File.
type fileRun struct {
	f       *File
	e       *Env
	vars    map[string]string
	live    map[string]bool
	stores  map[string]cache.Store
	lists   map[string]*int
	pending map[string]pendingList
	watches map[string]*Stream
	// resumes lets each paused watch read again.
	resumes map[string]chan struct{}
}

func (r *fileRun) run() error {
	r.vars, r.live = map[string]string{}, map[string]bool{}
	r.stores, r.lists, r.watches = map[string]cache.Store{}, map[string]*int{}, map[string]*Stream{}
	r.pending, r.resumes = map[string]pendingList{}, map[string]chan struct{}{}
	for _, ns := range r.f.Namespaces {
		if _, err := r.e.quiet.CoreV1().Namespaces().Create(r.e.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("scenarios: namespace %s: %w", ns, err)
		}
	}
	if err := r.seedObjects(); err != nil {
		return err
	}
	for i := range r.f.Timeline {
		s := &r.f.Timeline[i]
		kind, _ := s.Kind()
		if err := r.step(i, kind, s); err != nil {
			return fmt.Errorf("timeline[%d] (%s): %w", i, kind, err)
		}
		if len(r.stores) > 0 {
			// The clients' goroutines act on what the step did in real
			// time (the clock is fake, the HTTP traffic real).
			r.e.settle()
		}
	}
	return r.expectations()
}

// varRef is {{name}} or {{name+N}} in a query or an expected RV.
var varRef = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.-]+?)\s*(?:\+\s*(\d+)\s*)?\}\}`)

// expand replaces every {{name}} and {{name+N}} in s by the named
// resourceVersion (plus N).
func (r *fileRun) expand(s string) (string, error) {
	var err error
	out := varRef.ReplaceAllStringFunc(s, func(m string) string {
		sm := varRef.FindStringSubmatch(m)
		v, ok := r.vars[sm[1]]
		if !ok {
			err = fmt.Errorf("scenarios: %s: no result named %q yet", m, sm[1])
			return m
		}
		if sm[2] != "" {
			n, _ := strconv.ParseInt(sm[2], 10, 64)
			v = strconv.FormatInt(rvNum(v)+n, 10)
		}
		return v
	})
	return out, err
}

// lesson renders a check's lesson as a suffix.
func lesson(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}
