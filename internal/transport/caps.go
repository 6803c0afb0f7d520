package transport

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/codec"
)

// Caps are what a stack carries and how, declared once by its transport
// (Transport.Caps) and checked when it registers. Spec validation, the
// load, advise and the combinations suite read them; no capability is
// found by a type assertion. Interfaces remain for behaviour only
// (Messenger, FeedClient, Healthy).
type Caps struct {
	// Codecs are the body codecs the stack carries; the first is its
	// default.
	Codecs []string
	// Compressions are the body compressions it carries besides none (nil:
	// every registered compression, which hopbench applies to bodies;
	// empty: none but none).
	Compressions []string
	// WireCodec maps a codec name to what the stack's protocol puts on the
	// wire under that name (nil: codec.Lookup): connect's json is the
	// proto JSON mapping.
	WireCodec func(name string) (codec.Codec, error)
	// CompressesItself: the protocol compresses bodies (grpc-encoding), so
	// callers send and get them uncompressed.
	CompressesItself bool
	// DecodesItself: servers decode request bodies themselves (GraphQL's
	// resolvers), into the payload schema's v1 messages; they serve a
	// Handler's Message, never its Bytes, so a v2 node cannot serve them.
	DecodesItself bool
	// Feeds: the stack carries feeds (feed:N, server streaming); its
	// clients are FeedClients.
	Feeds bool
	// OneWay: the stack carries one-way messages; the transport is a
	// Messenger.
	OneWay bool
	// NeedsTLS says why its calls must be encrypted ("" when they may go
	// plain or encrypted, as the run says).
	NeedsTLS string
	// HTTP is the HTTP version its calls take with the run's HTTP/2
	// setting (HTTP1 or HTTP2), which an L7 proxy must speak; nil when
	// they are not HTTP requests (an L4 proxy carries them).
	HTTP func(http2 bool) string
	// Unproxied says why no TCP proxy can carry its calls ("" when one
	// can): QUIC is UDP.
	Unproxied string
	// LocalOnly says why it runs on this machine only, not on hosts of
	// their own ("" when it runs anywhere).
	LocalOnly string
	// PerRequest says why its clients cannot be opened for every call
	// (connections: per-request); "" when they can.
	PerRequest string
	// Broker names the broker a brokered stack talks through (rabbitmq,
	// kafka, nats, redis, mosquitto; "" for a direct stack) and Scheme its
	// addresses' URL scheme, e.g. amqp://127.0.0.1:5672/hopbench.
	Broker, Scheme string
	// Options are the stack's own settings.
	Options []Option
	// Traits are what it offers that no run measures.
	Traits Traits
}

// check refuses facts that contradict each other or the registries: a
// programming error in the transport that declares them.
func (c Caps) check(t Transport) error {
	var errs []error
	if len(c.Codecs) == 0 {
		errs = append(errs, errors.New("declares no codec"))
	}
	for _, n := range c.Codecs {
		if _, err := codec.Lookup(n); err != nil {
			errs = append(errs, err)
		}
	}
	for _, n := range c.Compressions {
		if _, err := codec.LookupCompression(n); err != nil {
			errs = append(errs, err)
		}
	}
	if (c.Broker == "") != (c.Scheme == "") {
		errs = append(errs, errors.New("a broker needs a scheme, and a scheme a broker"))
	}
	if _, ok := t.(Messenger); ok != c.OneWay {
		errs = append(errs, fmt.Errorf("OneWay is %v but the transport is a Messenger: %v", c.OneWay, ok))
	}
	if c.OneWay && c.Broker == "" {
		errs = append(errs, errors.New("one-way messages need a broker"))
	}
	return errors.Join(errs...)
}

// CapsOf are the named stack's capabilities.
func CapsOf(name string) (Caps, error) {
	t, err := Lookup(name)
	if err != nil {
		return Caps{}, err
	}
	return t.Caps(), nil
}

// CompressionsOf are the compressions t carries, none first.
func CompressionsOf(t Transport) []string {
	if z := t.Caps().Compressions; z != nil {
		return append([]string{"none"}, z...)
	}
	return codec.CompressionNames()
}

