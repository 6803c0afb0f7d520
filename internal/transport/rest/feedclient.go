package rest

import (
	"bufio"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hopbench/hopbench/internal/transport"
)

// Feed calls a feed: each message is handed to each as it arrives. An
// error from each, or the end of ctx, closes the reply's body, which ends
// the server's feed (its next write fails).
func (c *client) Feed(ctx context.Context, req *transport.Request, each func([]byte) error) error {
	hreq, err := c.newFeedRequest(ctx, req)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return ClassifyError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return statusError(ctx, resp)
	}
	r, err := c.feedReader(resp, req)
	if err != nil {
		return err
	}
	for {
		msg, err := r.Next()
		switch {
		case errors.Is(err, io.EOF):
			io.Copy(io.Discard, io.LimitReader(resp.Body, 512)) // to the body's end, so that HTTP/1.1 keeps the connection
			return nil
		case err != nil:
			return feedError(ctx, err)
		}
		if err := each(msg); err != nil {
			return err
		}
	}
}

// asEventsFor says whether a feed of req's codec and compression comes as
// server-sent events: JSON text, uncompressed.
func asEventsFor(req *transport.Request) bool {
	return req.Codec.ContentType() == "application/json" && req.Compression.Encoding() == ""
}

func (c *client) newFeedRequest(ctx context.Context, req *transport.Request) (*http.Request, error) {
	u := c.base + "/v1/" + url.PathEscape(req.Model) + "/feed?count=" + strconv.Itoa(req.Count) + "&messages=" + strconv.Itoa(req.Messages)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, transport.Errorf(transport.CodeBadRequest, "%w", err)
	}
	if asEventsFor(req) {
		hreq.Header.Set("Accept", eventStream)
		return hreq, nil
	}
	hreq.Header.Set("Accept", req.Codec.ContentType())
	if enc := req.Compression.Encoding(); enc != "" {
		hreq.Header.Set(headerAcceptMessageEncoding, enc)
	}
	return hreq, nil
}

// feedReader reads resp's body in the form asked for, after checking the
// server answered in it: a message read in another would be misread.
func (c *client) feedReader(resp *http.Response, req *transport.Request) (feedReader, error) {
	br := bufio.NewReaderSize(resp.Body, 32<<10)
	mediaType, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if asEventsFor(req) {
		if mediaType != eventStream {
			return nil, transport.Errorf(transport.CodeInternal, "a feed's reply of Content-Type %q: want %s", resp.Header.Get("Content-Type"), eventStream)
		}
		return &eventReader{r: br, limit: c.maxBytes}, nil
	}
	want := req.Codec.ContentType() + "; " + framing
	if mediaType != req.Codec.ContentType() || params["framing"] != "prefixed" {
		return nil, transport.Errorf(transport.CodeInternal, "a feed's reply of Content-Type %q: want %s", resp.Header.Get("Content-Type"), want)
	}
	if got, enc := resp.Header.Get(headerMessageEncoding), req.Compression.Encoding(); !strings.EqualFold(got, enc) {
		return nil, transport.Errorf(transport.CodeInternal, "a feed's messages encoded %q (%s): want %q", got, headerMessageEncoding, enc)
	}
	return &frameReader{r: br, limit: c.maxBytes}, nil
}

// feedError is a feed's error as its caller sees it: the server's or the
// form's as it came, a read's classified (deadline, or the connection
// lost), either marked cut off once ctx has ended.
func feedError(ctx context.Context, err error) error {
	var te *transport.Error
	if !errors.As(err, &te) {
		err = ClassifyError(ctx, err)
	}
	return transport.CutOff(ctx, err)
}

// statusError is the failure a reply's status and text say, as Call
// reads them.
func statusError(ctx context.Context, resp *http.Response) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return ClassifyError(ctx, err)
	}
	return &transport.Error{Code: codeOfStatus(resp.StatusCode), Msg: strings.TrimSpace(string(body))}
}
