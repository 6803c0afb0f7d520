package rest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hopbench/hopbench/internal/transport"
)

// Dial returns a client for the rest server at target (host:port).
func (Transport) Dial(_ context.Context, target string, cfg transport.Config) (transport.Client, error) {
	return &client{base: BaseURL(target, cfg), maxBytes: cfg.MaxBytesOrDefault(), http: NewHTTPClient(cfg)}, nil
}

// BaseURL is http://target, or https:// with TLS.
func BaseURL(target string, cfg transport.Config) string {
	if cfg.ClientTLS != nil {
		return "https://" + target
	}
	return "http://" + target
}

// NewHTTPClient is the HTTP client of the HTTP-based stacks: the Config's
// dialer, TLS and HTTP version, connections kept for every concurrent caller.
func NewHTTPClient(cfg transport.Config) *http.Client {
	dialer := cfg.Dialer
	if dialer == nil {
		dialer = &net.Dialer{Timeout: 10 * time.Second}
	}
	return &http.Client{Transport: &http.Transport{
		DialContext:         dialer.DialContext,
		TLSClientConfig:     cfg.ClientTLS,
		Protocols:           Protocols(cfg),
		MaxIdleConnsPerHost: 4096, // keep every concurrent caller's connection
		DisableCompression:  true, // compression is the stack's choice, made explicitly
	}}
}

type client struct {
	base     string
	maxBytes int
	http     *http.Client
}

func (c *client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

func (c *client) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	hreq, err := c.newRequest(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, ClassifyError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.maxBytes)+1))
	if err != nil {
		return nil, ClassifyError(ctx, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &transport.Error{Code: codeOfStatus(resp.StatusCode), Msg: strings.TrimSpace(string(body))}
	}
	if len(body) > c.maxBytes {
		return nil, transport.TooLarge("reply body", -1, c.maxBytes)
	}
	return body, nil
}

func (c *client) newRequest(ctx context.Context, req *transport.Request) (*http.Request, error) {
	path := "/v1/" + url.PathEscape(req.Model)
	var (
		hreq *http.Request
		err  error
	)
	switch req.Op {
	case transport.OpGet:
		hreq, err = http.NewRequestWithContext(ctx, http.MethodGet, c.base+path+"?count="+strconv.Itoa(req.Count), nil)
	case transport.OpPost, transport.OpEcho:
		if err := transport.CheckBody("request body", req.Body, c.maxBytes); err != nil {
			return nil, err
		}
		if req.Op == transport.OpEcho {
			path += "/echo"
		}
		hreq, err = http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(req.Body))
		if err == nil {
			hreq.Header.Set("Content-Type", req.Codec.ContentType())
			if enc := req.Compression.Encoding(); enc != "" {
				hreq.Header.Set("Content-Encoding", enc)
			}
		}
	case transport.OpFeed:
		return nil, transport.Errorf(transport.CodeBadRequest, "a feed is called with Feed (transport.CallFeed), not Call")
	default:
		return nil, transport.Errorf(transport.CodeBadRequest, "unknown operation %q", req.Op)
	}
	if err != nil {
		return nil, transport.Errorf(transport.CodeBadRequest, "%w", err)
	}
	hreq.Header.Set("Accept", req.Codec.ContentType())
	if enc := req.Compression.Encoding(); enc != "" {
		hreq.Header.Set("Accept-Encoding", enc)
	}
	return hreq, nil
}

func codeOfStatus(status int) transport.Code {
	for code, s := range statusOf {
		if s == status {
			return code
		}
	}
	if status >= 500 {
		return transport.CodeInternal
	}
	return transport.CodeBadRequest
}

// ClassifyError turns a net/http client error into a classified one.
func ClassifyError(ctx context.Context, err error) error {
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return &transport.Error{Code: transport.CodeDeadline, Msg: err.Error(), Err: err}
	case errors.As(err, &netErr) && netErr.Timeout():
		return &transport.Error{Code: transport.CodeDeadline, Msg: err.Error(), Err: err}
	}
	return &transport.Error{Code: transport.CodeUnavailable, Msg: err.Error(), Err: err}
}
