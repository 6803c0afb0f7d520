package rest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/transport"
)

// framed is a feed of msgs in frames, ended by end (nil: success).
func framed(msgs [][]byte, end error) []byte {
	var b []byte
	for _, m := range msgs {
		b = appendFrame(b, flagMessage, m)
	}
	if end == nil {
		return appendFrame(b, flagEnd, nil)
	}
	return appendFrame(b, flagEnd, []byte(errorText(end)))
}

// evented is a feed of msgs as server-sent events, ended by end.
func evented(msgs [][]byte, end error) []byte {
	var b []byte
	for _, m := range msgs {
		b = appendEvent(b, "", m)
	}
	if end == nil {
		return appendEvent(b, "end", []byte(strconv.Itoa(len(msgs))))
	}
	return appendEvent(b, "error", []byte(errorText(end)))
}

// readAll reads a feed to its end: its messages and how it ended.
func readAll(r feedReader) ([][]byte, error) {
	var msgs [][]byte
	for {
		m, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return msgs, err
		}
		msgs = append(msgs, m)
	}
}

func frames(b []byte, limit int) feedReader {
	return &frameReader{r: bufio.NewReader(bytes.NewReader(b)), limit: limit}
}

func events(b []byte, limit int) feedReader {
	return &eventReader{r: bufio.NewReaderSize(bytes.NewReader(b), 16), limit: limit}
}

var sample = [][]byte{[]byte(`{"a":1}`), {}, []byte("two\nlines"), []byte(" leading space"), bytes.Repeat([]byte("x"), 100)}

func TestBothFormsCarryAFeedAndItsEnd(t *testing.T) {
	fail := transport.Errorf(transport.CodeDeadline, "stalled: on\npurpose")
	forms := []struct {
		name string
		make func([][]byte, error) []byte
		read func([]byte, int) feedReader
	}{{"frames", framed, frames}, {"events", evented, events}}
	for _, f := range forms {
		got, err := readAll(f.read(f.make(sample, nil), 1000))
		if err != nil || !equalMessages(got, sample) {
			t.Errorf("%s: read %q, %v; want %q and the end", f.name, got, err, sample)
		}
		got, err = readAll(f.read(f.make(sample[:2], fail), 1000))
		var te *transport.Error
		if !errors.As(err, &te) || te.Code != transport.CodeDeadline || te.Msg != "stalled: on\npurpose" || len(got) != 2 {
			t.Errorf("%s: a feed failing after 2 messages read as %d messages, %#v; want 2 and the deadline error as sent", f.name, len(got), err)
		}
	}
}

func equalMessages(a, b [][]byte) bool {
	return slices.EqualFunc(a, b, func(x, y []byte) bool { return bytes.Equal(x, y) })
}

// The event reader reads what the standard allows a server to send,
// beyond what this package's server writes.
func TestTheEventReaderReadsTheStandardsForms(t *testing.T) {
	stream := "\ufeff: a comment\r\n" +
		"retry: 10\rid: 7\r" + // lines ended by CR alone
		"data:no space\n\n" +
		"event: ping\ndata: ignored\n\n" + // an unknown type
		"event: end\n\n" + // no data: not dispatched, its type forgotten
		"data: a\r\ndata:\r\ndata: b\r\n\r\n" +
		"event: end\ndata: 2\n\n"
	got, err := readAll(events([]byte(stream), 100))
	want := [][]byte{[]byte("no space"), []byte("a\n\nb")}
	if err != nil || !equalMessages(got, want) {
		t.Fatalf("read %q, %v; want %q and the end", got, err, want)
	}
	got, err = readAll(events([]byte("data: x\r\revent: end\rdata: 1\r\r"), 100))
	if err != nil || len(got) != 1 {
		t.Fatalf("a stream of CR-ended lines read as %q, %v", got, err)
	}
}

func TestReadersRefuseAMessageOverTheirLimitNamingIt(t *testing.T) {
	big := [][]byte{bytes.Repeat([]byte("x"), 101)}
	cases := map[string]feedReader{
		"frame":         frames(framed(big, nil), 100),
		"end frame":     frames(appendFrame(nil, flagEnd, bytes.Repeat([]byte("y"), 101)), 100),
		"event":         events(evented(big, nil), 100),
		"event's lines": events([]byte(strings.Repeat("data: 0123456789\n", 10)+"\n"), 100),
		"line":          events([]byte(": "+strings.Repeat("z", 300)+"\n"), 100),
	}
	for name, r := range cases {
		_, err := readAll(r)
		if transport.CodeOf(err) != transport.CodeTooLarge || !strings.Contains(err.Error(), "limit of 100 bytes") {
			t.Errorf("%s over 100 bytes: %v, want too large naming the limit", name, err)
		}
	}
}

