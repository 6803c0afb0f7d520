// Package redis is the redis stack: request/reply over Redis Streams with
// github.com/redis/go-redis/v9. A caller adds each request as an entry to
// the service's stream, with its metadata, a correlation id and the name
// of its own reply stream; services read the stream in a consumer group
// named after it, so replicas share the requests, and add each reply to
// the caller's reply stream, which one goroutine of the caller reads.
// Served requests and read replies are deleted; both streams are also
// trimmed (MAXLEN ~), so a long run cannot grow Redis's memory without
// bound.
//
// Addresses are redis://127.0.0.1:6379/STREAM.
package redis

import (
	"context"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

func init() { transport.Register(Transport{}) }

// Transport is the redis stack.
type Transport struct{}

func (Transport) Name() string { return "redis" }

// Caps: a broker stack's, through Redis.
func (t Transport) Caps() transport.Caps {
	return brokered.Caps("redis", "redis", t.options(), t.traits())
}

// traits are what redis offers beyond its figures.
func (Transport) traits() transport.Traits {
	return transport.Traits{
		Decoupled: true,
		Durable:   "requests wait in a stream in Redis's memory, which its append-only file (fsynced every second) keeps across a restart, but for the last second's",
		Browser:   "browsers do not speak Redis's protocol (RESP): an HTTP gateway goes in front",
		Notes: []string{"a broker to run and monitor: one small single-threaded server that keeps everything in memory",
			"a stream keeps requests while no service reads it, up to its bound (option maxlen); past it the oldest are dropped"},
	}
}

// DefaultMaxLen is the maxlen option's default: the entries a stream keeps
// at most, about (trimming is approximate: Redis drops whole nodes of a
// stream's tree, up to 100 entries each, so a stream can hold up to 100
// more).
const DefaultMaxLen = 10000

func (Transport) options() []transport.Option {
	return []transport.Option{
		{Name: "maxlen", Default: strconv.Itoa(DefaultMaxLen), Check: transport.PositiveInt,
			Help: "entries a request or reply stream keeps at most (XADD MAXLEN ~, so up to 100 more): served requests and read replies are deleted at once, so this bounds a backlog; past it the oldest entries are dropped"},
		brokered.ServeOption,
	}
}

// settings are the options, read.
type settings struct {
	maxLen int64
}

// settingsOf reads the options, resolved (brokered.Endpoint's).
func settingsOf(opts map[string]string) settings {
	var s settings
	s.maxLen, _ = strconv.ParseInt(opts["maxlen"], 10, 64)
	return s
}

// Field names of a stream entry beside the metadata (brokered.Meta's
// headers, whose names never clash with these).
const (
	fieldBody    = "body"
	fieldID      = "correlation-id"
	fieldReplyTo = "reply-to"
)

// readBlock is how long a read of a stream blocks before it is made
// again; readBatch, how many entries one read takes at most.
const (
	readBlock = 5 * time.Second
	readBatch = 128
)

// readerPool is the pool of a client that only reads, one blocking read
// at a time: one connection is used, but go-redis starts a goroutine that
// redials every second, outliving Close by up to a second, as soon as as
// many dials in a row fail as its pool is large; a reader whose connection
// is lost gives up after one failed dial.
const readerPool = 2

// ioTimeout bounds a command's socket reads and writes (a blocking read's
// is its block and 10 s more): a 64 MiB body over an emulated 100 Mbit/s
// link takes about 5 s.
const ioTimeout = 30 * time.Second

// newClient is a go-redis client of the broker at a, which dials through
// cfg's dialer (counted, TLS with cfg.ClientTLS), at most poolSize
// connections (0: go-redis's default, ten per CPU). It never retries a
// command: a retried XADD could deliver a request twice.
func newClient(a brokered.Addr, cfg transport.Config, role string, poolSize int) *goredis.Client {
	return goredis.NewClient(&goredis.Options{
		Addr:                     a.Host,
		ClientName:               "hopbench-" + role + "-" + a.Name,
		Dialer:                   brokered.TLSDial(cfg),
		MaxRetries:               -1,
		DialerRetries:            1,
		PoolSize:                 poolSize,
		ReadTimeout:              ioTimeout,
		WriteTimeout:             ioTimeout,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}

// ping checks that the broker answers on each client, so that Listen and
// Dial fail at once when it is not there; each client then holds a
// connection (a reader's only one, which a lost broker then fails, rather
// than a dial later).
func ping(ctx context.Context, a brokered.Addr, clients ...*goredis.Client) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, rdb := range clients {
		if err := rdb.Ping(ctx).Err(); err != nil {
			return brokered.Unavailable("redis: connecting to Redis at %s: %w (is it running? hopbench brokers up redis)", a.Host, err)
		}
	}
	return nil
}

// entry is a stream entry's fields: the metadata, then the others.
func entry(m brokered.Meta, body []byte, more ...string) []any {
	out := make([]any, 0, 2*len(m)+len(more)+2)
	for k, v := range m {
		out = append(out, k, v)
	}
	for _, s := range more {
		out = append(out, s)
	}
	return append(out, fieldBody, body)
}

// parseEntry reads an entry's fields back: its metadata, correlation id,
// reply stream and body.
func parseEntry(values map[string]any) (m brokered.Meta, id, replyTo string, body []byte) {
	m = make(brokered.Meta, len(values))
	for k, v := range values {
		s, _ := v.(string)
		switch k {
		case fieldBody:
			body = []byte(s)
		case fieldID:
			id = s
		case fieldReplyTo:
			replyTo = s
		default:
			m[k] = s
		}
	}
	return m, id, replyTo, body
}
