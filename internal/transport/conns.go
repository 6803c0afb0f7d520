package transport

import (
	"net"
	"sync"
	"sync/atomic"
)

// LimitConns serves at most max connections of l at once: one past it is
// handed to refuse (which may write a protocol's refusal) and closed.
func LimitConns(l net.Listener, max int, refuse func(net.Conn)) net.Listener {
	return &limitListener{Listener: l, max: int64(max), refuse: refuse}
}

type limitListener struct {
	net.Listener
	max    int64
	open   atomic.Int64
	refuse func(net.Conn)
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &limitedConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		if l.refuse != nil {
			l.refuse(c)
		}
		c.Close()
	}
}

type limitedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}
