package fakeapiserver

import (
	"encoding/binary"
	"hash/crc32"
)

// The gzip stream of compress/gzip at gzip.NoCompression, the server's
// default level, written directly (RFC 1952 around RFC 1951 stored
// blocks): compress/flate copies the body into its 65 535-byte window and
// stores each full window as one block, the rest as one more, then an
// empty final block; gzip.Writer puts its 10-byte header before and the
// CRC-32 and length after. Writing these from a page's pieces copies each
// byte once, where the writer copies it into its window, then into its
// output, after the page was first joined into one body
// (TestStoredGzipMatchesCompressGzip).

// storedBlockMax is the most bytes one stored block holds
// (compress/flate maxStoreBlockSize).
const storedBlockMax = 65535

// storedGzipHeader is gzip.Writer's header with no name, comment, extra
// field or modification time: magic, deflate, no flags, mtime 0, extra
// flags 0 (the level is neither 1 nor 9), OS 255 (unknown).
var storedGzipHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// storedGzipLen is the length of the stored gzip stream of a size-byte
// body: header, a 5-byte block header per full or partial block, the
// final empty block, CRC-32 and length.
func storedGzipLen(size int) int {
	blocks := (size + storedBlockMax - 1) / storedBlockMax
	return len(storedGzipHeader) + size + 5*blocks + 5 + 8
}

// appendStoredGzip appends the stored gzip stream of the body made of
// pieces to out, grown once to its exact length.
func appendStoredGzip(out []byte, pieces [][]byte) []byte {
	size := 0
	for _, b := range pieces {
		size += len(b)
	}
	if n := len(out) + storedGzipLen(size); cap(out) < n {
		grown := make([]byte, len(out), n)
		copy(grown, out)
		out = grown
	}
	out = append(out, storedGzipHeader[:]...)
	crc := uint32(0)
	left := size      // body bytes not yet in a block
	room := 0         // bytes the open block still takes
	block := len(out) // where the open block's data starts in out
	for _, b := range pieces {
		for len(b) > 0 {
			if room == 0 {
				crc = crc32.Update(crc, crc32.IEEETable, out[block:])
				n := min(left, storedBlockMax)
				out = appendStoredBlockHeader(out, n, false)
				block, room, left = len(out), n, left-n
			}
			k := min(room, len(b))
			out = append(out, b[:k]...)
			b, room = b[k:], room-k
		}
	}
	crc = crc32.Update(crc, crc32.IEEETable, out[block:])
	out = appendStoredBlockHeader(out, 0, true)
	out = binary.LittleEndian.AppendUint32(out, crc)
	return binary.LittleEndian.AppendUint32(out, uint32(size))
}

// appendStoredBlockHeader appends a stored block's header: BFINAL and
// BTYPE 00 padded to a byte, then LEN and NLEN.
func appendStoredBlockHeader(out []byte, n int, final bool) []byte {
	flag := byte(0)
	if final {
		flag = 1
	}
	out = append(out, flag)
	out = binary.LittleEndian.AppendUint16(out, uint16(n))
	return binary.LittleEndian.AppendUint16(out, ^uint16(n))
}
