// Package fakeapiservertest holds test doubles for running lw-sim's fake API
// server inside a testing/synctest bubble.
//
// Loopback sockets are not "durably blocking", so virtual time never
// advances while a client waits on one; an in-memory [PipeListener] is. Serve
// the fake on a PipeListener and hand its DialContext to client-go through
// rest.Config.Dial, and a 30-minute watch timeout plays out in microseconds:
//
//	synctest.Test(t, func(t *testing.T) {
//		ln := fakeapiservertest.NewPipeListener()
//		srv, _ := fakeapiserver.New(fakeapiserver.Config{})
//		go srv.Serve(ln)
//		defer srv.Close()
//		cfg := &rest.Config{Host: "http://" + ln.Addr().String(), Dial: ln.DialContext}
//		...
//	})
//
// It does not import fakeapiserver, so the fake's own internal tests use it
// too.
package fakeapiservertest
