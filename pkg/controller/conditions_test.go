package controller_test

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docs/conditions.md pins, kind by kind, every condition type, component name (a component's condition is
// <Name>Ready, in both) and reason the controllers write to aim-engine's, and lists every one of aim-engine's,
// with the line of its source at the pinned commit. A row of its tables is one of
//
//	| `X` | `X` |  | source |          we write aim-engine's X;
//	| `X` |  | [doc](compatibility.md#s) |  |    a string aim-engine does not have;
//	| `X` | `Y` | [doc](compatibility.md#s) | source |    we write X where aim-engine writes Y;
//	|  | `Y` | [doc](compatibility.md#s) | source |    aim-engine's Y, which we never write: a difference;
//	|  | `Y` | why | source |    aim-engine's Y, which we never write, and why it is no difference.
//
// doc is the first cell of the docs/compatibility.md row that says how and why we differ, s the section that
// holds it. TestConditionsDocRows checks the rows' form; TestEveryConditionConstantIsPinned that every constant
// is a row's and every row's string a constant; TestConditionStringsAreConstants keeps string literals out of
// conditions. TestAimEngineStringsListed checks the tables against aim-engine's source (testdata, or
// AIM_ENGINE_SRC); moving the pin to a newer aim-engine means running it against the new checkout and updating
// the rows and links.

const (
	conditionsDoc    = "../../docs/conditions.md"
	compatibilityDoc = "../../docs/compatibility.md"
	// aimEngineBlob prefixes the links to aim-engine's source at the pinned commit.
	aimEngineBlob = "https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/"
)

// row is a row of a table of docs/conditions.md.
type row struct {
	ours, ae string
	// doc and anchor are the link of a Difference cell to docs/compatibility.md, why its text otherwise.
	doc, anchor, why string
	// source is the path in aim-engine the row links to, "" without a link.
	source string
	// at is where the row is in docs/conditions.md, for errors.
	at string
}

// table is a kind's rows: the rows under a "## " heading of docs/conditions.md.
type table struct {
	kind string
	rows []row
}

var (
	codeCell   = regexp.MustCompile("^(?:`([A-Za-z][A-Za-z0-9]*)`)?$")
	docCell    = regexp.MustCompile(`^\[([^\]]+)\]\(compatibility\.md#([a-z0-9-]+)\)$`)
	sourceCell = regexp.MustCompile(`^(?:\[([^\]:]+):(\d+)\]\(` + regexp.QuoteMeta(aimEngineBlob) + `(\S+)#L(\d+)\))?$`)
)

// conditionTables reads the tables of docs/conditions.md.
func conditionTables(t *testing.T) []table {
	t.Helper()
	data, err := os.ReadFile(conditionsDoc)
	if err != nil {
		t.Fatal(err)
	}
	var tables []table
	for n, line := range strings.Split(string(data), "\n") {
		at := fmt.Sprintf("docs/conditions.md:%d", n+1)
		switch {
		case strings.HasPrefix(line, "## "):
			tables = append(tables, table{kind: strings.TrimPrefix(line, "## ")})
		case !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| aim-apiserver |"):
		case len(tables) == 0:
			t.Fatalf("%s: a row before the first kind", at)
		default:
			tables[len(tables)-1].rows = append(tables[len(tables)-1].rows, parseRow(t, at, line))
		}
	}
	if len(tables) < 10 {
		t.Fatalf("docs/conditions.md has %d kinds: it is truncated", len(tables))
	}
	return tables
}

// parseRow reads "| ours | aim-engine | Difference | aim-engine's source |".
func parseRow(t *testing.T, at, line string) row {
	cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
	if len(cells) != 4 {
		t.Fatalf("%s: %d cells, want 4", at, len(cells))
	}
	ours, ae, note, source := codeCell.FindStringSubmatch(cells[0]), codeCell.FindStringSubmatch(cells[1]),
		strings.TrimSpace(cells[2]), sourceCell.FindStringSubmatch(strings.TrimSpace(cells[3]))
	if ours == nil || ae == nil || source == nil {
		t.Fatalf("%s: want a string in backquotes (or nothing) in the first two cells and a link to aim-engine's "+
			"source at the pinned commit (or nothing) in the last: %s", at, line)
	}
	r := row{ours: ours[1], ae: ae[1], source: source[3], at: at}
	if text, target := source[1]+":"+source[2], path.Base(source[3])+":"+source[4]; r.source != "" && text != target {
		t.Errorf("%s: the link's text says %s, its target is %s", at, text, target)
	}
	if m := docCell.FindStringSubmatch(note); m != nil {
		r.doc, r.anchor = m[1], m[2]
	} else {
		r.why = note
	}
	return r
}

func (r row) String() string {
	return r.at + ": ours " + strconv.Quote(r.ours) + ", aim-engine's " + strconv.Quote(r.ae)
}

// TestConditionsDocRows: our strings are aim-engine's, except where a row of docs/compatibility.md says
// otherwise; every string of aim-engine's that we never write says why; every string of aim-engine's links
// the line of its source.
func TestConditionsDocRows(t *testing.T) {
	sections := compatibilityRows(t)
	for _, tb := range conditionTables(t) {
		for _, r := range tb.rows {
			switch {
			case r.ours == "" && r.ae == "":
				t.Errorf("%v: a row without strings", r)
			case r.ours != "" && r.why != "":
				t.Errorf("%v: a difference of a string we write needs its row of docs/compatibility.md, not a text", r)
			case r.ours == "" && r.doc == "" && r.why == "":
				t.Errorf("%v: say why we never write aim-engine's string", r)
			case r.ours != "" && r.doc == "" && r.ours != r.ae:
				t.Errorf("%v: our string differs from aim-engine's; a difference needs its row in docs/compatibility.md", r)
			case r.ours != "" && r.doc != "" && r.ours == r.ae:
				t.Errorf("%v: the strings are equal; leave the Difference empty", r)
			}
			if r.doc != "" && sections[r.doc] != r.anchor {
				t.Errorf("%v: %q is the first cell of no row of docs/compatibility.md#%s", r, r.doc, r.anchor)
			}
			if (r.ae != "") != (r.source != "") {
				t.Errorf("%v: a string of aim-engine's, and only that, links the line of aim-engine's source that shows it", r)
			}
		}
	}
}

// compatibilityRows maps the first cells of the table rows of docs/compatibility.md to the anchor of the
// section that holds them.
func compatibilityRows(t *testing.T) map[string]string {
	f, err := os.Open(compatibilityDoc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, section := map[string]string{}, ""
	for s := bufio.NewScanner(f); s.Scan(); {
		if heading, ok := strings.CutPrefix(strings.TrimLeft(s.Text(), "#"), " "); ok && strings.HasPrefix(s.Text(), "##") {
			section = anchorOf(heading)
		} else if rest, ok := strings.CutPrefix(s.Text(), "| "); ok {
			if cell, _, ok := strings.Cut(rest, " | "); ok {
				rows[cell] = section
			}
		}
	}
	return rows
}

// anchorPunctuation is what GitHub drops from a heading to make its anchor.
var anchorPunctuation = regexp.MustCompile(`[^a-z0-9 -]`)

// anchorOf is the anchor GitHub gives a heading: lower case, punctuation dropped, spaces as dashes.
func anchorOf(heading string) string {
	return strings.ReplaceAll(anchorPunctuation.ReplaceAllString(strings.ToLower(heading), ""), " ", "-")
}

// notConditionStrings are constants named like condition types, components or reasons whose values no
// condition carries, and what they are.
var notConditionStrings = map[string]string{
	"artifact.ComponentCheckSize":           "the component label of check-size Jobs",
	"artifact.ComponentDownload":            "the component label of download Jobs",
	"discovery.ComponentValue":              "the component label of discovery Jobs",
	"reconcile.ReasonStaleChildDeleted":     "the reason of an Event",
	"health.ReasonFailedCreate":             "the reason of a ReplicaSet's or Job's Event whose message a NoPods condition quotes",
	"modelsource.ReasonInvalidFilter":       "an error's reason: FiltersReady has FiltersOutcome's reason, the error sets a parent condition",
	"modelsource.ReasonInvalidRegistry":     "an error's reason: FiltersReady has FiltersOutcome's reason, the error sets a parent condition",
	"modelsource.ReasonCatalogNotSupported": "an error's reason: FiltersReady has FiltersOutcome's reason, the error sets a parent condition",
}

// TestEveryConditionConstantIsPinned: every string constant under pkg/controller named Reason..., Condition...
// or Component... is the ours of a row of docs/conditions.md, or listed in notConditionStrings; and every ours
// of a row is the value of such a constant.
func TestEveryConditionConstantIsPinned(t *testing.T) {
	tables := conditionTables(t)
	pinned := map[string]bool{}
	for _, tb := range tables {
		for _, r := range tb.rows {
			pinned[r.ours] = true
		}
	}
	named := regexp.MustCompile(`^(?:[Rr]eason|[Cc]ondition|[Cc]omponent)(?:[A-Z]|$)`)
	used, constants := map[string]bool{}, map[string]bool{}
	fset, files := controllerFiles(t)
	for _, f := range files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					lit, ok := valueAt(vs, i).(*ast.BasicLit)
					if !named.MatchString(id.Name) || !ok || lit.Kind != token.STRING {
						continue
					}
					name, value := f.Name.Name+"."+id.Name, constant.StringVal(constant.MakeFromLiteral(lit.Value, lit.Kind, 0))
					if _, ok := notConditionStrings[name]; ok {
						used[name] = true
						if pinned[value] {
							t.Errorf("%s = %q is pinned: remove it from notConditionStrings", name, value)
						}
						continue
					}
					constants[value] = true
					if !pinned[value] {
						t.Errorf("%s: %s = %q is in no table of docs/conditions.md", fset.Position(id.Pos()), name, value)
					}
				}
			}
		}
	}
	for name := range notConditionStrings {
		if !used[name] {
			t.Errorf("notConditionStrings lists %s, which is no constant", name)
		}
	}
	for _, tb := range tables {
		for _, r := range tb.rows {
			if r.ours != "" && !constants[r.ours] {
				t.Errorf("%v: no constant under pkg/controller has our string", r)
			}
		}
	}
}

