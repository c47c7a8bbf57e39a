package scenarios

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// seedObjects creates the objects, in a seeded order if asked: the
// order is a permutation drawn from the seed, then each object's value
// ("v<0..99>") is drawn as it is created.
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

// writeObject creates, updates or deletes (kind) the object w names
// (expanded), with w's value (expanded) or else value, and stores the
// write's RV under the object's name.
func (r *fileRun) writeObject(kind string, w scenariofile.Write, value string) error {
	ns, err := r.expand(w.Namespace)
	if err != nil {
		return err
	}
	if ns == "" {
		ns = Namespace
	}
	if w.Labels != nil {
		labels := make(map[string]string, len(w.Labels))
		for k, v := range w.Labels {
			if labels[k], err = r.expand(v); err != nil {
				return err
			}
		}
		w.Labels = labels
	}
	if w.Name, err = r.expand(w.Name); err != nil {
		return err
	}
	if w.Value != "" {
		if value, err = r.expand(w.Value); err != nil {
			return err
		}
	}
	k := ns + "/" + w.Name
	if kind == "write" {
		kind = "create"
		if r.live[k] {
			kind = "update"
		}
	}
	var rv string
	switch kind {
	case "create":
		rv, err = r.e.CreateLabeled(ns, w.Name, value, w.Labels)
		r.live[k] = true
	case "update":
		rv, err = r.e.UpdateLabeled(ns, w.Name, value, w.Labels)
	case "delete":
		rv, err = r.e.Delete(ns, w.Name)
		delete(r.live, k)
	}
	r.vars[w.Name] = rv
	return err
}

// describeFault renders a fault for the timeline: its kind and its JSON
// spec (the control API's form, zero fields left out).
func describeFault(f faults.Fault) string {
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Sprintf("%s %+v", f.Kind, f)
	}
	return fmt.Sprintf("fault %s %s", f.Kind, b)
}

// createMany creates the objects quietly and records them as one write.
func (r *fileRun) createMany(c *scenariofile.CreateMany) error {
	e := r.e
	payload := strings.Repeat("x", c.Bytes)
	width := len(strconv.Itoa(c.Count - 1))
	var last string
	for i := range c.Count {
		name := fmt.Sprintf("%s%0*d", c.Prefix, width, i)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": payload}}
		out, err := e.quiet.CoreV1().ConfigMaps(Namespace).Create(e.Context(), cm, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("scenarios: create %s/%s: %w", Namespace, name, err)
		}
		r.live[Namespace+"/"+name] = true
		last = out.ResourceVersion
	}
	if c.ID != "" {
		r.vars[c.ID] = last
	}
	note := ""
	if c.Note != "" {
		note = ", " + c.Note
	}
	e.record(KindWrite, last, "%d creates of %d KiB each, up to rv %s%s", c.Count, c.Bytes>>10, last, note)
	return nil
}
