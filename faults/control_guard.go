package faults

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// guardBrowser protects the control API from web pages (cross-site request
// forgery): a page can make the browser POST to loopback with a "simple"
// Content-Type such as text/plain and no CORS preflight, but never with
// application/json, and a browser marks what it sends with Origin and
// Sec-Fetch-Site. So it refuses, before next runs:
//
//  1. a request from a browser on another site: Sec-Fetch-Site cross-site
//     or same-site, or an Origin whose host is not the request's Host
//     (403 Forbidden);
//  2. a POST, PUT or PATCH whose Content-Type is not application/json
//     (415 Unsupported Media Type). A DELETE carries no body, and a browser
//     sends a cross-origin DELETE only after a CORS preflight that this API
//     never answers, so curl -X DELETE works as before.
//
// Programs (curl, client-go, tests) send no Origin and no Sec-Fetch-Site
// and are not affected.
func guardBrowser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := browserOrigin(r); err != nil {
			kubewire.WriteStatus(w, apierrors.NewForbidden(emptyGR, "", err))
			return
		}
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
				kubewire.WriteStatus(w, apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", emptyGR, "",
					fmt.Sprintf("the control API accepts only Content-Type application/json, not %q", r.Header.Get("Content-Type")), 0, false))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// browserOrigin returns an error for a request a browser sent on behalf of
// another site.
func browserOrigin(r *http.Request) error {
	// Header values are case-sensitive, but browsers send lower case and a
	// check that a capitalised "Cross-Site" passes protects nothing.
	switch site := r.Header.Get("Sec-Fetch-Site"); strings.ToLower(strings.TrimSpace(site)) {
	case "cross-site", "same-site":
		return fmt.Errorf("the control API refuses requests from web pages (Sec-Fetch-Site: %s)", site)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Host != r.Host {
		return errors.New("the control API refuses requests from web pages (Origin " + origin + " is not this server)")
	}
	return nil
}