func valueAt(vs *ast.ValueSpec, i int) ast.Expr {
	if i < len(vs.Values) {
		return vs.Values[i]
	}
	return nil
}

// aimEngineKinds maps aim-engine's files to the kinds of docs/conditions.md whose tables list their strings; any
// other file's strings (the shared state engine, health checks and constants) may be in any table.
var aimEngineKinds = []struct {
	prefixes []string
	kinds    []string
}{
	{[]string{"api/v1alpha1/aimservice_types.go", "internal/aimservice/"}, []string{"AIMService", "AIMService status.templateMatching"}},
	{[]string{"api/v1alpha1/aimmodel_shared.go", "internal/aimmodel/"}, []string{"AIMModel, AIMClusterModel"}},
	{[]string{"api/v1alpha1/aimservicetemplate_shared.go", "internal/aimservicetemplate/"}, []string{"AIMServiceTemplate, AIMClusterServiceTemplate"}},
	{[]string{"api/v1alpha1/aimtemplatecache_types.go", "internal/aimtemplatecache/"}, []string{"AIMTemplateCache"}},
	{[]string{"api/v1alpha1/aimartifact_types.go", "internal/aimartifact/"}, []string{"AIMArtifact"}},
	{[]string{"api/v1alpha1/aimclustermodelsource_types.go", "internal/aimclustermodelsource/"}, []string{"AIMClusterModelSource"}},
}

