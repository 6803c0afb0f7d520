package transport

import (
	"errors"
	"net"
)

// RunServer serves l with serve in a goroutine and returns a Server whose
// Close calls stop, waits for serve to return, and takes stopped (what serve
// returns once stopped, e.g. http.ErrServerClosed) as a clean end.
func RunServer(l net.Listener, serve func(net.Listener) error, stop func() error, stopped error) Server {
	s := &runningServer{l: l, stop: stop, stopped: stopped, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.err = serve(l)
	}()
	return s
}

type runningServer struct {
	l       net.Listener
	stop    func() error
	stopped error
	done    chan struct{}
	err     error
}

func (s *runningServer) Addr() string { return s.l.Addr().String() }

func (s *runningServer) Close() error {
	err := s.stop()
	<-s.done
	if errors.Is(s.err, s.stopped) {
		s.err = nil
	}
	return errors.Join(err, s.err)
}
