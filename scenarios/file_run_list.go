package scenarios

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
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
	if l.Name != "" {
		path += "/" + l.Name
	}
	if q != "" {
		path += "?" + q
	}
	r.e.SetLane(l.Lane)
	defer r.e.SetLane("")
	if l.Follow {
		return r.followList(l, q)
	}
	if l.Async {
		r.pending[l.ID] = pendingList{l: l, q: q, ch: r.e.GetAsync(path)}
		return nil
	}
	res, err := r.e.Get(path)
	if err != nil {
		return err
	}
	return r.checkList(l, q, res, 0)
}

// followList lists page after page, following the continue tokens, and
// checks the last page (and the number of pages).
func (r *fileRun) followList(l *scenariofile.List, q string) error {
	pages, total, largest := 0, 0, 0
	next := cmPath + "?" + q
	for {
		res, err := r.e.Get(next)
		if err != nil {
			return err
		}
		pages++
		total += res.Bytes
		largest = max(largest, res.Bytes)
		if res.Code != http.StatusOK || res.Continue == "" {
			if l.ID != "" {
				r.vars[l.ID+".pages"] = strconv.Itoa(pages)
				r.vars[l.ID+".maxBytes"] = strconv.Itoa(largest)
				r.vars[l.ID+".bytes"] = strconv.Itoa(total)
			}
			return r.checkList(l, q+" (following continue)", res, pages)
		}
		next = cmPath + "?" + q + "&continue=" + url.QueryEscape(res.Continue)
	}
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
	return r.checkList(p.l, p.q, res, 0)
}

// checkList stores a LIST's RV and continue token under its id and
// checks its expectation.
func (r *fileRun) checkList(l *scenariofile.List, q string, res *ListResult, pages int) error {
	if l.ID != "" {
		r.vars[l.ID] = res.RV
		r.vars[l.ID+".continue"] = listContinue(res)
		if pages == 0 { // a followed list stored its pages' sizes
			r.vars[l.ID+".bytes"] = strconv.Itoa(res.Bytes)
		}
	}
	if l.Into != "" {
		r.caches[l.Into] = naiveCacheOf(res.Names)
	}
	x := l.Expect
	if x == nil {
		return nil
	}
	want, err := r.expandListExpect(x)
	if err != nil {
		return err
	}
	got, ok := listMatches(res, &want)
	if want.Pages != 0 && pages != want.Pages {
		ok, got = false, fmt.Sprintf("%d pages, the last %s", pages, got)
	}
	target := listTarget(q)
	if l.Name != "" {
		target = "GET " + l.Name + strings.TrimPrefix(target, "LIST")
	}
	if !ok {
		return r.e.Expect(false, "%s answers %s; got %s", target, describeListExpect(&want), got)
	}
	return r.e.Expect(true, "%s answers %s%s", target, describeListExpect(&want), lesson(want.Lesson))
}

// listContinue is a LIST's continue token, or its 410 Status's.
func listContinue(res *ListResult) string {
	if res.Status != nil {
		return res.Status.Continue
	}
	return res.Continue
}

// expandListExpect is x with its results expanded.
func (r *fileRun) expandListExpect(x *scenariofile.ListExpect) (scenariofile.ListExpect, error) {
	want := *x
	want.Names = slices.Clone(x.Names)
	want.Header = maps.Clone(x.Header)
	fields := []*string{&want.RV, &want.Message, &want.Lesson}
	for i := range want.Names {
		fields = append(fields, &want.Names[i])
	}
	for h, v := range want.Header {
		v, err := r.expand(v)
		if err != nil {
			return want, err
		}
		want.Header[h] = v
	}
	if x.Token != nil {
		tok := *x.Token
		want.Token = &tok
		fields = append(fields, &tok.RV, &tok.Start)
	}
	for _, f := range fields {
		v, err := r.expand(*f)
		if err != nil {
			return want, err
		}
		*f = v
	}
	return want, nil
}

