package faults

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/lw-sim/lw-sim/internal/suggest"
)

// commonFields are the JSON fields every kind of fault has.
var commonFields = []string{"id", "kind", "match", "trigger", "times", "window"}

// kindFields are the JSON fields that belong to each kind beyond
// commonFields: the ones its documentation says it reads. Every Kind
// constant has an entry (TestKindFieldsCoverEveryKind).
var kindFields = map[Kind][]string{
	EndWatch:          {"streams"},
	CutWatch:          {"streams"},
	HangWatch:         {"streams"},
	WithholdBookmarks: {"streams", "initialEventsEnd"},
	DelayEvents:       {"streams", "delay"},
	FailRequest:       {"code", "retryAfterSeconds", "message"},
	Latency:           {"delay"},
	CutList:           {},
	TooLargeRV:        {"lag", "allReads"},
	Compact:           {"rv"},
	Restart:           {},
	// The APIServer faults name their instance; a lag is in writes or time.
	LagAPIServer:       {"apiserver", "lag", "delay"},
	FreezeAPIServer:    {"apiserver"},
	PartitionAPIServer: {"apiserver"},
	RestartAPIServer:   {"apiserver"},
	HealAPIServer:      {"apiserver"},
	Random:             {"seed", "probability", "kinds"},
}

// Kinds are the kinds of fault, in the order of their documentation.
func Kinds() []Kind {
	return []Kind{EndWatch, CutWatch, HangWatch, WithholdBookmarks, DelayEvents, FailRequest, Latency, CutList, TooLargeRV, Compact, Restart,
		LagAPIServer, FreezeAPIServer, PartitionAPIServer, RestartAPIServer, HealAPIServer, Random}
}

// Check reports what [Injector.Add] would refuse in f, and also a field
// set that f's kind does not read (a Compact fault with a lag, a typo'd
// kind's fields): such a fault would be added and the field ignored, which
// a file written by hand should hear about. It does not change f.
func (f Fault) Check() error {
	if _, ok := kindFields[f.Kind]; !ok {
		names := make([]string, 0, len(kindFields))
		for _, k := range Kinds() {
			names = append(names, string(k))
		}
		return fmt.Errorf("%w: unknown kind %q (want one of %s)%s", ErrInvalid, f.Kind, strings.Join(names, ", "), suggest.DidYouMean(string(f.Kind), names))
	}
	if err := f.validate(); err != nil { // f is a copy: its defaults stay here
		return err
	}
	allowed := append(slices.Clone(commonFields), kindFields[f.Kind]...)
	v := reflect.ValueOf(f)
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if !v.Field(i).IsZero() && !slices.Contains(allowed, name) {
			return fmt.Errorf("%w: %s: field %s does not belong to this kind (its own fields: %s)", ErrInvalid, f.Kind, name, fieldList(kindFields[f.Kind]))
		}
	}
	return nil
}

// fieldList is fields for a message: "none" when there are none.
func fieldList(fields []string) string {
	if len(fields) == 0 {
		return "none"
	}
	return strings.Join(fields, ", ")
}
