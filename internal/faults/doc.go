// Package faults is the fault-injection engine shared by the fake API server
// (package fakeapiserver) and the fault proxy (package faultproxy): fault
// specs, request and stream matching, triggers, seeded random schedules and
// the record of every fault injected.
//
// The engine decides; its callers act, with package kubewire's wire
// actions (a Status, a cut mid-frame). A server or proxy consults an
// [Injector] at fixed points (DESIGN.md "Time and faults are first-class"):
//
//	request entry       Injector.Request: latency, a failed response, a cut LIST
//	RV-constrained read Injector.TooLargeRV: the 504 "Too large resource version"
//	each watch event    Stream.BeforeEvent: send, withhold, delay, end, cut, hang
//	after a watch       Stream.Finish: the cut or hang of a stream that was idle
//
// State faults (compaction, an apiserver restart) call back into the
// [Target] the caller provides; a proxy's target refuses them with
// [ErrUnsupported].
//
// Nothing is global: every server and proxy owns its own Injector.
package faults
