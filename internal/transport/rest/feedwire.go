package rest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/hopbench/hopbench/internal/transport"
)

// A feed's reply comes in one of two forms (the package comment shows
// them): server-sent events for uncompressed JSON, length-prefixed frames
// for everything else. This file writes and reads both; feed.go serves
// them and feedclient.go calls them.
const (
	eventStream = "text/event-stream"
	// framing is the media type parameter of a framed feed's Content-Type.
	framing = "framing=prefixed"
	// headerMessageEncoding names the compression of each message of a
	// framed feed (the stream as a whole is not compressed, so it is no
	// Content-Encoding); headerAcceptMessageEncoding asks for one.
	headerMessageEncoding       = "Hopbench-Message-Encoding"
	headerAcceptMessageEncoding = "Hopbench-Accept-Message-Encoding"

	flagMessage byte = 0x00
	flagEnd     byte = 0x02
	frameHeader      = 5 // the flag byte and the 4-byte big-endian length
)

// appendFrame appends one frame: flag, the body's length, the body.
func appendFrame(dst []byte, flag byte, body []byte) []byte {
	dst = append(dst, flag)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(body)))
	return append(dst, body...)
}

// appendEvent appends one server-sent event of type typ ("" for a
// message) whose data is body, a data line for each of its lines.
func appendEvent(dst []byte, typ string, body []byte) []byte {
	if typ != "" {
		dst = append(append(append(dst, "event: "...), typ...), '\n')
	}
	for {
		line, rest, more := bytes.Cut(body, []byte{'\n'})
		dst = append(append(append(dst, "data: "...), line...), '\n')
		if !more {
			return append(dst, '\n')
		}
		body = rest
	}
}

// errorText is how a feed's end carries a failure: the code's name, a
// colon and the message, so the caller rebuilds a *transport.Error of the
// same code (parseErrorText).
func errorText(err error) string {
	var te *transport.Error
	if errors.As(err, &te) && te.Msg != "" {
		return te.Code.String() + ": " + te.Msg
	}
	return transport.CodeOf(err).String() + ": " + err.Error()
}

// parseErrorText reads errorText's form; text in another form is an
// internal error carrying it whole.
func parseErrorText(s string) *transport.Error {
	name, msg, ok := strings.Cut(s, ": ")
	if code, known := transport.CodeNamed(name); ok && known {
		return &transport.Error{Code: code, Msg: msg}
	}
	return &transport.Error{Code: transport.CodeInternal, Msg: s}
}

// feedReader reads a feed's reply a message at a time. Next returns the
// next message, io.EOF after an end that says the feed succeeded, the
// server's failure as a *transport.Error, a *transport.Error for a reply
// that breaks the form or the limit, or the body's read error as it came.
type feedReader interface {
	Next() ([]byte, error)
}

// frameReader reads length-prefixed frames.
type frameReader struct {
	r     *bufio.Reader
	limit int // the largest message or end frame taken
	n     int // messages read
	hdr   [frameHeader]byte
}

func (f *frameReader) Next() ([]byte, error) {
	if _, err := io.ReadFull(f.r, f.hdr[:]); err != nil {
		return nil, f.cutShort(err)
	}
	flag, size := f.hdr[0], binary.BigEndian.Uint32(f.hdr[1:])
	if flag != flagMessage && flag != flagEnd {
		return nil, transport.Errorf(transport.CodeInternal, "feed frame %d has flag %#02x: want 0x00 (a message) or 0x02 (the end)", f.n+1, flag)
	}
	if uint64(size) > uint64(f.limit) {
		what := "reply message"
		if flag == flagEnd {
			what = "feed's end frame"
		}
		return nil, transport.TooLarge(what, int(size), f.limit)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(f.r, body); err != nil {
		return nil, f.cutShort(err)
	}
	if flag == flagEnd {
		if size == 0 {
			return nil, io.EOF
		}
		return nil, parseErrorText(string(body))
	}
	f.n++
	return body, nil
}

func (f *frameReader) cutShort(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return transport.Errorf(transport.CodeUnavailable, "the feed's reply ended after %d messages without its end frame", f.n)
	}
	return err
}

