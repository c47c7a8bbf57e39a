package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// expectations checks the file's expect block after the timeline.
func (r *fileRun) expectations() error {
	x := r.f.Expect
	if len(x.StoreEqualsServer) > 0 {
		r.e.srv.Faults().Clear()
		r.e.Note("faults cleared; the clients have %s of virtual time to converge", fileSyncWindow)
	}
	for _, name := range x.StoreEqualsServer {
		if r.stores[name] == nil {
			return r.e.Expect(false, "client %s was started", name)
		}
		if err := r.waitSync(name, fileSyncWindow); err != nil {
			return err
		}
	}
	if len(x.StoreEqualsServer) > 0 {
		r.e.Note("the server answered %d watch(es) with 410 Expired", r.e.srv.WatchStats().Expired)
	}
	names := make([]string, 0, len(x.MaxLists))
	for n := range x.MaxLists {
		names = append(names, n)
	}
	slices.Sort(names)
	if ws := x.WatchStats; ws != nil {
		if err := r.checkWatchStats(ws); err != nil {
			return err
		}
	}
	var failed error
	for _, n := range names {
		got := 0
		if p := r.lists[n]; p != nil {
			got = *p
		}
		// Every bound is checked (and recorded) before the run fails.
		if err := r.e.Expect(got <= x.MaxLists[n], "%s sent at most %d LIST(s); it sent %d", n, x.MaxLists[n], got); err != nil && failed == nil {
			failed = err
		}
	}
	return failed
}

// checkWatchStats checks the server's watch counters.
func (r *fileRun) checkWatchStats(x *scenariofile.WatchStats) error {
	st := r.e.srv.WatchStats()
	var want, got []string
	ok := true
	for _, c := range []struct {
		name string
		want *int64
		got  int64
	}{{"started", x.Started, st.Started}, {"eventsSent", x.EventsSent, st.EventsSent}, {"expired", x.Expired, st.Expired},
		{"slowTerminated", x.SlowTerminated, st.SlowTerminated}} {
		if c.want == nil {
			continue
		}
		want = append(want, fmt.Sprintf("%s %d", c.name, *c.want))
		got = append(got, fmt.Sprintf("%s %d", c.name, c.got))
		ok = ok && *c.want == c.got
	}
	text, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	if !ok {
		return r.e.Expect(false, "the server's watch counters are %s; they are %s", strings.Join(want, ", "), strings.Join(got, ", "))
	}
	return r.e.Expect(true, "the server's watch counters are %s%s", strings.Join(want, ", "), lesson(text))
}

// expectRecorded checks that the timeline so far has an entry (or
// exactly Count entries) of the kind, at the RV, containing every text.
func (r *fileRun) expectRecorded(x *scenariofile.Recorded) error {
	parts := make([]string, len(x.Contains))
	for i, c := range x.Contains {
		var err error
		if parts[i], err = r.expand(c); err != nil {
			return err
		}
	}
	rv, err := r.expand(x.RV)
	if err != nil {
		return err
	}
	text, err := r.expand(x.Text)
	if err != nil {
		return err
	}
	if text != "" {
		parts = append(parts, text)
	}
	l, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	n := 0
	for _, en := range r.e.Timeline() {
		if en.Kind == Kind(x.Kind) && (rv == "" || en.RV == rv) && (text == "" || en.Text == text) && containsAll(en.Text, parts) {
			n++
		}
	}
	what := describeRecorded(x.Kind, rv, parts, x.Count)
	if x.Count != 0 {
		return r.e.Expect(n == x.Count, "%s%s", what, lesson(l))
	}
	return r.e.Expect(n > 0, "%s%s", what, lesson(l))
}

// containsAll reports whether text contains every part.
func containsAll(text string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(text, p) {
			return false
		}
	}
	return true
}

// describeRecorded renders an expectRecorded for a check line.
func describeRecorded(kind, rv string, parts []string, count int) string {
	s := "a " + kind + " entry"
	if count != 0 {
		s = fmt.Sprintf("%d %s entries", count, kind)
	}
	if rv != "" {
		s += " at rv " + rv
	}
	if len(parts) > 0 {
		quoted := make([]string, len(parts))
		for i, p := range parts {
			quoted[i] = strconv.Quote(p)
		}
		verb := " says "
		if count > 1 {
			verb = " say "
		}
		s += verb + strings.Join(quoted, " and ")
	}
	return s
}

// expandAll is ss, each expanded.
func (r *fileRun) expandAll(ss []string) ([]string, error) {
	out := make([]string, len(ss))
	for i, s := range ss {
		v, err := r.expand(s)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// expectStore checks that a client's store equals the server's state
// now.
func (r *fileRun) expectStore(x *scenariofile.StoreCheck) error {
	if r.stores[x.Client] == nil {
		return r.e.Expect(false, "client %s was started", x.Client)
	}
	l, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	if x.Names != nil {
		got := storeState(r.stores[x.Client])
		names := make([]string, 0, len(got))
		for k := range got {
			names = append(names, strings.TrimPrefix(k, Namespace+"/"))
		}
		slices.Sort(names)
		expanded, err := r.expandAll(x.Names)
		if err != nil {
			return err
		}
		want := slices.Sorted(slices.Values(expanded))
		return r.e.Expect(slices.Equal(names, want), "%s's store holds %v: %s%s", x.Client, want, describeState(got), lesson(l))
	}
	want, err := r.e.chaosState(Namespace)
	if err != nil {
		return err
	}
	got := storeState(r.stores[x.Client])
	if diff := cmp.Diff(want, got); diff != "" {
		return r.e.Expect(false, "%s's store equals the server's state (-server +store):\n%s", x.Client, diff)
	}
	return r.e.Expect(true, "%s's store equals the server's state: %s%s", x.Client, describeState(got), lesson(l))
}

// describeState renders key → RV as sorted name@rv.
func describeState(state map[string]string) string {
	out := make([]string, 0, len(state))
	for k, rv := range state {
		out = append(out, strings.TrimPrefix(k, Namespace+"/")+"@"+rv)
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// expectCache checks what a naive cache holds.
func (r *fileRun) expectCache(x *scenariofile.CacheCheck) error {
	c := r.caches[x.Cache]
	names, err := r.expandAll(x.Names)
	if err != nil {
		return err
	}
	want := naiveCacheOf(names)
	l, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	if c.String() != want.String() {
		return r.e.Expect(false, "the %s cache holds %s; it holds %s", x.Cache, want, c)
	}
	return r.e.Expect(true, "the %s cache holds %s%s", x.Cache, c, lesson(l))
}

// expectLess checks that the values are integers in strictly increasing
// order.
func (r *fileRun) expectLess(x *scenariofile.Less) error {
	nums := make([]int64, len(x.Values))
	shown := make([]string, len(x.Values))
	for i, v := range x.Values {
		s, err := r.expand(v)
		if err != nil {
			return err
		}
		if nums[i], err = product(s); err != nil {
			return fmt.Errorf("scenarios: expectLess value %q: %w", v, err)
		}
		shown[i] = strconv.FormatInt(nums[i], 10)
	}
	ok := true
	for i := 1; i < len(nums); i++ {
		ok = ok && nums[i-1] < nums[i]
	}
	l, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	return r.e.Expect(ok, "%s%s", strings.Join(shown, " < "), lesson(l))
}

// product evaluates "a" or "a*b*...", integers.
func product(s string) (int64, error) {
	out := int64(1)
	for f := range strings.SplitSeq(s, "*") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return 0, err
		}
		out *= n
	}
	return out, nil
}
