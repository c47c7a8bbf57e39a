// Package faultproxy is a reverse proxy that injects list-watch faults in
// front of any kube-apiserver (kind, k3s, a real cluster, or an lw-sim
// fake): the request and watch stream faults of package fakeapiserver,
// driven by the same engine (package faults), the same Go API and the
// same control API.
//
// The proxy understands watch streams: it decodes the JSON watch events
// coming from upstream one by one, so it can count them, withhold
// bookmarks, delay events, and end, cut or hang a stream between or in the
// middle of frames. To see JSON, it rewrites the Accept header of LIST and
// WATCH requests that ask for protobuf or CBOR to "application/json";
// clients decode by the response's Content-Type, so client-go and kubectl
// work unchanged (only on the wire format).
//
// State faults need the apiserver's storage: Compact and Restart are
// refused with an error wrapping faults.ErrUnsupported. RV triggers and
// TooLargeRV's Lag use the highest resourceVersion the proxy has seen in
// LIST responses and watch events, which may trail the server's.
//
// The apiserver instance faults act on the proxy as one instance,
// [InstanceName], for the traffic through it (instance.go): a lag or a
// freeze holds watch frames in each stream's inbox and lets them out in
// order (hold.go), a partition answers what the instance would delegate
// to storage with its 504 and holds watches, a restart ends every watch
// and answers a watch from below the upstream's RV at the restart with
// the watch cache's ERROR 410. Reads the watch cache serves (LIST or GET
// at resourceVersion "0" or N) are forwarded: the proxy keeps no older
// state to answer them from, so they show the upstream's.
package faultproxy
