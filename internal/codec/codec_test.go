package codec_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
)

// testCounts are sizes small enough for -race yet large enough to have every
// field set; count 0 checks the empty payload.
var testCounts = map[string][]int{
	"user": {0, 1, 50}, "payment": {0, 1, 7}, "recipe": {0, 1, 3}, "text": {0, 10, 1000},
	"alltypes": {0, 1, 10, 100}, "int": {0, 1}, "ints": {0, 1000}, "textfile": {0, 4096}, "blob": {0, 64 << 10},
}

func TestRoundTripEveryModelCodecCompression(t *testing.T) {
	for _, m := range payload.Models() {
		for _, count := range testCounts[m.Name] {
			want, err := m.Message(count, payload.DefaultSeed)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range codec.All() {
				for _, zname := range codec.CompressionNames() {
					z, _ := codec.LookupCompression(zname)
					cc := codec.Compressed(c, z, codec.DefaultMaxBytes)
					data, err := cc.Marshal(want)
					if err != nil {
						t.Fatalf("%s/%d %s: marshal: %v", m.Name, count, cc.Name(), err)
					}
					got := m.New()
					if err := cc.Unmarshal(data, got); err != nil {
						t.Fatalf("%s/%d %s: unmarshal: %v", m.Name, count, cc.Name(), err)
					}
					if !proto.Equal(want, got) {
						t.Fatalf("%s/%d %s: round trip changed the message", m.Name, count, cc.Name())
					}
				}
			}
		}
	}
}

func TestEncodingIsDeterministic(t *testing.T) {
	for _, m := range payload.Models() {
		count := testCounts[m.Name][len(testCounts[m.Name])-1]
		a, _ := m.Message(count, 42)
		b, _ := m.Message(count, 42)
		for _, c := range codec.All() {
			ea, err := c.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			eb, _ := c.Marshal(b)
			if string(ea) != string(eb) {
				t.Errorf("%s %s: two messages from the same seed encode differently", m.Name, c.Name())
			}
		}
	}
}

func TestDifferentSeedsDiffer(t *testing.T) {
	a, _ := payload.Generate("user", 10, 1)
	b, _ := payload.Generate("user", 10, 2)
	if proto.Equal(a, b) {
		t.Fatal("seeds 1 and 2 generated the same users")
	}
}

func TestDecompressRefusesAboveLimit(t *testing.T) {
	big := []byte(strings.Repeat("a", 1<<20))
	for _, name := range codec.CompressionNames() {
		z, _ := codec.LookupCompression(name)
		packed, err := z.Compress(big)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := z.Decompress(packed, 1<<20); err != nil {
			t.Errorf("%s: at the limit: %v", name, err)
		}
		_, err = z.Decompress(packed, 1<<20-1)
		if !errors.Is(err, codec.ErrTooLarge) || !strings.Contains(err.Error(), "limit") {
			t.Errorf("%s: one byte over the limit: got %v, want ErrTooLarge naming the limit", name, err)
		}
	}
}

func TestLookupErrorsNameTheKnownValues(t *testing.T) {
	if _, err := codec.Lookup("xml"); err == nil || !strings.Contains(err.Error(), "json, json-fast, proto, msgpack, cbor, avro") {
		t.Errorf("Lookup(xml) = %v", err)
	}
	if _, err := codec.LookupCompression("brotli"); err == nil || !strings.Contains(err.Error(), "none, gzip, zstd") {
		t.Errorf("LookupCompression(brotli) = %v", err)
	}
	if _, err := codec.ForContentType("text/xml"); err == nil || !strings.Contains(err.Error(), "application/x-protobuf") {
		t.Errorf("ForContentType(text/xml) = %v", err)
	}
}

func TestForContentTypeIgnoresParameters(t *testing.T) {
	c, err := codec.ForContentType("application/json; charset=utf-8")
	if err != nil || c.Name() != "json" {
		t.Fatalf("got %v, %v; want json", c, err)
	}
	c, err = codec.ForContentType("Application/X-Protobuf")
	if err != nil || c.Name() != "proto" {
		t.Fatalf("got %v, %v; want proto", c, err)
	}
}

// Every codec refuses a body cut short or followed by garbage, and a few
// bytes declaring a huge array (the msgpack and avro libraries once
// allocated gigabytes for those).
func TestMalformedBodiesAreRefused(t *testing.T) {
	msg, _ := payload.Generate("payment", 3, payload.DefaultSeed)
	m, _ := payload.Lookup("payment")
	hugeArrays := map[string][]byte{
		"msgpack": {0x81, 0xa8, 'p', 'a', 'y', 'm', 'e', 'n', 't', 's', 0xdd, 0x7f, 0xff, 0xff, 0xff},
		"cbor":    {0xa1, 0x68, 'p', 'a', 'y', 'm', 'e', 'n', 't', 's', 0x9a, 0x7f, 0xff, 0xff, 0xff},
		"avro":    {0x80, 0x80, 0x80, 0x80, 0x08, 0x00},
		"proto":   {0x0a, 0xff, 0xff, 0xff, 0xff, 0x07},
		"json":    []byte(`{"payments":[{},{},`),
	}
	for _, c := range codec.All() {
		good, _ := c.Marshal(msg)
		if err := c.Unmarshal(good[:len(good)-1], m.New()); err == nil {
			t.Errorf("%s: a body cut one byte short was accepted", c.Name())
		}
		if err := c.Unmarshal(append(good[:len(good):len(good)], 0xff, 0x01), m.New()); err == nil {
			t.Errorf("%s: trailing garbage was accepted", c.Name())
		}
		if huge, ok := hugeArrays[c.Name()]; ok {
			if err := c.Unmarshal(huge, m.New()); err == nil {
				t.Errorf("%s: %d bytes declaring a huge array were accepted", c.Name(), len(huge))
			}
		}
	}
}
