// Command promrules checks a Prometheus rule file (YAML with a top-level groups: list, as Prometheus loads them
// with rule_files) with Prometheus's own parser, model/rulefmt, which also parses every PromQL expression and
// checks the labels, annotations and templates of each rule. The chart test runs it on the spec of the chart's
// PrometheusRule.
//
//	promrules FILE
//	promrules < FILE
//
// It prints nothing and exits 0 when the file is valid, and prints every error and exits 1 otherwise.
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stderr))
}

func run(args []string, stdin io.Reader, stderr io.Writer) int {
	name, in := "<stdin>", stdin
	switch len(args) {
	case 0:
	case 1:
		if args[0] != "-" {
			f, err := os.Open(args[0])
			if err != nil {
				fmt.Fprintln(stderr, err)
				return 2
			}
			defer f.Close()
			name, in = args[0], f
		}
	default:
		fmt.Fprintln(stderr, "usage: promrules [FILE]  (a Prometheus rule file; stdin without FILE or with -)")
		return 2
	}
	content, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	// Strict, so that the rules load into any Prometheus that may run them: unknown fields (a misspelt expr:) are
	// errors, as Prometheus reports them; label names must be legacy names, which Prometheus 2 requires too (3
	// also accepts UTF-8 names); and PromQL without experimental functions or syntax.
	p := parser.NewParser(parser.Options{})
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	groups, errs := rulefmt.Parse(content, false, model.LegacyValidation, p, logger)
	if len(errs) > 0 {
		for _, err := range errs {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
		}
		return 1
	}
	if groups == nil || len(groups.Groups) == 0 {
		fmt.Fprintf(stderr, "%s: no rule groups\n", name)
		return 1
	}
	return 0
}
