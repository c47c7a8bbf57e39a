package fakeapiserver

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
)

// respond encodes obj in the negotiated type and writes it with code. The
// body is encoded fully before the header goes out, so an encoding failure
// becomes a clean 500 instead of a truncated response.
func (s *Server) respond(w http.ResponseWriter, out outputType, code int, obj runtime.Object) {
	body, err := encode(out.info, obj)
	if err != nil {
		st := toStatus(err)
		body, _ = encode(s.codecs.SupportedMediaTypes()[0], st)
		out, code = outputType{info: s.codecs.SupportedMediaTypes()[0]}, int(st.Code)
	}
	h := w.Header()
	h.Set("Content-Type", out.info.MediaType)
	h.Set("Cache-Control", "no-cache, private")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
