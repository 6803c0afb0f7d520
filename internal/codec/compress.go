package codec

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/proto"
)

// Compression is a body compression applied after a codec, as HTTP's
// Content-Encoding or gRPC's compressor does. Implementations are safe for
// concurrent use.
type Compression interface {
	// Name is the registry name: "none", "gzip" or "zstd".
	Name() string
	// Encoding is the Content-Encoding token; empty for none.
	Encoding() string
	Compress(src []byte) ([]byte, error)
	// Decompress refuses output above limit bytes with an error wrapping ErrTooLarge.
	Decompress(src []byte, limit int) ([]byte, error)
}

var compressions = []Compression{noCompression{}, newGzip(), newZstd()}

// CompressionNames returns the compression names, "none" first.
func CompressionNames() []string {
	names := make([]string, len(compressions))
	for i, z := range compressions {
		names[i] = z.Name()
	}
	return names
}

// LookupCompression returns the compression called name ("" means none).
func LookupCompression(name string) (Compression, error) {
	if name == "" {
		name = "none"
	}
	for _, z := range compressions {
		if z.Name() == name {
			return z, nil
		}
	}
	return nil, fmt.Errorf("unknown compression %q (known: %s)", name, strings.Join(CompressionNames(), ", "))
}

// ForEncoding returns the compression for a Content-Encoding value.
func ForEncoding(encoding string) (Compression, error) {
	encoding = strings.ToLower(strings.TrimSpace(encoding))
	for _, z := range compressions {
		if z.Encoding() == encoding {
			return z, nil
		}
	}
	return nil, fmt.Errorf("unsupported content encoding %q (supported: gzip, zstd)", encoding)
}

// Compressed wraps c so that Marshal compresses with z and Unmarshal
// decompresses, refusing more than limit decompressed bytes.
func Compressed(c Codec, z Compression, limit int) Codec {
	if z.Name() == "none" {
		return c
	}
	return compressedCodec{Codec: c, z: z, limit: limit}
}

// CompressedBound is the most bytes z makes of n bytes: n for none; for
// gzip and zstd n plus a tenth of a percent and 64 bytes, above what either
// adds to incompressible input (deflate's stored blocks cost 5 bytes per
// block of up to 64 KiB, zstd's raw blocks 3 bytes per 128 KiB, plus their
// headers and checksums). With a size bound of the uncompressed body it
// bounds the compressed one (tested for every model and codec).
func CompressedBound(z Compression, n int64) int64 {
	if z == nil || z.Name() == "none" {
		return n
	}
	return n + n/1024 + 64
}

type compressedCodec struct {
	Codec
	z     Compression
	limit int
}

func (c compressedCodec) Name() string { return c.Codec.Name() + "+" + c.z.Name() }

func (c compressedCodec) Marshal(m proto.Message) ([]byte, error) {
	b, err := c.Codec.Marshal(m)
	if err != nil {
		return nil, err
	}
	return c.z.Compress(b)
}

func (c compressedCodec) Unmarshal(data []byte, m proto.Message) error {
	b, err := c.z.Decompress(data, c.limit)
	if err != nil {
		return err
	}
	return c.Codec.Unmarshal(b, m)
}

type noCompression struct{}

func (noCompression) Name() string                        { return "none" }
func (noCompression) Encoding() string                    { return "" }
func (noCompression) Compress(src []byte) ([]byte, error) { return src, nil }

func (noCompression) Decompress(src []byte, limit int) ([]byte, error) {
	if len(src) > limit {
		return nil, fmt.Errorf("%w: %d bytes exceed the limit of %d", ErrTooLarge, len(src), limit)
	}
	return src, nil
}

// gzipCompression is the standard library's gzip at its default level: what
// net/http handlers and grpc-go's gzip compressor use.
type gzipCompression struct {
	writers sync.Pool
	readers sync.Pool
}

func newGzip() *gzipCompression {
	return &gzipCompression{writers: sync.Pool{New: func() any { return gzip.NewWriter(nil) }}}
}

func (*gzipCompression) Name() string     { return "gzip" }
func (*gzipCompression) Encoding() string { return "gzip" }

func (g *gzipCompression) Compress(src []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(src)/4 + 64)
	w := g.writers.Get().(*gzip.Writer)
	defer g.writers.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(src); err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return buf.Bytes(), nil
}

func (g *gzipCompression) Decompress(src []byte, limit int) ([]byte, error) {
	var r *gzip.Reader
	if pooled, ok := g.readers.Get().(*gzip.Reader); ok {
		r = pooled
		if err := r.Reset(bytes.NewReader(src)); err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
	} else {
		var err error
		if r, err = gzip.NewReader(bytes.NewReader(src)); err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
	}
	defer g.readers.Put(r)
	return readLimited(r, limit, len(src)*4)
}

// readLimited reads r to its end, refusing more than limit bytes.
func readLimited(r io.Reader, limit, sizeHint int) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, min(sizeHint, limit-1)+1))
	// One byte past the limit tells "at the limit" from "above it".
	n, err := buf.ReadFrom(io.LimitReader(r, int64(min(limit, math.MaxInt-1))+1))
	if err != nil {
		return nil, fmt.Errorf("decompress: %w", err)
	}
	if n > int64(limit) {
		return nil, fmt.Errorf("%w: decompressed body exceeds the limit of %d bytes", ErrTooLarge, limit)
	}
	return buf.Bytes(), nil
}

// zstdCompression is klauspost/compress's zstd at its default level. One
// encoder serves every goroutine through EncodeAll; decoders are pooled and
// stream through the same size limit as gzip, so a zstd bomb is refused too.
type zstdCompression struct {
	enc      *zstd.Encoder
	decoders sync.Pool
}

func newZstd() *zstdCompression {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		panic(err) // default options: a failure is a programming error
	}
	return &zstdCompression{enc: enc}
}

func (*zstdCompression) Name() string     { return "zstd" }
func (*zstdCompression) Encoding() string { return "zstd" }

func (z *zstdCompression) Compress(src []byte) ([]byte, error) {
	return z.enc.EncodeAll(src, make([]byte, 0, len(src)/4+64)), nil
}

func (z *zstdCompression) Decompress(src []byte, limit int) ([]byte, error) {
	d, ok := z.decoders.Get().(*zstd.Decoder)
	if !ok {
		var err error
		if d, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20)); err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
	}
	defer z.decoders.Put(d)
	if err := d.Reset(bytes.NewReader(src)); err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return readLimited(d, limit, len(src)*4)
}

// ParseName reads codec[+compression], e.g. json or proto+gzip;
// compression is none when not given.
func ParseName(s string) (name, compression string, err error) {
	name, compression, _ = strings.Cut(s, "+")
	if compression == "" {
		compression = "none"
	}
	if _, err := Lookup(name); err != nil {
		return "", "", err
	}
	if _, err := LookupCompression(compression); err != nil {
		return "", "", err
	}
	return name, compression, nil
}
