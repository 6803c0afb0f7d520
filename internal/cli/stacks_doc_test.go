package cli_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all"
)

// docs/stacks.md's table of technologies says of each registered stack
// the codecs and compressions its capabilities declare, in words: the
// page said connect was Protobuf only while it served Connect's JSON.
func TestTheStacksPageSaysWhatEachStackCarries(t *testing.T) {
	b, err := os.ReadFile("../../docs/stacks.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // technology -> its codecs column
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) == 6 && strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[3])
		}
	}
	for _, name := range transport.Names() {
		said, ok := rows[name]
		if !ok {
			t.Errorf("docs/stacks.md's table has no row for %s", name)
			continue
		}
		caps, _ := transport.CapsOf(name)
		tr, _ := transport.Lookup(name)
		if want := inWords(caps.Codecs, transport.CompressionsOf(tr)[1:]); said != want {
			t.Errorf("docs/stacks.md says %s carries %q; its capabilities say %q", name, said, want)
		}
	}
}

// inWords is how the page says a stack's codecs and compressions.
func inWords(codecs, compressions []string) string {
	names := map[string]string{"proto": "Protobuf", "json": "JSON"}
	var c string
	switch {
	case slices.Equal(codecs, codec.Names()):
		c = "every codec"
	case len(codecs) == 1:
		c = names[codecs[0]] + " only"
	default:
		words := make([]string, len(codecs))
		for i, n := range codecs {
			words[i] = names[n]
		}
		c = strings.Join(words, " and ")
	}
	switch len(compressions) {
	case 0:
		return c + ", uncompressed"
	case 1:
		return c + "; " + compressions[0] + " only"
	}
	return c + "; " + strings.Join(compressions, " or ")
}
