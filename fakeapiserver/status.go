package fakeapiserver

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// toStatus is the one place where an error becomes the metav1.Status a
// client sees (kubewire.ErrorToStatus, kube-apiserver's ErrorToAPIStatus).
func toStatus(err error) *metav1.Status { return kubewire.ErrorToStatus(err) }

// writeError is the one writer of an error: err as a Status (toStatus),
// negotiated like any response but never transformed (as=Table or
// metadata clauses are passed over), and in indented JSON when the Accept
// header allows nothing else, as the real server's error path does
// (WriteObjectNegotiated falls back to WriteRawJSON's MarshalIndent); with
// a Retry-After header when the Status asks for a retry — client-go's rest
// client retries such a request itself (responsewriters/writers.go
// ErrorNegotiated).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	st := toStatus(err)
	kubewire.SetRetryAfter(w.Header(), st)
	out, nerr := s.negotiateOutput(statusRequest(r), noTransforms)
	if nerr != nil {
		out = outputType{info: rawJSON}
	}
	s.respond(w, r, out, int(st.Code), st)
}

// rawJSON is responsewriters.WriteRawJSON as a serializer: JSON indented
// by two spaces, no trailing newline. It only encodes.
var rawJSON = runtime.SerializerInfo{
	MediaType: runtime.ContentTypeJSON, MediaTypeType: "application", MediaTypeSubType: "json",
	EncodesAsText: true, Serializer: indentedJSON{},
}

// indentedJSON encodes with json.MarshalIndent.
type indentedJSON struct{}

func (indentedJSON) Encode(obj runtime.Object, w io.Writer) error {
	b, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func (indentedJSON) Decode([]byte, *schema.GroupVersionKind, runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	return nil, nil, errors.New("fakeapiserver: the raw JSON error writer does not decode")
}

func (indentedJSON) Identifier() runtime.Identifier { return "fakeapiserver-raw-json" }
