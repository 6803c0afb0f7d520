package brokered

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Handlers serve every request in flight at once, serve one request after
// another in the goroutine that waits idle (its stack already grown), let
// it go once idle past handlerIdle, and end every call on Close.
func TestHandlersReuseAnIdleGoroutineAndServeAllInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hs := NewHandlers(ServeConcurrent)
		for range 100 {
			done := make(chan struct{})
			hs.Go(func(context.Context) { close(done) })
			<-done
			synctest.Wait()
		}
		if n := serving(); n != 1 {
			t.Errorf("100 requests one after another left %d goroutines, want the 1 that served them all", n)
		}
		time.Sleep(handlerIdle + time.Second)
		synctest.Wait()
		if n := serving(); n != 0 {
			t.Errorf("%d goroutines past the idle time, want none", n)
		}
		var started sync.WaitGroup
		started.Add(10)
		for range 10 {
			hs.Go(func(ctx context.Context) { started.Done(); <-ctx.Done() })
		}
		started.Wait() // all 10 in flight at once, or this never returns
		hs.Close()
		synctest.Wait() // Close returns at each goroutine's wg.Done, before it has quite exited
		if n := serving(); n != 0 {
			t.Errorf("%d goroutines after Close, want none", n)
		}
	})
}

// serving counts the handlers' goroutines: the process's others (the test
// runner's, the race detector's) come and go outside the bubble.
func serving() int {
	buf := make([]byte, 1<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "brokered.(*Handlers).serve(")
}

// Serial handlers serve each request in the goroutine that hands it over,
// before Go returns: no goroutine is started, and none runs beside it.
func TestSerialHandlersServeInTheDeliveringGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hs := NewHandlers(ServeSerial)
		defer hs.Close()
		base := runtime.NumGoroutine()
		served := 0
		for range 10 {
			hs.Go(func(ctx context.Context) {
				if n := runtime.NumGoroutine() - base; n != 0 || ctx.Err() != nil {
					t.Errorf("served beside %d other goroutines, context %v", n, ctx.Err())
				}
				served++
			})
		}
		if served != 10 {
			t.Errorf("%d of 10 served when Go returned", served)
		}
	})
}
