package check

import (
	"encoding/xml"
	"io"
)

// JUnit XML as the Jenkins JUnit schema (junit-10.xsd, in testdata) has
// it, which GitLab's and GitHub's test reporters read too: one testsuite
// of every check, each a testcase named after the check, classed by its
// subject. A failed check carries a <failure>, an undecided one a
// <skipped>, each with the figure in its message; a passed one says its
// figure in <system-out>.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure"`
	Skipped   *junitMessage `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Type    string `xml:"type,attr,omitempty"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes checks as JUnit XML; suite names the testsuite
// ("hopbench thresholds", "hopbench compare").
func WriteJUnit(w io.Writer, suite string, checks []Check) error {
	s := junitSuite{Name: suite, Tests: len(checks), Time: "0"}
	for _, c := range checks {
		tc := junitCase{Name: c.Name, Classname: c.Subject, Time: "0"}
		msg := junitMessage{Type: c.Kind, Message: c.Summary(), Text: c.Summary()}
		switch c.Outcome {
		case Fail:
			tc.Failure = &msg
			s.Failures++
		case Undecided:
			tc.Skipped = &msg
			s.Skipped++
		default:
			tc.SystemOut = c.Summary()
		}
		s.Cases = append(s.Cases, tc)
	}
	doc := junitSuites{Name: "hopbench", Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