// refuseConfig refuses a codec or compression t does not carry, naming
// what it does: checked by Listen and Dial so no transport can forget it,
// and by ParseStack so a spec naming one is refused before anything runs.
func refuseConfig(t Transport, codecName, compression string) error {
	c := t.Caps()
	if codecName != "" && !slices.Contains(c.Codecs, codecName) {
		return fmt.Errorf("%s carries %s bodies only, not %q", t.Name(), strings.Join(c.Codecs, " and "), codecName)
	}
	switch {
	case compression == "" || slices.Contains(CompressionsOf(t), compression):
		return nil
	case len(c.Compressions) == 0:
		return fmt.Errorf("%s compresses no bodies, not %q", t.Name(), compression)
	}
	return fmt.Errorf("%s compresses bodies with %s only, not %q", t.Name(), strings.Join(c.Compressions, " and "), compression)
}

// OptionsOf lists t's options, none for most transports.
func OptionsOf(t Transport) []Option { return t.Caps().Options }

// TraitsOf returns t's traits.
func TraitsOf(t Transport) Traits { return t.Caps().Traits }

// BrokerOf returns the broker t talks through, or "" for direct stacks.
func BrokerOf(t Transport) string { return t.Caps().Broker }

// CompressesItself reports whether t compresses bodies itself.
func CompressesItself(t Transport) bool { return t.Caps().CompressesItself }

// DecodesItself reports whether t decodes request bodies itself.
func DecodesItself(t Transport) bool { return t.Caps().DecodesItself }

// BodyCodec is the codec a stack's bodies are encoded in and the
// compression hopbench applies to them on t: the stack's, or none when t
// compresses bodies itself (its protocol then compresses after).
func BodyCodec(t Transport, st Stack) (codec.Codec, codec.Compression, error) {
	lookup := codec.Lookup
	if m := t.Caps().WireCodec; m != nil {
		lookup = m
	}
	c, err := lookup(st.Codec)
	if err != nil {
		return nil, nil, err
	}
	z, err := codec.LookupCompression(st.Compression)
	if err != nil {
		return nil, nil, err
	}
	if CompressesItself(t) {
		z, _ = codec.LookupCompression("none")
	}
	return c, z, nil
}

// StackBroker returns the broker a stack talks through: "" for a direct
// stack, or one whose technology is not registered.
func StackBroker(st Stack) string {
	c, err := CapsOf(st.Transport)
	if err != nil {
		return ""
	}
	return c.Broker
}

// HTTPVersionOf is the HTTP version name's calls take, with http2 as the
// run sets it, for an L7 proxy between its caller and server; "" when
// they are not HTTP requests (an L4 proxy carries them).
func HTTPVersionOf(name string, http2 bool) string {
	if c, err := CapsOf(name); err == nil && c.HTTP != nil {
		return c.HTTP(http2)
	}
	return ""
}

// UnproxiedWhy says why no TCP proxy can carry name's calls; "" when one
// can.
func UnproxiedWhy(name string) string {
	c, _ := CapsOf(name)
	return c.Unproxied
}

// PerRequestRefusal is why the named transport takes no per-request
// connections; nil when it does.
func PerRequestRefusal(name string) error {
	c, err := CapsOf(name)
	if err != nil {
		return err
	}
	if c.PerRequest != "" {
		return errors.New(c.PerRequest)
	}
	return nil
}

// FeedRefusal is why the named transport carries no feeds; nil when it
// does.
func FeedRefusal(name string) error {
	c, err := CapsOf(name)
	if err != nil {
		return err
	}
	if !c.Feeds {
		return fmt.Errorf("%s replies with one message a call, so it carries no feed (server streaming); stacks that do: %s", name, strings.Join(FeedingNames(), ", "))
	}
	return nil
}

// FeedingNames lists the transports that carry feeds, sorted.
func FeedingNames() []string {
	out := namesWhere(func(c Caps) bool { return c.Feeds })
	if len(out) == 0 {
		return []string{"none yet"}
	}
	return out
}

// namesWhere lists the registered transports whose caps satisfy keep.
func namesWhere(keep func(Caps) bool) []string {
	var out []string
	for _, n := range Names() {
		if keep(registry[n].Caps()) {
			out = append(out, n)
		}
	}
	return out
}
