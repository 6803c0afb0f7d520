package nodeapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Admin is a client of a node's admin endpoint at Addr (host:port).
type Admin struct{ Addr string }

// adminClient bounds every admin call besides its context.
var adminClient = &http.Client{Timeout: 5 * time.Second}

func (a Admin) call(ctx context.Context, method, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+a.Addr+path, nil)
	if err != nil {
		return nil, err
	}
	return adminClient.Do(req)
}

// Ready asks GET /ready: ok while the node serves, or why it cannot (its
// 503's body); an error when it does not answer.
func (a Admin) Ready(ctx context.Context) (ok bool, why string, err error) {
	resp, err := a.call(ctx, http.MethodGet, "/ready")
	if err != nil {
		return false, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch resp.StatusCode {
	case http.StatusOK:
		return true, "", nil
	case http.StatusServiceUnavailable:
		return false, strings.TrimSpace(string(body)), nil
	}
	return false, "", fmt.Errorf("GET /ready: %s", resp.Status)
}

// Reset asks POST /reset: the node's figures restart from zero.
func (a Admin) Reset(ctx context.Context) error {
	resp, err := a.call(ctx, http.MethodPost, "/reset")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("POST /reset: %s", resp.Status)
	}
	return nil
}

// Stats reads GET /stats, the node's figures as the contract types them.
func (a Admin) Stats(ctx context.Context) (*Stats, error) {
	resp, err := a.call(ctx, http.MethodGet, "/stats")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /stats: %s", resp.Status)
	}
	var s Stats
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&s); err != nil {
		return nil, fmt.Errorf("GET /stats: %w", err)
	}
	return &s, nil
}
