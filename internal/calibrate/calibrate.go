// Package calibrate measures this machine's floor right before the runs it
// accompanies: a raw TCP round trip and a minimal HTTP exchange over
// loopback, one in flight, and the load engine's own CPU per request, so
// that a report can state each stack's latency as a multiple of what the
// machine cannot go below.
package calibrate

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
)

// Measure takes samples round trips of each kind (a few thousand take
// well under a second here) and the engine's cost over as many calls.
func Measure(ctx context.Context, samples int) (*results.Calibration, error) {
	tcp, err := tcpRoundTrip(ctx, samples)
	if err != nil {
		return nil, fmt.Errorf("calibrate: TCP: %w", err)
	}
	httpRT, err := httpRoundTrip(ctx, samples)
	if err != nil {
		return nil, fmt.Errorf("calibrate: HTTP: %w", err)
	}
	noise, err := Noise(ctx, samples)
	if err != nil {
		return nil, fmt.Errorf("calibrate: noise: %w", err)
	}
	gen, err := generatorCost(ctx, int64(samples)*20)
	if err != nil {
		return nil, fmt.Errorf("calibrate: generator: %w", err)
	}
	return &results.Calibration{TCPRoundTripUs: tcp, HTTPRoundTripUs: httpRT, GeneratorCPUUsPerReq: gen, Samples: samples, NoiseSpread: noise}, nil
}

// noiseBatches is how many times Noise times its fixed workload.
const noiseBatches = 5

// Noise is this machine's noise as a fixed workload sees it: the HTTP
// round trip's median over noiseBatches batches of samples/noiseBatches
// each, and the spread of those medians, (max − min) / median. A quiet
// machine moves a few percent; one shared with other work, more.
func Noise(ctx context.Context, samples int) (float64, error) {
	medians := make([]float64, noiseBatches)
	for i := range medians {
		m, err := httpRoundTrip(ctx, max(samples/noiseBatches, 50))
		if err != nil {
			return 0, err
		}
		medians[i] = m
	}
	slices.Sort(medians)
	return (medians[len(medians)-1] - medians[0]) / medians[len(medians)/2], nil
}

// median of the round trips, in microseconds, after a tenth as warm-up.
func median(ctx context.Context, samples int, roundTrip func() error) (float64, error) {
	warm := samples / 10
	times := make([]time.Duration, 0, samples)
	for i := range samples + warm {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		start := time.Now()
		if err := roundTrip(); err != nil {
			return 0, err
		}
		if i >= warm {
			times = append(times, time.Since(start))
		}
	}
	slices.Sort(times)
	return float64(times[len(times)/2].Nanoseconds()) / 1000, nil
}

// tcpRoundTrip is 64 bytes to a loopback echo server and back.
func tcpRoundTrip(ctx context.Context, samples int) (float64, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		return 0, err
	}
	defer c.Close()
	msg, buf := make([]byte, 64), make([]byte, 64)
	return median(ctx, samples, func() error {
		if _, err := c.Write(msg); err != nil {
			return err
		}
		_, err := io.ReadFull(c, buf)
		return err
	})
}

// httpRoundTrip is a GET of 2 bytes from a net/http server, kept alive.
func httpRoundTrip(ctx context.Context, samples int) (float64, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }),
		ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	url := "http://" + l.Addr().String() + "/"
	return median(ctx, samples, func() error {
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return err
	})
}

// generatorCost runs the load engine against a call that does nothing:
// what remains is the engine's own CPU per request (timing, recording,
// collecting).
func generatorCost(ctx context.Context, requests int64) (float64, error) {
	nothing := func() load.Call { return func(context.Context) error { return nil } }
	r, err := load.Run(ctx, load.Config{Kind: load.Closed, Clients: 1, Requests: requests}, nothing)
	if err != nil {
		return 0, err
	}
	return r.ClientCPUPerRequest(), nil
}
