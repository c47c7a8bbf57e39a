package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// ControlPrefix is where the control API lives. No Kubernetes path starts
// with "/_" (they are /api, /apis, /healthz, /livez, /readyz, /metrics,
// /openapi, /version, /.well-known), so it cannot shadow a resource.
const ControlPrefix = "/_lwsim/"

const (
	// maxControlBody bounds a control request body; a fault is a few
	// hundred bytes.
	maxControlBody = 1 << 20
	// maxControlDrain is how much more of a too-large body is read and
	// dropped before the 413, so that a client still sending it reads the
	// answer instead of a connection reset; past it the connection closes.
	maxControlDrain = 64 << 20
)

// ControlHandler serves the control API of in, JSON in and out:
//
//	GET    /_lwsim/faults          every fault with its state ([Status])
//	POST   /_lwsim/faults          add a [Fault]; 201 with its Status,
//	                               400 if invalid, 501 if unsupported here
//	DELETE /_lwsim/faults          remove every fault
//	DELETE /_lwsim/faults/{id}     remove one (404 if unknown)
//	GET    /_lwsim/faults/records  every [Record]
//
// Errors are Kubernetes Status objects. Authentication is the caller's;
// requests from web pages are refused (see guardBrowser), and POST needs
// Content-Type application/json (415 otherwise).
func ControlHandler(in *Injector) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /_lwsim/faults", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, in.Faults())
	})
	mux.HandleFunc("GET /_lwsim/faults/records", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, in.Records())
	})
	mux.HandleFunc("POST /_lwsim/faults", func(w http.ResponseWriter, r *http.Request) {
		body, err := readControlBody(w, r)
		if err != nil {
			kubewire.WriteStatus(w, err)
			return
		}
		var f Fault
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			kubewire.WriteStatus(w, apierrors.NewBadRequest(fmt.Sprintf("fault: %v", err)))
			return
		}
		id, err := in.Add(f)
		switch {
		case errors.Is(err, ErrUnsupported):
			kubewire.WriteStatus(w, apierrors.NewGenericServerResponse(http.StatusNotImplemented, "", emptyGR, "", err.Error(), 0, false))
			return
		case err != nil:
			kubewire.WriteStatus(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		writeJSON(w, http.StatusCreated, in.status(id))
	})
	mux.HandleFunc("DELETE /_lwsim/faults", func(w http.ResponseWriter, _ *http.Request) {
		in.Clear()
		writeJSON(w, http.StatusOK, in.Faults())
	})
	mux.HandleFunc("DELETE /_lwsim/faults/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if !in.Remove(id) {
			kubewire.WriteStatus(w, apierrors.NewNotFound(faultsGR, id))
			return
		}
		writeJSON(w, http.StatusOK, in.status(id))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		kubewire.WriteStatus(w, apierrors.NewGenericServerResponse(http.StatusNotFound, "", emptyGR, "", "no control endpoint "+r.Method+" "+r.URL.Path, 0, false))
	})
	return guardBrowser(mux) // control_guard.go
}

// readControlBody reads a request body of at most maxControlBody bytes. A
// larger one is the 413 kube-apiserver words for its own bodies
// ("Request entity too large: limit is N"), answered once the client has
// sent the rest (up to maxControlDrain more, then the connection closes):
// a server that answers mid-upload and closes makes the client's next
// write fail, and the client sees a reset, not the answer.
func readControlBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxControlBody+1))
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("fault: %v", err))
	}
	if len(body) <= maxControlBody {
		return body, nil
	}
	if n, _ := io.CopyN(io.Discard, r.Body, maxControlDrain); n == maxControlDrain {
		w.Header().Set("Connection", "close")
	}
	return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", maxControlBody))
}

// IsControlPath reports whether path belongs to the control API.
func IsControlPath(path string) bool {
	return strings.HasPrefix(path, ControlPrefix) || path == strings.TrimSuffix(ControlPrefix, "/")
}

// status returns the Status of fault id.
func (in *Injector) status(id string) Status {
	for _, st := range in.Faults() {
		if st.ID == id {
			return st
		}
	}
	return Status{}
}

// writeJSON writes v as JSON with code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
