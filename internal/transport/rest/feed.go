package rest

import (
	"bytes"
	"context"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
)

// serveFeed serves GET /v1/{model}/feed. A failure before the first
// message is a unary call's status; after it, the end of the stream.
func serveFeed(w http.ResponseWriter, r *http.Request, h transport.Handler, maxBytes int, writeFor time.Duration) {
	req, sse, err := parseFeedRequest(r)
	if err == nil && h.Feed == nil {
		err = transport.Errorf(transport.CodeNotFound, "this service serves no feeds")
	}
	if err != nil {
		writeError(w, err)
		return
	}
	f := &feedWriter{w: w, rc: http.NewResponseController(w), ctx: r.Context(), req: req, sse: sse, maxBytes: maxBytes, writeFor: writeFor}
	f.end(h.Feed(r.Context(), req, f.send))
}

func parseFeedRequest(r *http.Request) (*transport.Request, bool, error) {
	q := r.URL.Query()
	req := &transport.Request{Op: transport.OpFeed, Model: r.PathValue("model")}
	var err error
	if req.Count, err = parseCount(q.Get("count")); err != nil {
		return nil, false, err
	}
	if req.Messages, err = strconv.Atoi(q.Get("messages")); err != nil || req.Messages < 1 || req.Messages > transport.MaxFeedMessages {
		return nil, false, transport.Errorf(transport.CodeBadRequest, "query parameter messages=%q: want the number of messages the feed carries, from 1 to %d, e.g. ?messages=100", q.Get("messages"), transport.MaxFeedMessages)
	}
	if req.Compression, err = codec.ForEncoding(r.Header.Get(headerAcceptMessageEncoding)); err != nil {
		return nil, false, transport.Errorf(transport.CodeBadRequest, "%s: %w", headerAcceptMessageEncoding, err)
	}
	accept := r.Header.Get("Accept")
	if !asEvents(accept) {
		req.Codec, err = codecFor(accept)
		return req, false, err
	}
	if req.Compression.Encoding() != "" {
		return nil, false, transport.Errorf(transport.CodeBadRequest, "a %s feed carries JSON text, uncompressed: for %s messages ask for Accept: application/json (length-prefixed frames)", eventStream, req.Compression.Encoding())
	}
	req.Codec, err = codecFor("application/json")
	return req, true, err
}

// asEvents says whether a feed's Accept asks for server-sent events: it
// names them, or (none, */*) asks for what a plain HTTP client reads.
func asEvents(accept string) bool {
	mediaType, _, _ := strings.Cut(accept, ";")
	mediaType = strings.ToLower(strings.TrimSpace(mediaType))
	return mediaType == eventStream || mediaType == "" || mediaType == "*/*"
}

// feedWriter sends one feed's reply: the 200 and its headers with the
// first message, each message flushed as it is sent, then the end.
type feedWriter struct {
	w        http.ResponseWriter
	rc       *http.ResponseController
	ctx      context.Context
	req      *transport.Request
	sse      bool
	maxBytes int
	writeFor time.Duration // each write's deadline from its start
	started  bool
	sent     int
	refused  error // a message send refused: the feed's failure, whatever the handler returns
	broken   error // the write that failed: the caller is gone
	buf      []byte
}

// send is the Handler's: a message over the server's limit, or one that
// events cannot carry, is refused, and the feed ends with that error.
func (f *feedWriter) send(msg []byte) error {
	switch {
	case f.broken != nil:
		return f.broken
	case f.ctx.Err() != nil:
		return transport.Errorf(transport.CodeUnavailable, "the caller left the feed: %w", context.Cause(f.ctx))
	case len(msg) > f.maxBytes:
		f.refused = transport.TooLarge("reply message", len(msg), f.maxBytes)
		return f.refused
	case f.sse && bytes.IndexByte(msg, '\r') >= 0:
		// A CR ends an event's line, so the message would not arrive as sent.
		f.refused = transport.Errorf(transport.CodeInternal, "message %d holds a carriage return, which a %s feed cannot carry", f.sent, eventStream)
		return f.refused
	}
	f.start()
	if f.sse {
		f.buf = appendEvent(f.buf[:0], "", msg)
	} else {
		f.buf = appendFrame(f.buf[:0], flagMessage, msg)
	}
	if err := f.write(true); err != nil {
		return err
	}
	f.sent++
	return nil
}

// end ends the feed as err says: before the first message as a unary
// call fails, after it with the end event or frame.
func (f *feedWriter) end(err error) {
	if f.refused != nil {
		err = f.refused
	}
	switch {
	case f.broken != nil:
		return
	case err != nil && !f.started:
		writeError(f.w, err)
		return
	}
	f.start()
	switch {
	case f.sse && err == nil:
		f.buf = appendEvent(f.buf[:0], "end", strconv.AppendInt(nil, int64(f.sent), 10))
	case f.sse:
		f.buf = appendEvent(f.buf[:0], "error", []byte(errorText(err)))
	case err == nil:
		f.buf = appendFrame(f.buf[:0], flagEnd, nil)
	default:
		f.buf = appendFrame(f.buf[:0], flagEnd, []byte(errorText(err)))
	}
	// Not flushed: the handler's return flushes it with the stream's end.
	f.write(false) // a failed write means the caller left; nothing to tell it
}

func (f *feedWriter) start() {
	if f.started {
		return
	}
	f.started = true
	hd := f.w.Header()
	hd.Set("Cache-Control", "no-cache")
	if f.sse {
		hd.Set("Content-Type", eventStream)
	} else {
		hd.Set("Content-Type", mime.FormatMediaType(f.req.Codec.ContentType(), map[string]string{"framing": "prefixed"}))
		if enc := f.req.Compression.Encoding(); enc != "" {
			hd.Set(headerMessageEncoding, enc)
		}
	}
	f.w.WriteHeader(http.StatusOK)
}

// write writes f.buf, first moving the write deadline on: the server's
// WriteTimeout (rest.Bound's) would otherwise cut a feed that lasts
// longer, while a caller that stops reading still cannot hold it forever
// (on HTTP/3 too, whose server has no WriteTimeout of its own).
func (f *feedWriter) write(flush bool) error {
	// Every writer hopbench serves takes a deadline (HTTP/1.1, HTTP/2 with
	// or without TLS, quic-go's HTTP/3; TestEveryServedProtocolTakesAWriteDeadline);
	// one that did not would answer http.ErrNotSupported and keep the
	// server's WriteTimeout. Any other failure, the write reports.
	f.rc.SetWriteDeadline(time.Now().Add(f.writeFor))
	_, err := f.w.Write(f.buf)
	if err == nil && flush {
		err = f.rc.Flush()
	}
	if err != nil {
		f.broken = &transport.Error{Code: transport.CodeUnavailable, Msg: "the caller left the feed: " + err.Error(), Err: err}
		return f.broken
	}
	return nil
}
