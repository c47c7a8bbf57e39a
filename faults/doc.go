// Package faults is lw-sim's fault-injection engine and its types, shared
// by the fake API server (package fakeapiserver), the fault proxy (package
// faultproxy) and scenario files (package scenariofile): fault specs,
// request and stream matching, triggers, seeded random schedules, the
// record of every fault injected and the HTTP control API.
//
// Users name faults with this package's types and hand them to a server or
// proxy, which owns the [Injector]:
//
//	srv.InjectFault(t, faults.Fault{Kind: faults.EndWatch})
//	id, err := proxy.Faults().Add(faults.Fault{Kind: faults.FailRequest, Code: 503})
//
// A [Fault]'s JSON form is the control API's and the scenario files' (field
// names, [Duration] as "1.5s"); its [Kind] names are stable.
//
// The engine decides; its callers act, with package kubewire's wire
// actions (a Status, a cut mid-frame). A server or proxy consults an
// [Injector] at fixed points (docs/ARCHITECTURE.md, "Time and faults"):
//
//	request entry       Injector.Request: latency, a failed response, a cut LIST
//	RV-constrained read Injector.TooLargeRV: the 504 "Too large resource version"
//	each watch event    Stream.BeforeEvent: send, withhold, delay, end, cut, hang
//	after a watch       Stream.Finish: the cut or hang of a stream that was idle
//
// State faults (compaction, an apiserver restart) call back into the
// [Target] the caller provides; a proxy's target refuses them with
// [ErrUnsupported]. Apiserver instance faults go to an [APIServerTarget]:
// the fake's instances, or the proxy playing one instance.
//
// Nothing is global: every server and proxy owns its own Injector.
package faults