// eventReader reads server-sent events as the HTML standard's event
// stream interpretation does: lines end in CRLF, LF or CR (a line a lone
// CR ends is read once an LF or the stream's end follows); a line
// starting with a colon is a comment; "field: value" drops one space; a
// blank line dispatches the event, joining its data lines with LF, unless
// it had none; unknown fields and event types are ignored. A message is
// an event of type message (the default); "end" carries the number of
// messages sent, "error" errorText's form.
type eventReader struct {
	r       *bufio.Reader
	limit   int // the largest data an event may carry
	n       int // messages read
	lines   [][]byte
	started bool
	typ     string
	data    []byte // each data line and a LF
}

// lineSlack bounds the bytes of a line beyond its data: the field name
// and separator.
const lineSlack = 64

func (e *eventReader) Next() ([]byte, error) {
	for {
		line, err := e.line()
		if err != nil {
			return nil, err
		}
		if len(line) > 0 {
			if err := e.field(line); err != nil {
				return nil, err
			}
			continue
		}
		if msg, ok, err := e.dispatch(); ok {
			return msg, err
		}
	}
}

func (e *eventReader) field(line []byte) error {
	if line[0] == ':' {
		return nil
	}
	name, value, _ := bytes.Cut(line, []byte{':'})
	value = bytes.TrimPrefix(value, []byte{' '})
	switch string(name) {
	case "event":
		e.typ = string(value)
	case "data":
		if len(e.data)+len(value) > e.limit {
			return transport.TooLarge("reply message", -1, e.limit)
		}
		e.data = append(append(e.data, value...), '\n')
	}
	return nil
}

// dispatch ends the event read so far; ok says Next returns.
func (e *eventReader) dispatch() (msg []byte, ok bool, err error) {
	typ, data := e.typ, e.data
	e.typ, e.data = "", nil
	if len(data) == 0 {
		return nil, false, nil
	}
	data = data[:len(data)-1]
	switch typ {
	case "", "message":
		e.n++
		return data, true, nil
	case "end":
		if sent, err := strconv.Atoi(string(data)); err != nil || sent != e.n {
			return nil, true, transport.Errorf(transport.CodeInternal, "the feed's end event says %q messages were sent, and %d arrived", data, e.n)
		}
		return nil, true, io.EOF
	case "error":
		return nil, true, parseErrorText(string(data))
	}
	return nil, false, nil
}

// line returns the next line without its end.
func (e *eventReader) line() ([]byte, error) {
	for len(e.lines) == 0 {
		chunk, err := e.chunk()
		if err != nil {
			return nil, err
		}
		if !e.started {
			chunk, e.started = bytes.TrimPrefix(chunk, []byte("\ufeff")), true
		}
		// A chunk ends in LF or CRLF; a CR within it ends a line too.
		chunk = bytes.TrimSuffix(chunk[:len(chunk)-1], []byte{'\r'})
		e.lines = bytes.Split(chunk, []byte{'\r'})
	}
	line := e.lines[0]
	e.lines = e.lines[1:]
	return line, nil
}

// chunk reads up to and including the next LF, refusing one longer than
// the limit allows a line.
func (e *eventReader) chunk() ([]byte, error) {
	var long []byte
	for {
		part, err := e.r.ReadSlice('\n')
		if err == nil && long == nil {
			if len(part) > e.limit+lineSlack {
				return nil, transport.TooLarge("reply message", -1, e.limit)
			}
			return part, nil
		}
		long = append(long, part...)
		if len(long) > e.limit+lineSlack {
			return nil, transport.TooLarge("reply message", -1, e.limit)
		}
		switch {
		case err == nil:
			return long, nil
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			// Lines may end in a CR alone; one after the last CR is
			// unfinished and dropped, as the standard says.
			if i := bytes.LastIndexByte(long, '\r'); i >= 0 {
				return append(long[:i+1], '\n'), nil
			}
			return nil, transport.Errorf(transport.CodeUnavailable, "the feed's reply ended after %d messages without its end event", e.n)
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, err
		}
	}
}
