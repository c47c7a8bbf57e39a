package fakeapiserver

import (
	"errors"
	"io"
	"syscall"
)

// isResetOrUnexpectedEOF reports whether err is how a client sees a cut
// connection: a TCP reset, or a body that ended early.
func isResetOrUnexpectedEOF(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF)
}
