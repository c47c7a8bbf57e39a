package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

func (r *fileRun) list(l *scenariofile.List) error {
	q, err := r.expand(l.Query)
	if err != nil {
		return err
	}
	path := cmPath
	if q != "" {
		path += "?" + q
	}
	r.e.SetLane(l.Lane)
	defer r.e.SetLane("")
	if l.Async {
		r.pending[l.ID] = pendingList{l: l, q: q, ch: r.e.GetAsync(path)}
		return nil
	}
	res, err := r.e.Get(path)
	if err != nil {
		return err
	}
	return r.checkList(l, q, res)
}

// pendingList is an async LIST waiting for awaitList.
type pendingList struct {
	l  *scenariofile.List
	q  string
	ch <-chan getResult
}

func (r *fileRun) awaitList(id string) error {
	p := r.pending[id]
	delete(r.pending, id)
	res, err := r.e.Await(p.ch)
	if err != nil {
		return err
	}
	return r.checkList(p.l, p.q, res)
}

// checkList stores a LIST's RV under its id and checks its expectation.
func (r *fileRun) checkList(l *scenariofile.List, q string, res *ListResult) error {
	if l.ID != "" {
		r.vars[l.ID] = res.RV
	}
	x := l.Expect
	if x == nil {
		return nil
	}
	var want scenariofile.ListExpect = *x
	var err error
	if want.RV, err = r.expand(x.RV); err != nil {
		return err
	}
	if want.Message, err = r.expand(x.Message); err != nil {
		return err
	}
	var reason metav1.StatusReason
	var message string
	if res.Status != nil {
		reason, message = res.Status.Reason, res.Status.Message
	}
	ok := (want.Code == 0 || res.Code == want.Code) && (want.Reason == "" || reason == want.Reason) &&
		(want.Message == "" || message == want.Message) && (want.RV == "" || res.RV == want.RV) &&
		(want.Names == nil || slices.Equal(res.Names, want.Names))
	for h, v := range want.Header {
		ok = ok && res.Header.Get(h) == v
	}
	if !ok {
		return r.e.Expect(false, "%s answers %s; got %d %s %q rv %s %v", listTarget(q), describeListExpect(&want), res.Code, reason, message, res.RV, res.Names)
	}
	text, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	return r.e.Expect(true, "%s answers %s%s", listTarget(q), describeListExpect(&want), lesson(text))
}

// listTarget names a LIST by its query in check lines.
func listTarget(q string) string {
	if q == "" {
		return "LIST"
	}
	return "LIST ?" + q
}

func describeListExpect(x *scenariofile.ListExpect) string {
	var parts []string
	if x.Code != 0 {
		parts = append(parts, strconv.Itoa(x.Code))
	}
	if x.Reason != "" {
		parts = append(parts, string(x.Reason))
	}
	if x.Message != "" {
		parts = append(parts, strconv.Quote(x.Message))
	}
	if x.RV != "" {
		parts = append(parts, "rv "+x.RV)
	}
	if x.Names != nil {
		parts = append(parts, fmt.Sprint(x.Names))
	}
	hs := make([]string, 0, len(x.Header))
	for h, v := range x.Header {
		hs = append(hs, h+": "+v)
	}
	slices.Sort(hs)
	parts = append(parts, hs...)
	return strings.Join(parts, " ")
}
