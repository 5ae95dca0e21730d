// Command aim-engine-examples copies the AIM objects of aim-engine's documentation, samples and end-to-end tests
// into test/integration/testdata/aim-engine-examples, where TestAimEngineExamples creates each one against
// aim-apiserver. Users apply these manifests as the docs give them, and the tests' are the ones aim-engine itself
// checks, so they are the manifests most likely to meet aim-apiserver unchanged.
//
//	go run ./hack/aim-engine-examples <aim-engine work tree> <commit>
//
// It reads the code blocks (```yaml, ```yml and unlabelled ones) of docs/docs/**/*.md and README.md,
// config/samples/*.yaml, and the files its chainsaw end-to-end tests apply (tests/e2e/**/*.yaml but
// chainsaw-test.yaml), and keeps the YAML documents of apiVersion aim.eai.amd.com/v1alpha1. Each file it writes
// holds the objects of one source file, or of one chainsaw test, every document headed by a comment naming the
// source and line.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

const out = "test/integration/testdata/aim-engine-examples"

var (
	// separator splits a block into YAML documents.
	separator = regexp.MustCompile(`(?m)^---\s*$`)
	aimObject = regexp.MustCompile(`(?m)^apiVersion:\s*aim\.eai\.amd\.com/v1alpha1\s*$`)
)

// example is one AIM object of a source file, at the line its document starts on.
type example struct {
	line int
	text string
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: aim-engine-examples <aim-engine work tree> <commit>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "aim-engine-examples:", err)
		os.Exit(1)
	}
}

func run(tree, commit string) error {
	sources, err := sourceFiles(tree)
	if err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	// One file for each source file, and one for all the files of a chainsaw test (a directory of tests/e2e).
	outputs := map[string]*strings.Builder{}
	var names []string
	total := 0
	for _, src := range sources {
		data, err := os.ReadFile(filepath.Join(tree, src))
		if err != nil {
			return err
		}
		examples := extract(string(data), strings.HasSuffix(src, ".md"))
		if len(examples) == 0 {
			continue
		}
		from := src
		if strings.HasPrefix(src, "tests/e2e/") {
			from = filepath.ToSlash(filepath.Dir(src))
		}
		b, ok := outputs[from]
		if !ok {
			b = &strings.Builder{}
			fmt.Fprintf(b, "# From aim-engine %s at %s, by hack/aim-engine-examples; do not edit.\n", from, commit)
			outputs[from] = b
			names = append(names, from)
		} else {
			b.WriteString("---\n")
		}
		for i, e := range examples {
			if i > 0 {
				b.WriteString("---\n")
			}
			fmt.Fprintf(b, "# %s:%d\n%s\n", src, e.line, e.text)
		}
		total += len(examples)
	}
	for _, from := range names {
		name := strings.NewReplacer("/", "_").Replace(strings.TrimSuffix(strings.TrimSuffix(from, ".md"), ".yaml")) + ".yaml"
		if err := os.WriteFile(filepath.Join(out, name), []byte(outputs[from].String()), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("%d objects from %d files\n", total, len(sources))
	return nil
}

// sourceFiles lists the documentation, the samples and the end-to-end tests' objects, relative to the tree, in a
// stable order.
func sourceFiles(tree string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(tree, "docs", "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(tree, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	// The objects chainsaw's end-to-end tests apply; their assertions are in chainsaw-test.yaml.
	err = filepath.WalkDir(filepath.Join(tree, "tests", "e2e"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") && d.Name() != "chainsaw-test.yaml" {
			rel, _ := filepath.Rel(tree, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	samples, err := filepath.Glob(filepath.Join(tree, "config", "samples", "aim_*.yaml"))
	if err != nil {
		return nil, err
	}
	for _, s := range samples {
		rel, _ := filepath.Rel(tree, s)
		files = append(files, filepath.ToSlash(rel))
	}
	slices.Sort(files)
	return files, nil
}

// extract returns the AIM objects of a Markdown file's code blocks, or of a YAML file.
func extract(text string, markdown bool) []example {
	var examples []example
	add := func(block string, line int) {
		for _, doc := range splitDocs(block, line) {
			if aimObject.MatchString(doc.text) {
				examples = append(examples, doc)
			}
		}
	}
	if !markdown {
		add(text, 1)
		return examples
	}
	for _, b := range codeBlocks(text) {
		add(b.text, b.line)
	}
	return examples
}

// codeBlocks returns the code blocks of a Markdown text that are YAML or of no language, each with the line its
// text starts on. A fence may be indented (in a list); its indentation is taken off the block's lines.
func codeBlocks(text string) []example {
	var blocks []example
	var lines []string
	open, keep, indent, start := false, false, 0, 0
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(trimmed, "```") {
			if open {
				lines = append(lines, line[min(indent, len(line)-len(trimmed)):])
			}
			continue
		}
		if open {
			if keep {
				blocks = append(blocks, example{line: start, text: strings.Join(lines, "\n")})
			}
			open = false
			continue
		}
		lang := strings.TrimSpace(trimmed[3:])
		open, keep, indent, start, lines = true, lang == "" || lang == "yaml" || lang == "yml", len(line)-len(trimmed), i+2, nil
	}
	return blocks
}

// splitDocs splits a block starting at line into its documents, trimmed, each with the line it starts on.
func splitDocs(block string, line int) []example {
	var docs []example
	start := 0
	for _, m := range append(separator.FindAllStringIndex(block, -1), []int{len(block), len(block)}) {
		doc := block[start:m[0]]
		first := line + strings.Count(block[:start], "\n") + strings.Count(doc, "\n") - strings.Count(strings.TrimLeft(doc, "\n"), "\n")
		if t := strings.TrimSpace(doc); t != "" {
			docs = append(docs, example{line: first, text: t})
		}
		start = m[1]
	}
	return docs
}
