package scenariofile

import "strings"

// stepKinds are the fields of a [Step], each with whether a step sets it,
// in the order the format documents them.
var stepKinds = []struct {
	name string
	set  func(*Step) bool
}{
	{"note", func(s *Step) bool { return s.Note != "" }},
	{"create", func(s *Step) bool { return s.Create != nil }},
	{"update", func(s *Step) bool { return s.Update != nil }},
	{"write", func(s *Step) bool { return s.Write != nil }},
	{"delete", func(s *Step) bool { return s.Delete != nil }},
	{"fault", func(s *Step) bool { return s.Fault != nil }},
	{"clearFaults", func(s *Step) bool { return s.ClearFaults }},
	{"advance", func(s *Step) bool { return s.Advance != 0 }},
	{"currentRV", func(s *Step) bool { return s.CurrentRV != "" }},
	{"route", func(s *Step) bool { return s.Route != nil }},
	{"startClient", func(s *Step) bool { return s.StartClient != "" }},
	{"waitSync", func(s *Step) bool { return s.WaitSync != nil }},
	{"awaitClient", func(s *Step) bool { return s.AwaitClient != nil }},
	{"list", func(s *Step) bool { return s.List != nil }},
	{"get", func(s *Step) bool { return s.Get != nil }},
	{"awaitList", func(s *Step) bool { return s.AwaitList != "" }},
	{"awaitTimers", func(s *Step) bool { return s.AwaitTimers != 0 }},
	{"watch", func(s *Step) bool { return s.Watch != nil }},
	{"expectEvents", func(s *Step) bool { return s.ExpectEvents != nil }},
	{"close", func(s *Step) bool { return s.Close != "" }},
	{"compact", func(s *Step) bool { return s.Compact != "" }},
	{"watchCacheHorizon", func(s *Step) bool { return s.WatchCacheHorizon != nil }},
	{"restartWatchCache", func(s *Step) bool { return s.RestartWatchCache != "" }},
	{"createMany", func(s *Step) bool { return s.CreateMany != nil }},
	{"resume", func(s *Step) bool { return s.Resume != "" }},
	{"drain", func(s *Step) bool { return s.Drain != nil }},
	{"expectRecorded", func(s *Step) bool { return s.ExpectRecorded != nil }},
	{"pager", func(s *Step) bool { return s.Pager != nil }},
	{"expectStore", func(s *Step) bool { return s.ExpectStore != nil }},
	{"expectCache", func(s *Step) bool { return s.ExpectCache != nil }},
	{"readInitialEvents", func(s *Step) bool { return s.ReadInitialEvents != nil }},
	{"expectLess", func(s *Step) bool { return s.ExpectLess != nil }},
	{"set", func(s *Step) bool { return s.Set != nil }},
}

// Kind names the step's one field ("create", "expectEvents", ...) and
// counts the fields set: a valid step sets exactly one.
func (s *Step) Kind() (string, int) {
	name, n := "", 0
	for _, k := range stepKinds {
		if k.set(s) {
			name, n = k.name, n+1
		}
	}
	return name, n
}

// Object is the object a create, update, write or delete step writes, or
// nil.
func (s *Step) Object() *Write {
	for _, w := range []*Write{s.Create, s.Update, s.Write, s.Delete} {
		if w != nil {
			return w
		}
	}
	return nil
}

// stepKindList lists the step kinds for an error message.
func stepKindList() string {
	names := make([]string, len(stepKinds))
	for i, k := range stepKinds {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}
