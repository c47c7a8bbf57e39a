// Package scenarios turns the List & Watch questions of the seed article
// (section 7, "其他问题") into runnable answers.
//
// A [Scenario] is a named, seeded script that runs against an in-process
// fake kube-apiserver (package fakeapiserver) on a fake clock, through real
// HTTP: raw requests (so the wire is visible), client-go's typed clientset
// and pager, and the listwatch client. While it runs it records a
// [Timeline]: for each step the virtual time since the start, the
// resourceVersion involved and what happened (a request, a response status
// and headers, a watch event, a write, a clock step, a fault, a client
// decision, an expectation checked). Each scenario checks its expectations as
// it goes; [Run] returns an error wrapping [ErrExpectation] when one fails.
//
// # Time
//
// The server's every timer (watch deadlines, bookmarks, the 3 s freshness
// wait, the watch window's age) runs on a k8s.io/utils/clock/testing
// FakeClock that only the scenario moves ([Env.Step]), so a watch's 30 to 60
// minute default timeout plays out in milliseconds and a run is
// reproducible. Before it moves the clock a scenario waits until the server
// has armed the timers it is about to fire ([Env.AwaitTimers]), so a step
// never races the server.
//
// # Determinism
//
// The same scenario with the same seed yields the same timeline, entry for
// entry: the seed drives every random choice a scenario makes (object names,
// which objects change), resourceVersions follow from the order of writes,
// and nothing wall-clock or random on the server side (UIDs, timestamps,
// Audit-Id, the default watch timeout's exact value) is recorded.
//
// # The library
//
// [Library] returns the built-in scenarios, one or more for each of the
// article's nine questions ([Questions]). Those a [File] can say are
// scenario files, library/<name>.yaml; the rest are Go, where a step
// checks something the format has no words for (response headers, the
// pager, a hand-written naive client, the server's counters). The prose
// that teaches each edge case is text in library/<name>.txt. Both are
// embedded with go:embed, so writers can edit them without touching Go.
//
// # Scenario files
//
// A [File] is a scenario as YAML (or JSON): objects to seed, clients
// (listwatch, a client-go Reflector or informer, by LIST+WATCH or
// watch-list), a timeline of writes, faults in the fault API's JSON form,
// clock steps, raw LISTs and WATCHes and waits for clients, and
// expectations (a client's store equals the server's state, an exact event
// sequence on a raw watch, a LIST's status code and reason, at most N
// LISTs per client). [LoadFile] decodes strictly and names the file, line
// and field of an unknown key; a [ChaosFile] loads as the File it is a
// profile of, so there is one runner for both.
//
// Run a scenario from the command line with "lw-sim run NAME" or read it
// with "lw-sim explain NAME".
package scenarios