func TestReadersSayAFeedEndedWithoutItsEnd(t *testing.T) {
	whole := map[string][]byte{"frames": framed(sample, nil), "events": evented(sample, nil)}
	for name, b := range whole {
		end := bytes.LastIndex(b[:len(b)-1], []byte{'\n'}) // within the end
		if name == "frames" {
			end = len(b) - frameHeader
		}
		for _, cut := range []int{0, 3, end} {
			r := frames(b[:cut], 1000)
			if name == "events" {
				r = events(b[:cut], 1000)
			}
			_, err := readAll(r)
			if transport.CodeOf(err) != transport.CodeUnavailable || !strings.Contains(err.Error(), "without its end") {
				t.Errorf("%s cut at byte %d of %d: %v, want unavailable, ended without its end", name, cut, len(b), err)
			}
		}
	}
}

func TestReadersRefuseWhatBreaksTheirForm(t *testing.T) {
	cases := map[string]feedReader{
		"a frame flagged 0x01":               frames(appendFrame(nil, 0x01, []byte("x")), 100),
		"an end event counting 2 of 1":       events([]byte("data: x\n\nevent: end\ndata: 2\n\n"), 100),
		"an end event counting no number":    events([]byte("event: end\ndata: all\n\n"), 100),
		"an error in no code's words (kept)": events([]byte("event: error\ndata: it broke\n\n"), 100),
	}
	for name, r := range cases {
		if _, err := readAll(r); transport.CodeOf(err) != transport.CodeInternal || err == nil {
			t.Errorf("%s: %v, want an internal error", name, err)
		}
	}
}

// FuzzFrameReader: any bytes are read without panic, no message passes
// the limit, and a feed read to its end is what writing its messages
// again gives.
func FuzzFrameReader(f *testing.F) {
	f.Add(framed(sample, nil))
	f.Add(framed(sample[:1], transport.Errorf(transport.CodeTooLarge, "reply message of 9 bytes exceeds the limit of 8 bytes")))
	f.Add(framed(nil, nil))
	f.Add(appendFrame(nil, flagEnd, []byte("no code")))
	f.Add([]byte{0x00, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0x02, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		src := bytes.NewReader(b)
		br := bufio.NewReader(src)
		msgs, err := readAll(&frameReader{r: br, limit: 200})
		for _, m := range msgs {
			if len(m) > 200 {
				t.Fatalf("a message of %d bytes passed the limit of 200", len(m))
			}
		}
		if err != nil {
			return
		}
		read := len(b) - src.Len() - br.Buffered()
		if again := framed(msgs, nil); !bytes.Equal(again, b[:read]) {
			t.Fatalf("read %q as %q, which is written %q", b[:read], msgs, again)
		}
	})
}

// FuzzEventReader: any bytes are read without panic, no message passes
// the limit or holds a CR, and a feed read to its end reads the same
// once written again by this package's writer.
func FuzzEventReader(f *testing.F) {
	f.Add(evented(sample, nil))
	f.Add(evented(sample[:2], transport.Errorf(transport.CodeInternal, "boom")))
	f.Add([]byte("\ufeff: c\r\ndata: a\rdata:b\r\n\r\nevent: end\ndata: 1\n\n"))
	f.Add([]byte("event: ping\ndata: x\n\nevent: end\ndata: 0\n\n"))
	f.Add([]byte("data: x\r\revent: end\rdata: 1\r\r"))
	f.Add([]byte("data: " + strings.Repeat("x", 300) + "\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		msgs, err := readAll(&eventReader{r: bufio.NewReaderSize(bytes.NewReader(b), 16), limit: 200})
		for _, m := range msgs {
			if len(m) > 200 || bytes.IndexByte(m, '\r') >= 0 {
				t.Fatalf("a message %q passed the limit of 200 or holds a CR", m)
			}
		}
		if err != nil {
			return
		}
		again, err := readAll(events(evented(msgs, nil), 200))
		if err != nil || !equalMessages(again, msgs) {
			t.Fatalf("%q written again read as %q, %v", msgs, again, err)
		}
	})
}
