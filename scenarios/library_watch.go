package scenarios

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// cmPath is the ConfigMap collection of [Namespace].
const cmPath = "/api/v1/namespaces/" + Namespace + "/configmaps"

// greek are object names; scenarios create them in a seeded order.
var greek = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}

// createShuffled creates ConfigMaps named names in an order drawn from the
// run's seed and returns each name's RV.
func createShuffled(e *Env, names []string) (map[string]string, error) {
	rvs := make(map[string]string, len(names))
	for _, i := range e.Rand().Perm(len(names)) {
		rv, err := e.Create(Namespace, names[i], fmt.Sprintf("v%d", e.Rand().IntN(100)))
		if err != nil {
			return nil, err
		}
		rvs[names[i]] = rv
	}
	return rvs, nil
}

func rvNum(rv string) int64 {
	n, _ := strconv.ParseInt(rv, 10, 64)
	return n
}

func key(name string) string { return Namespace + "/" + name }

func watchIsServerPush() *Scenario {
	return &Scenario{
		Name:    "watch-is-server-push",
		Answers: []QuestionID{QWatchPushOrPull, QWatchProtocol},
		Summary: "A watch is one long HTTP GET whose chunked response stays open; the server writes each change into it as it happens. The client never polls.",
		Seed:    3,
		Steps: func(e *Env) error {
			cur, err := e.CurrentRV()
			if err != nil {
				return err
			}
			e.Note("one request: an ordinary GET with watch=true")
			w, err := e.Watch(cmPath + "?watch=true&resourceVersion=" + cur)
			if err != nil {
				return err
			}
			resp := w.Response
			if err := e.Expect(resp.StatusCode == http.StatusOK && resp.Header.Get("Content-Type") == "application/json",
				"status 200 and Content-Type application/json (not ;stream=watch) arrive before any event exists"); err != nil {
				return err
			}
			if err := e.Expect(slices.Equal(resp.TransferEncoding, []string{"chunked"}) && resp.ContentLength == -1,
				"Transfer-Encoding chunked and no Content-Length: the body has no end the client could wait for"); err != nil {
				return err
			}
			steps := []struct {
				after time.Duration
				do    func() (string, error)
				typ   watch.EventType
			}{
				{10 * time.Second, func() (string, error) { return e.Create(Namespace, "pushed", "1") }, watch.Added},
				{20 * time.Second, func() (string, error) { return e.Update(Namespace, "pushed", "2") }, watch.Modified},
				{30 * time.Second, func() (string, error) { return e.Delete(Namespace, "pushed") }, watch.Deleted},
			}
			for _, s := range steps {
				e.Step(s.after)
				rv, err := s.do()
				if err != nil {
					return err
				}
				ev, err := w.Expect(s.typ, key("pushed"))
				if err != nil {
					return err
				}
				if err := e.Expect(ev.RV == rv && ev.Kind == "ConfigMap" && ev.APIVersion == "v1",
					"%s arrived on the open response right after the write, as a {\"type\",\"object\"} frame whose object has kind and apiVersion", s.typ); err != nil {
					return err
				}
			}
			st := e.Server().WatchStats()
			return e.Expect(st.Started == 1 && st.EventsSent == 3,
				"the server counted 1 watch request and 3 events sent on it: pushed, not polled")
		},
	}
}