// sharedKinds are the kinds of docs/conditions.md whose strings every kind writes.
var sharedKinds = []string{"Every kind", "Jobs and pods"}

// TestAimEngineStringsListed reads aim-engine's source (AIM_ENGINE_SRC, a checkout at the pinned commit) for
// what its controllers write as condition types, component names and reasons, and checks that every one is
// in a row of its kind's table of docs/conditions.md (or of sharedKinds'), and that every row's string is in
// its source.
func TestAimEngineStringsListed(t *testing.T) {
	found := aimEngineStringsFound(t)
	tables := conditionTables(t)
	all := map[string]bool{}
	for _, f := range found {
		all[f.value] = true
		kinds := []string{}
		for _, k := range aimEngineKinds {
			if slices.ContainsFunc(k.prefixes, func(p string) bool { return strings.HasPrefix(f.path, p) }) {
				kinds = append(slices.Clone(k.kinds), sharedKinds...)
			}
		}
		if !slices.ContainsFunc(tables, func(tb table) bool {
			return (len(kinds) == 0 || slices.Contains(kinds, tb.kind)) &&
				slices.ContainsFunc(tb.rows, func(r row) bool { return r.ae == f.value })
		}) {
			where := "docs/conditions.md"
			if len(kinds) > 0 {
				where += " under " + strings.Join(kinds, "; ")
			}
			t.Errorf("aim-engine's %q (%s:%d) is in no row of %s", f.value, f.path, f.line, where)
		}
	}
	for _, tb := range tables {
		for _, r := range tb.rows {
			if r.ae != "" && !all[r.ae] {
				t.Errorf("%v: aim-engine's string is not in its source", r)
			}
		}
	}
	named := slices.Clone(sharedKinds)
	for _, k := range aimEngineKinds {
		named = append(named, k.kinds...)
	}
	for _, k := range named {
		if !slices.ContainsFunc(tables, func(tb table) bool { return tb.kind == k }) {
			t.Errorf("docs/conditions.md has no section %q", k)
		}
	}
}

// updateAimEngineStrings rewrites testdata/aim-engine-strings.txt from the checkout AIM_ENGINE_SRC names.
var updateAimEngineStrings = flag.Bool("update-aim-engine-strings", false, "rewrite "+aimEngineStringsFile+" from AIM_ENGINE_SRC")

// aimEngineStringsFile holds what aimEngineStrings finds in aim-engine's source at the pinned commit, one
// "path:line value" a line, so that the test runs without a checkout. To refresh it after moving the pin:
// git -C <aim-engine> archive <commit> api internal | tar -x -C <dir>, then
// AIM_ENGINE_SRC=<dir> go test ./pkg/controller -run TestAimEngineStringsListed -update-aim-engine-strings.
const aimEngineStringsFile = "testdata/aim-engine-strings.txt"

