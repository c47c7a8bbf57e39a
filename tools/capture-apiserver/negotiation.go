package main

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// noNegotiation is the NegotiatedSerializer of a REST client that only
// fetches raw bytes (DoRaw): it decodes nothing, so it offers no
// serializers.
type noNegotiation struct{}

func (noNegotiation) SupportedMediaTypes() []runtime.SerializerInfo { return nil }

func (noNegotiation) EncoderForVersion(e runtime.Encoder, _ runtime.GroupVersioner) runtime.Encoder {
	return e
}

func (noNegotiation) DecoderToVersion(d runtime.Decoder, _ runtime.GroupVersioner) runtime.Decoder {
	return d
}
