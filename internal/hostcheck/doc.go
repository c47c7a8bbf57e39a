// Package hostcheck guards a local development server against DNS
// rebinding: a web page on attacker.example can make the browser resolve
// its own name to 127.0.0.1 and then read and write a server on loopback
// as if it were same-origin. The attack always uses a DNS name the
// attacker controls, so a server that answers only requests whose Host
// header is an IP address, localhost, or a name it was told about is out
// of its reach (the rule of webpack-dev-server's and Vite's allowed hosts,
// and Jupyter's local_hostnames).
//
// kube-apiserver has no such check: it is never on a developer's loopback
// next to a browser. lw-sim serve and lw-sim proxy are, so they refuse
// other hosts with 403 Forbidden (a Kubernetes Status, so kubectl prints
// it). 403 rather than 421 Misdirected Request: browsers and HTTP/2
// clients may retry a 421 on a new connection, and the refusal is final.
package hostcheck