// aimEngineStringsFound are the strings of aim-engine's source: read from AIM_ENGINE_SRC when it is set (and
// written to aimEngineStringsFile with -update-aim-engine-strings), else from that file.
func aimEngineStringsFound(t *testing.T) []aimEngineString {
	if root := os.Getenv("AIM_ENGINE_SRC"); root != "" {
		found := aimEngineStrings(t, root)
		if *updateAimEngineStrings {
			var b strings.Builder
			for _, f := range found {
				fmt.Fprintf(&b, "%s:%d %s\n", f.path, f.line, f.value)
			}
			if err := os.WriteFile(aimEngineStringsFile, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return found
	}
	data, err := os.ReadFile(aimEngineStringsFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []aimEngineString
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		loc, value, ok := strings.Cut(l, " ")
		path, line, ok2 := strings.Cut(loc, ":")
		n, err := strconv.Atoi(line)
		if !ok || !ok2 || err != nil {
			t.Fatalf("%s: bad line %q", aimEngineStringsFile, l)
		}
		out = append(out, aimEngineString{value: value, path: path, line: n})
	}
	if len(out) < 100 {
		t.Fatalf("%s lists %d strings: it is truncated", aimEngineStringsFile, len(out))
	}
	return out
}

type aimEngineString struct {
	value, path string
	line        int
}

var (
	reasonLike  = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	namedString = regexp.MustCompile(`Reason|Condition|Component`)
)

// aimEngineStrings finds, in aim-engine's api/ and internal/ (tests aside), the strings written as condition
// types, component names or reasons: constants named ...Reason..., ...Condition..., ...Component...; Reason and
// Component fields; variables named ...reason and lists named ...Reasons; the reasons of New...Error and of
// the condition manager's Set and Mark...; the component names of To...ComponentHealth...; arguments to
// parameters named ...reason; what functions named ...Reason... return.
func aimEngineStrings(t *testing.T, root string) []aimEngineString {
	var out []aimEngineString
	fset := token.NewFileSet()
	for _, dir := range []string{"api", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
				strings.Contains(path, "testutil") || strings.Contains(path, "zz_generated") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			out = append(out, stringsOfFile(fset, f, filepath.ToSlash(rel))...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func stringsOfFile(fset *token.FileSet, f *ast.File, path string) []aimEngineString {
	var out []aimEngineString
	add := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if v, err := strconv.Unquote(lit.Value); err == nil && reasonLike.MatchString(v) {
				out = append(out, aimEngineString{v, path, fset.Position(lit.Pos()).Line})
			}
		}
	}
	params := map[string][][]string{}
	collectParams(f, "", params)
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if cl, ok := valueAt(n, i).(*ast.CompositeLit); ok && strings.HasSuffix(id.Name, "Reasons") {
					for _, e := range cl.Elts {
						add(e)
					}
				} else if namedString.MatchString(id.Name) && !strings.Contains(id.Name, "Message") {
					add(valueAt(n, i))
				}
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && (reasonName.MatchString(k.Name) || k.Name == "Component") {
				add(n.Value)
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if i >= len(n.Rhs) {
					break
				}
				switch l := l.(type) {
				case *ast.Ident:
					if reasonName.MatchString(l.Name) {
						add(n.Rhs[i])
					}
				case *ast.SelectorExpr:
					if l.Sel.Name == "Reason" || l.Sel.Name == "Component" {
						add(n.Rhs[i])
					}
				}
			}
		case *ast.FuncDecl:
			if strings.Contains(n.Name.Name, "Reason") && n.Body != nil {
				ast.Inspect(n.Body, func(m ast.Node) bool {
					if r, ok := m.(*ast.ReturnStmt); ok {
						for _, e := range r.Results {
							add(e)
						}
					}
					return true
				})
			}
		case *ast.CallExpr:
			_, name := callee(n.Fun, "", nil)
			switch {
			case strings.HasPrefix(name, "New") && strings.HasSuffix(name, "Error") && len(n.Args) > 0:
				add(n.Args[0])
			case name == "Set" && len(n.Args) >= 3:
				add(n.Args[0])
				add(n.Args[2])
			case strings.HasPrefix(name, "Mark") && len(n.Args) >= 2:
				add(n.Args[0])
				add(n.Args[1])
			case strings.HasPrefix(name, "To") && strings.Contains(name, "ComponentHealth"):
				for _, a := range n.Args {
					add(a)
				}
			default:
				for _, ps := range params[name] {
					for i, p := range ps {
						if i < len(n.Args) && reasonName.MatchString(p) {
							add(n.Args[i])
						}
					}
				}
			}
		}
		return true
	})
	return out
}
