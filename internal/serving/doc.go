// Package serving is the HTTP front that fakeapiserver.Server and
// faultproxy.Proxy share, so that both serve, announce and stop alike: a
// self-signed serving certificate for the names callers use ([SelfSignedTLS]),
// one http.Server per [Front.Serve] that knows its URL, serving in a goroutine
// that reports when it accepts ([Background]), and an opt-in one-line request
// log ([LogRequests]).
package serving
