package scenarios

import (
	"encoding/json"
	"fmt"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// seedObjects creates the objects, in a seeded order if asked (the draws
// are those of createShuffled, so a built-in keeps its timeline).
func (r *fileRun) seedObjects() error {
	order := make([]int, len(r.f.Objects))
	for i := range order {
		order[i] = i
	}
	if r.f.ShuffleObjects {
		order = r.e.Rand().Perm(len(order))
	}
	for _, i := range order {
		o := r.f.Objects[i]
		v := o.Value
		if v == "" && r.f.ShuffleObjects {
			v = fmt.Sprintf("v%d", r.e.Rand().IntN(100))
		} else if v == "" {
			v = "0"
		}
		if err := r.writeObject("create", o, v); err != nil {
			return err
		}
	}
	return nil
}

func (r *fileRun) writeObject(kind string, w scenariofile.Write, value string) error {
	ns := w.Namespace
	if ns == "" {
		ns = Namespace
	}
	if w.Value != "" {
		value = w.Value
	}
	k := ns + "/" + w.Name
	if kind == "write" {
		kind = "create"
		if r.live[k] {
			kind = "update"
		}
	}
	var rv string
	var err error
	switch kind {
	case "create":
		rv, err = r.e.Create(ns, w.Name, value)
		r.live[k] = true
	case "update":
		rv, err = r.e.Update(ns, w.Name, value)
	case "delete":
		rv, err = r.e.Delete(ns, w.Name)
		delete(r.live, k)
	}
	r.vars[w.Name] = rv
	return err
}

// describeFault renders a fault for the timeline: its kind and its JSON
// spec (the control API's form, zero fields left out).
func describeFault(f fakeapiserver.Fault) string {
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Sprintf("%s %+v", f.Kind, f)
	}
	return fmt.Sprintf("fault %s %s", f.Kind, b)
}
