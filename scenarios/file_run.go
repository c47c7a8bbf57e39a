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
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// fileSyncWindow is how long waitSync and storeEqualsServer give a client
// by default, in virtual time: the largest backoff (30 s) plus a watch
// deadline (2·5 min + 30 s), with room.
const fileSyncWindow = 15 * time.Minute

// Scenario turns f into a runnable scenario.
func (f *File) Scenario() *Scenario {
	balancing, rotate := f.APIServers.Balancing, 0
	if balancing == scenariofile.BalanceRoundRobinPerLane {
		balancing, rotate = "", max(f.APIServers.Count, 1)
	}
	return &Scenario{
		Name:        f.Name,
		Answers:     questionIDs(f.Answers),
		Proves:      f.Proves,
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
			c.APIServers = fakeapiserver.APIServersConfig{Count: f.APIServers.Count, Balancing: fakeapiserver.Balancing(balancing)}
		},
		Routes:      f.APIServers.Routes,
		RotateLanes: rotate,
		Steps:       func(e *Env) error { return (&fileRun{f: f, e: e}).run() },
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
	// caches are the naive clients' caches.
	caches map[string]naiveCache
	// funcs runs each kind of step.
	funcs map[string]stepFunc
	// resumes lets each paused watch read again.
	resumes map[string]chan struct{}
}

func (r *fileRun) run() error {
	r.vars, r.live = map[string]string{}, map[string]bool{}
	r.stores, r.lists, r.watches = map[string]cache.Store{}, map[string]*int{}, map[string]*Stream{}
	r.pending, r.resumes = map[string]pendingList{}, map[string]chan struct{}{}
	r.funcs, r.caches = stepFuncs(), map[string]naiveCache{}
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

// varRef is a template in a value: {{name}} or {{name+N}}, a result;
// {{kib name}}, a size result in KiB; {{rand N}} or {{pick a b c}}, a
// draw from the run's seed.
var varRef = regexp.MustCompile(`\{\{([^{}]*)\}\}`)

// expand replaces every template in s, left to right (so draws happen in
// the order they are written).
func (r *fileRun) expand(s string) (string, error) {
	var err error
	out := varRef.ReplaceAllStringFunc(s, func(m string) string {
		v, e := r.template(strings.TrimSpace(m[2 : len(m)-2]))
		if e != nil && err == nil {
			err = fmt.Errorf("scenarios: %s: %w", m, e)
		}
		return v
	})
	return out, err
}

// template is the value of one template's inside.
func (r *fileRun) template(in string) (string, error) {
	words := strings.Fields(in)
	switch {
	case len(words) == 2 && words[0] == "rand":
		n, err := strconv.Atoi(words[1])
		if err != nil || n <= 0 {
			return "", fmt.Errorf("rand needs a positive bound")
		}
		return strconv.Itoa(r.e.Rand().IntN(n)), nil
	case len(words) > 1 && words[0] == "pick":
		return words[1+r.e.Rand().IntN(len(words)-1)], nil
	case len(words) == 2 && words[0] == "kib":
		n, err := strconv.Atoi(r.vars[words[1]])
		if err != nil {
			return "", fmt.Errorf("no size named %q yet", words[1])
		}
		return kib(n), nil
	}
	name, plus, hasPlus := strings.Cut(in, "+")
	name = strings.TrimSpace(name)
	v, ok := r.vars[name]
	if !ok {
		return "", fmt.Errorf("no result named %q yet", name)
	}
	if hasPlus {
		n, err := strconv.ParseInt(strings.TrimSpace(plus), 10, 64)
		if err != nil {
			return "", fmt.Errorf("%q: not a number", plus)
		}
		v = strconv.FormatInt(rvNum(v)+n, 10)
	}
	return v, nil
}

// lesson renders a check's lesson as a suffix.
func lesson(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// kib renders a byte count in KiB with one decimal.
func kib(n int) string { return fmt.Sprintf("%.1f KiB", float64(n)/1024) }
