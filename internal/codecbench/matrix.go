package codecbench

import (
	"fmt"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
)

// Matrix expands models x counts x codecs x compressions into cases, in that
// nesting order. Empty counts mean each model's study sizes. Every name and
// count is checked before anything runs, so a typo fails at once.
func Matrix(models []string, counts []int, codecs, compressions []string) ([]Case, error) {
	for _, name := range codecs {
		if _, err := codec.Lookup(name); err != nil {
			return nil, err
		}
	}
	for _, name := range compressions {
		if _, err := codec.LookupCompression(name); err != nil {
			return nil, err
		}
	}
	var cases []Case
	for _, name := range models {
		m, err := payload.Lookup(name)
		if err != nil {
			return nil, err
		}
		for _, c := range codecs {
			if err := Carries(c, m); err != nil {
				return nil, err
			}
		}
		modelCounts := counts
		if len(modelCounts) == 0 {
			modelCounts = m.Counts
		}
		for _, n := range modelCounts {
			if err := checkCount(m, n, codecs); err != nil {
				return nil, err
			}
			for _, c := range codecs {
				for _, z := range compressions {
					cases = append(cases, Case{Model: name, Count: n, Codec: c, Compress: z})
				}
			}
		}
	}
	return cases, nil
}

// checkCount refuses a count the model cannot carry, or one whose
// message could encode past the bytes a body may have here in one of
// codecs, before anything is generated: hopbench codec --count
// 1000000000 grew its child to 4.1 GB in 10 s, where run and load refuse
// the same count at once.
func checkCount(m payload.Model, n int, codecs []string) error {
	if err := m.CheckCount(n); err != nil {
		return err
	}
	for _, name := range codecs {
		c, _ := codec.Lookup(name)
		if size := BodyPast(m, n, c, nil); size > 0 {
			return fmt.Errorf("%d %s of %s could encode to up to %d bytes in %s, over the %d bytes a body may have: use a smaller count", n, m.Unit, m.Name, size, name, codec.DefaultMaxBytes)
		}
	}
	return nil
}

// BodyPast is how many bytes count items of m could encode to in c,
// compressed with z (nil: none), when that is past the bytes a body may
// have (codec.DefaultMaxBytes); 0 when it is not, or cannot be bounded.
// Spec validation and hopbench codec refuse such a count before anything
// is generated.
func BodyPast(m payload.Model, count int, c codec.Codec, z codec.Compression) int64 {
	size, err := m.EncodedSize(count, c.Marshal)
	if size = codec.CompressedBound(z, size); err != nil || size <= codec.DefaultMaxBytes {
		return 0
	}
	return size
}

// Carries says whether codec c can carry model m's messages: it encodes an
// empty one (json-fast cannot carry a user's message, which has no Go
// struct).
func Carries(c string, m payload.Model) error {
	cc, err := codec.Lookup(c)
	if err != nil {
		return err
	}
	if _, err := cc.Marshal(m.New()); err != nil {
		return fmt.Errorf("codec %s cannot carry %s: %w", c, m.Name, err)
	}
	return nil
}