// listMatches reports whether res is what want expects, and describes
// res in the terms of want.
func listMatches(res *ListResult, want *scenariofile.ListExpect) (string, bool) {
	var reason metav1.StatusReason
	var message string
	if res.Status != nil {
		reason, message = res.Status.Reason, res.Status.Message
	}
	tok := listContinue(res)
	ok := (want.Code == 0 || res.Code == want.Code) && (want.Reason == "" || reason == want.Reason) &&
		(want.Message == "" || message == want.Message) && (want.RV == "" || res.RV == want.RV) &&
		(want.Names == nil || slices.Equal(res.Names, want.Names)) && (want.Count == 0 || len(res.Names) == want.Count) &&
		(want.RemainingItemCount == nil || res.Remaining != nil && *res.Remaining == *want.RemainingItemCount) &&
		(!want.More || tok != "") && (!want.LastPage || tok == "" && res.Remaining == nil) &&
		(want.Token == nil || tokenMatches(tok, want.Token))
	for h, v := range want.Header {
		ok = ok && res.Header.Get(h) == v
	}
	got := fmt.Sprintf("%d %s %q rv %s %v", res.Code, reason, message, res.RV, res.Names)
	if res.Remaining != nil {
		got += fmt.Sprintf(" remainingItemCount %d", *res.Remaining)
	}
	if tok != "" {
		got += " continue " + describeContinue(tok)
	}
	return got, ok
}

// tokenMatches reports whether the continue token tok decodes to want.
func tokenMatches(tok string, want *scenariofile.Token) bool {
	c, err := decodeContinue(tok)
	return err == nil && (want.RV == "" || strconv.FormatInt(c.RV, 10) == want.RV) && (want.Start == "" || c.Start == want.Start)
}

// listTarget names a LIST by its query in check lines, a continue token
// by what it holds.
func listTarget(q string) string {
	if q == "" {
		return "LIST"
	}
	vals, err := url.ParseQuery(q)
	if tok := vals.Get("continue"); err == nil && tok != "" {
		q = strings.Replace(q, "continue="+tok, "continue="+describeContinue(tok), 1)
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
	if x.Pages != 0 {
		parts = append(parts, fmt.Sprintf("in %d pages", x.Pages))
	}
	if x.Count != 0 {
		parts = append(parts, fmt.Sprintf("%d items", x.Count))
	}
	if x.RemainingItemCount != nil {
		parts = append(parts, fmt.Sprintf("remainingItemCount %d", *x.RemainingItemCount))
	}
	if x.More {
		parts = append(parts, "a continue token")
	}
	if x.LastPage {
		parts = append(parts, "no continue token, no remainingItemCount")
	}
	if t := x.Token; t != nil {
		parts = append(parts, describeToken(t))
	}
	hs := make([]string, 0, len(x.Header))
	for h, v := range x.Header {
		hs = append(hs, h+": "+v)
	}
	slices.Sort(hs)
	parts = append(parts, hs...)
	return strings.Join(parts, " ")
}

// pager lists with client-go's pager, running the between steps after
// the first page, and checks the result.
func (r *fileRun) pager(p *scenariofile.Pager) error {
	names, rv, err := pagedList(r.e, p.PageSize, func(page int) error {
		if page != 1 {
			return nil
		}
		for i := range p.Between {
			s := &p.Between[i]
			kind, _ := s.Kind()
			if err := r.step(i, kind, s); err != nil {
				return fmt.Errorf("between[%d] (%s): %w", i, kind, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if p.ID != "" {
		r.vars[p.ID] = rv
	}
	if p.Expect == nil {
		return nil
	}
	want, err := r.expandListExpect(p.Expect)
	if err != nil {
		return err
	}
	target := fmt.Sprintf("the pager (pageSize %d)", p.PageSize)
	if got, ok := listMatches(&ListResult{Code: http.StatusOK, RV: rv, Names: names}, &want); !ok {
		return r.e.Expect(false, "%s lists %s; got %s", target, describeListExpect(&want), got)
	}
	return r.e.Expect(true, "%s lists %s%s", target, describeListExpect(&want), lesson(want.Lesson))
}

// describeToken renders an expected continue token.
func describeToken(t *scenariofile.Token) string {
	s := "a token"
	if t.RV != "" {
		s += " of rv " + t.RV
	}
	if t.Start != "" {
		s += fmt.Sprintf(" starting after %q", t.Start)
	}
	return s
}
