package redis

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// server reads its stream in the consumer group of the same name, on a
// connection of its own (closing it ends a blocked read), and answers on
// the connections of another client.
type server struct {
	addr     brokered.Addr
	s        settings
	consumer string
	reader   *goredis.Client
	rdb      *goredis.Client
	service  *brokered.Service
	lost     atomic.Pointer[error] // why reading failed, for good
	closing  atomic.Bool
	done     chan struct{}
	once     sync.Once
}

// Listen creates the service's stream and consumer group (or joins them:
// replicas share the group's requests) and reads it.
func (t Transport) Listen(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Server, error) {
	e, err := brokered.Open(t, addr, cfg, true)
	if err != nil {
		return nil, err
	}
	a := e.Addr
	srv := &server{addr: a, s: settingsOf(e.Options), consumer: brokered.RandomID(),
		reader: newClient(a, cfg, "service", readerPool), rdb: newClient(a, cfg, "service", 0),
		service: brokered.NewService(e, h), done: make(chan struct{})}
	err = ping(ctx, a, srv.reader, srv.rdb)
	if err == nil {
		err = srv.createGroup(ctx)
	}
	if err != nil {
		srv.reader.Close()
		srv.rdb.Close()
		return nil, err
	}
	go srv.read()
	return srv, nil
}

// createGroup makes the stream and its group, which reads it from its
// first entry (requests that waited for a service are served); one
// already there is joined.
func (srv *server) createGroup(ctx context.Context) error {
	err := srv.rdb.XGroupCreateMkStream(ctx, srv.addr.Name, srv.addr.Name, "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return brokered.Unavailable("redis: creating the consumer group of stream %s: %w", srv.addr.Name, err)
	}
	return nil
}

// read hands each request to a handler until Close, or until a read
// fails: like the other broker stacks' servers, it does not reconnect,
// and Health then says why it no longer serves. A group found gone (the
// last replica of a service deleted its stream as another joined) is
// made again.
func (srv *server) read() {
	defer close(srv.done)
	args := &goredis.XReadGroupArgs{Group: srv.addr.Name, Consumer: srv.consumer,
		Streams: []string{srv.addr.Name, ">"}, Count: readBatch, Block: readBlock}
	for {
		streams, err := srv.reader.XReadGroup(context.Background(), args).Result()
		if srv.closing.Load() {
			return
		}
		switch {
		case errors.Is(err, goredis.Nil): // nothing within readBlock
			continue
		case err != nil && strings.HasPrefix(err.Error(), "NOGROUP"):
			err = srv.createGroup(context.Background())
		}
		if err != nil {
			err = brokered.Unavailable("redis: reading stream %s from Redis at %s: %w: the stream is no longer served", srv.addr.Name, srv.addr.Host, err)
			srv.lost.Store(&err)
			return
		}
		for _, st := range streams {
			for _, msg := range st.Messages {
				srv.take(msg)
			}
		}
	}
}

// take serves one request; its reply, acknowledgement and deletion go
// in one round trip. A request with nobody to answer, or whose caller
// has given up, is only acknowledged and deleted.
func (srv *server) take(msg goredis.XMessage) {
	m, id, replyTo, body := parseEntry(msg.Values)
	pipe := srv.rdb.Pipeline()
	var send func(context.Context, brokered.Meta, []byte)
	if id != "" && replyTo != "" {
		send = func(ctx context.Context, out brokered.Meta, reply []byte) {
			// A reply stream that is gone (its caller closed) is not made
			// again: nobody would read it.
			pipe.XAdd(ctx, &goredis.XAddArgs{Stream: replyTo, NoMkStream: true, MaxLen: srv.s.maxLen, Approx: true,
				Values: entry(out, reply, fieldID, id)})
		}
	}
	srv.service.Take(m, body, send, func(ctx context.Context) {
		pipe.XAck(ctx, srv.addr.Name, srv.addr.Name, msg.ID)
		pipe.XDel(ctx, srv.addr.Name, msg.ID)
		// A failed reply (the caller's stream is gone, or we are closing)
		// leaves the caller to its deadline, as on the other brokers.
		pipe.Exec(ctx)
	})
}

func (srv *server) Addr() string { return srv.addr.String() }

// Health is nil while the server reads its stream, and says why not once
// a read failed.
func (srv *server) Health() error {
	if err := srv.lost.Load(); err != nil {
		return *err
	}
	return nil
}

// Close stops reading (closing the reader's connection ends a blocked
// read), ends the calls in flight and waits for them, then leaves the
// group; the last consumer of a service deletes its stream, once empty.
func (srv *server) Close() error {
	srv.once.Do(func() {
		srv.closing.Store(true)
		srv.reader.Close()
		<-srv.done
		srv.service.Close()
		srv.leave()
		srv.rdb.Close()
	})
	return nil
}

// leave takes this server's consumer out of the group and, if no other
// is left in it and no request waits, deletes the stream. Failures are
// left alone: the stream is bounded (maxlen), and a broker that is gone
// has nothing to clean.
func (srv *server) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	name := srv.addr.Name
	if srv.rdb.XGroupDelConsumer(ctx, name, name, srv.consumer).Err() != nil {
		return
	}
	groups, err := srv.rdb.XInfoGroups(ctx, name).Result()
	if err != nil || len(groups) != 1 || groups[0].Consumers != 0 || groups[0].Pending != 0 {
		return
	}
	if n, err := srv.rdb.XLen(ctx, name).Result(); err == nil && n == 0 {
		srv.rdb.Del(ctx, name)
	}
}
