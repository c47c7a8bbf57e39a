// Package scenarios turns the List & Watch questions of the article lw-sim
// grew from (its section 7, "其他问题"; quoted in questions.go, see
// README.md, "The List & Watch article") into runnable answers.
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
// article's nine questions ([Questions]). They are scenario files,
// library/<name>.yaml (multi-apiserver-stale-relist among them: its
// 1.11-era Reflector is the client kind reflector-1.11). The prose that
// teaches each edge case is text in library/<name>.txt. Both are embedded with go:embed, so
// writers can edit them without touching Go.
//
// # Scenario files
//
// A [File] is a scenario as YAML (or JSON); its schema is package
// scenariofile, which tests that cannot import this package write (the
// listwatch chaos property test writes its shrunk failures as scenario
// files). A file has objects to seed, clients (listwatch, a client-go
// Reflector or informer, by LIST+WATCH or watch-list), a timeline of
// writes, faults in the fault API's JSON form, clock steps, raw LISTs
// (paged by hand or followed to the last page) and WATCHes (raw, paused,
// or client-go typed), client-go's pager, a naive client's cache, waits
// for clients, and expectations: a client's store equals the server's
// state, an exact event sequence on a raw watch, a LIST's status code,
// reason, items and continue token, measurements in bytes compared, at
// most N LISTs per client, the server's watch counters. [LoadFile] decodes
// strictly and names the file, line and field of an unknown key; a
// [ChaosFile] (the older JSON form of chaos schedules) loads as the File
// it is a profile of, so there is one runner for both.
//
// Run a scenario from the command line with "lw-sim run NAME" or read it
// with "lw-sim explain NAME".
package scenarios
