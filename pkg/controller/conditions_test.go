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
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/artifact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gpu"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/health"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/imagemeta"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/model"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/modelsource"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/service"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/specvalid"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/template"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/templatecache"
)

// The tables of this file pin, kind by kind, every condition type, component name (a component's condition is
// <Name>Ready, in both) and reason the controllers write to aim-engine's, and list every one of aim-engine's,
// copied from its source at commit 9223504d74b01fec2e99d250933ea2884aef3b87 (the link after a row points at
// the line). A row is
//
//	same(ours, "X")           our constant writes aim-engine's X;
//	ours(ours, doc)           a string aim-engine does not have;
//	differs(ours, "X", doc)   we write ours where aim-engine writes X;
//	neverAs("X", doc)         aim-engine's X, which we never write: a difference;
//	never("X", why)           aim-engine's X, which we never write, and why it is no difference;
//
// doc is the first cell of the docs/compatibility.md row that says how and why we differ. Renaming a constant
// fails TestConditionStringsMatchAimEngine; a new constant must get a row (TestEveryConditionConstantIsPinned),
// and TestConditionStringsAreConstants keeps string literals out of conditions. TestAimEngineStringsListed
// checks the tables against aim-engine's source when AIM_ENGINE_SRC names a checkout of it at that commit; moving
// the pin to a newer aim-engine means running it against the new checkout and updating the rows and links.

// The first cells of the docs/compatibility.md rows the tables name.
const (
	docErrors               = "Reasons of errors without a reason of their own"
	docCopied               = "Reasons copied from other objects"
	docServiceRuntimeConfig = "AIMService `RuntimeConfigReady`"
	docResolve              = "Resolving a service's model and template"
	docNoCRDs               = "Cluster without KServe or the Gateway API"
	docTaken                = "A child's name taken by another object"
	docTemplate             = "Template `ModelReady`, `GPUReady`, `DiscoveryJobReady`"
	docCacheTemplate        = "Template cache `ServiceTemplateReady`"
	docArtifactSize         = "Artifact check-size output and volume size"
	docImage                = "Image metadata of a model"
	docRegistry             = "Registry errors of image metadata"
	docDefaultTemplate      = "`defaultServiceTemplate`"
	docSelection            = "Template selection"
	docGPUCapacity          = "GPU capacity of a template"
	docDiscoveryOutput      = "Unparsable discovery output"
	docAccount              = "Artifact `ServiceAccountReady`"
	docRuntimeConfigs       = "Runtime configs"
)

// row pins one string; see the top of the file.
type row struct{ ours, ae, doc, why string }

// table is a kind's rows.
type table struct {
	kind string
	rows []row
}

func same(ours, ae string) row      { return row{ours: ours, ae: ae} }
func ours(c, doc string) row        { return row{ours: c, doc: doc} }
func differs(c, ae, doc string) row { return row{ours: c, ae: ae, doc: doc} }
func neverAs(ae, doc string) row    { return row{ae: ae, doc: doc} }
func never(ae, why string) row      { return row{ae: ae, why: why} }

func (r row) String() string {
	return "ours " + strconv.Quote(r.ours) + ", aim-engine's " + strconv.Quote(r.ae)
}

func allTables() []table {
	return []table{commonTable, jobsTable, serviceTable, candidateTable, modelTable, templateTable, templateCacheTable,
		artifactTable, modelSourceTable, runtimeConfigTable}
}

// TestConditionStringsMatchAimEngine: our constants are aim-engine's strings, except where a row of
// docs/compatibility.md says otherwise, and every string of aim-engine's that we never write says why.
func TestConditionStringsMatchAimEngine(t *testing.T) {
	docRows := compatibilityRows(t)
	for _, tb := range allTables() {
		for _, r := range tb.rows {
			switch {
			case r.ours == "" && r.ae == "":
				t.Errorf("%s: a row without strings", tb.kind)
			case r.ours != "" && r.why != "":
				t.Errorf("%s: %v: why is for aim-engine's strings we never write", tb.kind, r)
			case r.ours == "" && r.doc == "" && r.why == "":
				t.Errorf("%s: aim-engine's %q: say why we never write it", tb.kind, r.ae)
			case r.ours != "" && r.doc == "" && r.ours != r.ae:
				t.Errorf("%s: %v: our string differs from aim-engine's; a difference needs its row in docs/compatibility.md",
					tb.kind, r)
			case r.ours != "" && r.doc != "" && r.ours == r.ae:
				t.Errorf("%s: %v: the strings are equal; make it same()", tb.kind, r)
			}
			if r.doc != "" && !docRows[r.doc] {
				t.Errorf("%s: %v: %q is the first cell of no row of docs/compatibility.md", tb.kind, r, r.doc)
			}
		}
	}
}

// compatibilityRows are the first cells of the table rows of docs/compatibility.md.
func compatibilityRows(t *testing.T) map[string]bool {
	f, err := os.Open(filepath.Join("..", "..", "docs", "compatibility.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]bool{}
	for s := bufio.NewScanner(f); s.Scan(); {
		if rest, ok := strings.CutPrefix(s.Text(), "| "); ok {
			if cell, _, ok := strings.Cut(rest, " | "); ok {
				rows[cell] = true
			}
		}
	}
	return rows
}

// notConditionStrings are constants named like condition types, components or reasons whose values no
// condition carries, and what they are.
var notConditionStrings = map[string]string{
	"artifact.ComponentCheckSize":           "the component label of check-size Jobs",
	"artifact.ComponentDownload":            "the component label of download Jobs",
	"discovery.ComponentValue":              "the component label of discovery Jobs",
	"reconcile.ReasonStaleChildDeleted":     "the reason of an Event",
	"template.ReasonDiscoveryPodNotFound":   "an error's reason: an output that cannot be read is DiscoveryOutputInvalid",
	"modelsource.ReasonInvalidFilter":       "an error's reason: FiltersReady has FiltersOutcome's reason, the error sets a parent condition",
	"modelsource.ReasonInvalidRegistry":     "an error's reason: FiltersReady has FiltersOutcome's reason, the error sets a parent condition",
	"modelsource.ReasonCatalogNotSupported": "an error's reason: FiltersReady has FiltersOutcome's reason, the error sets a parent condition",
}

// TestEveryConditionConstantIsPinned: every string constant under pkg/controller named Reason..., Condition...
// or Component... is the ours of a row, or listed in notConditionStrings.
func TestEveryConditionConstantIsPinned(t *testing.T) {
	pinned := map[string]bool{}
	for _, tb := range allTables() {
		for _, r := range tb.rows {
			pinned[r.ours] = true
		}
	}
	named := regexp.MustCompile(`^(?:[Rr]eason|[Cc]ondition|[Cc]omponent)(?:[A-Z]|$)`)
	used := map[string]bool{}
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
					} else if !pinned[value] {
						t.Errorf("%s: %s = %q is in no table of conditions_test.go", fset.Position(id.Pos()), name, value)
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
}

func valueAt(vs *ast.ValueSpec, i int) ast.Expr {
	if i < len(vs.Values) {
		return vs.Values[i]
	}
	return nil
}

// aimEngineKinds maps aim-engine's files to the tables that list their strings; any other file's strings
// (the shared state engine, health checks and constants) may be in any table.
var aimEngineKinds = []struct {
	prefixes []string
	tables   []table
}{
	{[]string{"api/v1alpha1/aimservice_types.go", "internal/aimservice/"}, []table{serviceTable, candidateTable}},
	{[]string{"api/v1alpha1/aimmodel_shared.go", "internal/aimmodel/"}, []table{modelTable}},
	{[]string{"api/v1alpha1/aimservicetemplate_shared.go", "internal/aimservicetemplate/"}, []table{templateTable}},
	{[]string{"api/v1alpha1/aimtemplatecache_types.go", "internal/aimtemplatecache/"}, []table{templateCacheTable}},
	{[]string{"api/v1alpha1/aimartifact_types.go", "internal/aimartifact/"}, []table{artifactTable}},
	{[]string{"api/v1alpha1/aimclustermodelsource_types.go", "internal/aimclustermodelsource/"}, []table{modelSourceTable}},
}

// TestAimEngineStringsListed reads aim-engine's source (AIM_ENGINE_SRC, a checkout at the pinned commit) for
// what its controllers write as condition types, component names and reasons, and checks that every one is
// in a row of its kind's table (or commonTable, jobsTable), and that every row's string is in its source.
func TestAimEngineStringsListed(t *testing.T) {
	found := aimEngineStringsFound(t)
	all := map[string]bool{}
	for _, f := range found {
		all[f.value] = true
		tables := allTables()
		for _, k := range aimEngineKinds {
			if slices.ContainsFunc(k.prefixes, func(p string) bool { return strings.HasPrefix(f.path, p) }) {
				tables = append(slices.Clone(k.tables), commonTable, jobsTable)
			}
		}
		if !slices.ContainsFunc(tables, func(tb table) bool {
			return slices.ContainsFunc(tb.rows, func(r row) bool { return r.ae == f.value })
		}) {
			t.Errorf("aim-engine's %q (%s:%d) is in no row of %s", f.value, f.path, f.line, tables[0].kind)
		}
	}
	for _, tb := range allTables() {
		for _, r := range tb.rows {
			if r.ae != "" && !all[r.ae] {
				t.Errorf("%s: aim-engine's %q is not in its source", tb.kind, r.ae)
			}
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

// commonTable: the conditions every kind has (state.Derive), the reasons of components without their own, and
// RuntimeConfigReady (runtimeconfig.Component), which every kind but model sources and runtime configs has.
var commonTable = table{"every kind", []row{
	// Condition types, and the suffix of a component's condition (<Name>Ready).
	same(state.ConditionReady, "Ready"),                                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L57
	same(state.ConditionConfigValid, "ConfigValid"),                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L56
	same(state.ConditionAuthValid, "AuthValid"),                         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L55
	same(state.ConditionDependenciesReachable, "DependenciesReachable"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L54
	same(state.ComponentSuffix, "Ready"),                                // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L60
	// Reasons of the parent conditions and of Ready.
	same(state.ReasonConfigurationValid, "ConfigurationValid"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L77
	same(state.ReasonInvalidSpec, "InvalidSpec"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L75
	same(specvalid.Reason, "InvalidSpec"),                        // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L75
	same(state.ReasonReferenceNotFound, "ReferenceNotFound"),     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L76
	same(state.ReasonAuthenticationValid, "AuthenticationValid"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L70
	same(state.ReasonAuthError, "AuthError"),                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L69
	same(state.ReasonReachable, "Reachable"),                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L63
	same(state.ReasonInfrastructureError, "InfrastructureError"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L64
	same(state.ReasonAllComponentsReady, "AllComponentsReady"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L83
	same(state.ReasonProgressing, "Progressing"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L85
	never("ComponentsNotReady", "declared, never set: Ready=False takes the worst component's reason, InfrastructureError or Progressing, in both"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/reconciler.go#L84
	// Reasons of a component that names none: Ready, or its first error's (an upstream's NotFound is ReferenceNotFound,
	// fetch.go:169; a downstream's is ResourceNotReady).
	same(state.ReasonReady, "Ready"),                       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health.go#L118
	same(state.ReasonResourceNotReady, "ResourceNotReady"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/fetch.go#L205
	ours(state.ReasonResourceExhausted, docErrors),
	ours(state.ReasonUnknown, docCopied),
	neverAs("NotFound", docErrors),           // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L251
	neverAs("Unauthorized", docErrors),       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L258
	neverAs("Forbidden", docErrors),          // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L265
	neverAs("AlreadyExists", docErrors),      // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L279
	neverAs("Conflict", docErrors),           // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L287
	neverAs("Timeout", docErrors),            // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L294
	neverAs("ServiceUnavailable", docErrors), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L301
	neverAs("RateLimited", docErrors),        // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L308
	neverAs("ServerError", docErrors),        // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L317
	neverAs("ClientError", docErrors),        // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L324
	neverAs("ConnectionRefused", docErrors),  // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L335
	neverAs("NetworkTimeout", docErrors),     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L343
	neverAs("ConnectionReset", docErrors),    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L351
	neverAs("DNSFailure", docErrors),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L361
	neverAs("NetworkError", docErrors),       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L371
	neverAs("UnknownError", docErrors),       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/errors.go#L382
	// RuntimeConfigReady.
	same(runtimeconfig.ComponentName, "RuntimeConfig"),                       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimmodel/reconcile.go#L92
	same(runtimeconfig.ReasonConfigFound, "ConfigFound"),                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimruntimeconfig/observe.go#L176
	same(runtimeconfig.ReasonDefaultConfigNotFound, "DefaultConfigNotFound"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimruntimeconfig/observe.go#L182
	same(runtimeconfig.ReasonConfigNotFound, "ConfigNotFound"),               // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimruntimeconfig/observe.go#L86
	// Constants of aim-engine's internal/constants that no controller of its uses.
	never("NotReady", "declared, never set"),                                                           // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L95
	never("Creating", "declared, never set (ours is ServiceAccountReady's, in artifactTable)"),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L96
	never("Resolved", "declared, never set (AIMService's Resolved is serviceTable's)"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L97
	never("PVCProvisioning", "declared, never set"),                                                    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L100
	never("PVCBound", "declared, never set"),                                                           // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L101
	never("PVCNotBound", "declared, never set"),                                                        // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L102
	never("PVCPending", "declared, never set: a pending volume is PvcPending in both (artifactTable)"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L103
	never("PVCLost", "declared, never set: a lost volume is PvcLost in both (artifactTable)"),          // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L104
	never("RetryBackoff", "declared, never set"),                                                       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L107
	never("Failed", "declared, never set"),                                                             // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L108
}}

// jobsTable: health's reasons of a Job and of its pods (artifacts' check-size and download Jobs, templates'
// discovery pods) and of image pulls (every pod, a service's predictor pods too).
var jobsTable = table{"Jobs and pods", []row{
	// A Job.
	same(health.ReasonResourceNotReady, "ResourceNotReady"),                                                      // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/fetch.go#L205
	same(health.ReasonJobRunning, "JobRunning"),                                                                  // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L638
	same(health.ReasonJobFailed, "JobFailed"),                                                                    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L625
	same(health.ReasonJobBackoffLimitExceeded, "JobBackoffLimitExceeded"),                                        // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L604
	same(health.ReasonJobDeadlineExceeded, "JobDeadlineExceeded"),                                                // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L611
	same(health.ReasonJobEvicted, "JobEvicted"),                                                                  // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L618
	never("JobNotFound", "unreached: a Job that does not exist fails the fetch first, ResourceNotReady in both"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L578
	// Pods.
	same(health.ReasonNoPods, "NoPods"),                                                // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L382
	same(health.ReasonPodsReady, "PodsReady"),                                          // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L460
	same(health.ReasonPodsStarting, "PodsStarting"),                                    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L469
	same(health.ReasonPodsPending, "PodsPending"),                                      // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L515
	same(health.ReasonPodsProgressing, "PodsProgressing"),                              // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L488
	same(health.ReasonImagePullAuthFailure, "ImagePullAuthFailure"),                    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L89
	same(health.ReasonImageNotFound, "ImageNotFound"),                                  // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L90
	same(health.ReasonImagePullBackOff, "ImagePullBackOff"),                            // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/constants/constants.go#L91
	never("ErrImagePull", "kubelet's waiting reason, which both read and never write"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/utils/errors.go#L36
	same(health.ReasonPodFailed, "PodFailed"),                                          // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L339
	same(health.ReasonPodOOMKilled, "PodOOMKilled"),                                    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L332
	same(health.ReasonPodDeadlineExceeded, "PodDeadlineExceeded"),                      // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L346
	same(health.ReasonPodEvicted, "PodEvicted"),                                        // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L353
	same(health.ReasonSourceNotFound, "SourceNotFound"),                                // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L316
	same(health.ReasonAuthError, "AuthError"),                                          // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L304
	same(health.ReasonStorageFull, "StorageFull"),                                      // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L310
	// Reasons of the pod Events a pending pod's component takes.
	same(health.ReasonFailedScheduling, "FailedScheduling"),             // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L496
	same(health.ReasonFailedMount, "FailedMount"),                       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L497
	same(health.ReasonFailedAttachVolume, "FailedAttachVolume"),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L498
	same(health.ReasonFailedCreatePodSandBox, "FailedCreatePodSandBox"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L499
	same(health.ReasonPulling, "Pulling"),                               // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L505
}}

// serviceTable: AIMService. Its pods have jobsTable's reasons.
var serviceTable = table{"AIMService", []row{
	// Components.
	same(service.ComponentModel, "Model"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L217
	same(service.ComponentTemplate, "Template"),           // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L310
	same(service.ComponentRuntimeConfig, "RuntimeConfig"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L171
	same(service.ComponentISVC, "InferenceService"),       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L404
	same(service.ComponentPods, "InferenceServicePods"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L189
	same(service.ComponentCache, "Cache"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L650
	same(service.ComponentRoute, "HTTPRoute"),             // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L485
	same(service.ComponentHPA, "HPA"),                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L536
	// ModelReady.
	same(service.ReasonModelNotFound, "ModelNotFound"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L357
	same(service.ReasonInvalidImageReference, "InvalidImageReference"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L356
	same(service.ReasonCreatingModel, "CreatingModel"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L358
	same(service.ReasonModelResolved, "ModelResolved"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L360
	same(service.ReasonModelNotReady, "ModelNotReady"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L359
	ours(service.ReasonAmbiguousModelImage, docResolve),
	ours(service.ReasonInvalidModelSpec, docResolve),
	// TemplateReady.
	same(service.ReasonTemplateNotFound, "TemplateNotFound"),    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L363
	same(service.ReasonTemplateUnready, "TemplateNotReady"),     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L364
	same(service.ReasonTemplateResolved, "Resolved"),            // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L365
	same(service.ReasonAmbiguous, "TemplateSelectionAmbiguous"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L366
	ours(service.ReasonAwaitingModel, docResolve),
	ours(service.ReasonCreatingDerivedTemplate, docResolve),
	ours(service.ReasonDerivedTemplateConflict, docResolve),
	// RuntimeConfigReady.
	differs(runtimeconfig.ReasonConfigFound, "RuntimeConfigResolved", docServiceRuntimeConfig), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L175
	ours(runtimeconfig.ReasonDefaultConfigNotFound, docServiceRuntimeConfig),
	// CacheReady.
	same(service.ReasonCacheCreating, "CacheCreating"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L374
	same(service.ReasonCacheNotReady, "CacheNotReady"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L375
	same(service.ReasonCacheReady, "CacheReady"),       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L376
	same(service.ReasonCacheFailed, "CacheFailed"),     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L377
	same(service.ReasonCacheLost, "CacheLost"),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L378
	ours(service.ReasonCacheConflict, docTaken),
	never("PVCNotBound", "declared, never set"),                                             // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L369
	never("StorageReady", "declared, never set"),                                            // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L370
	never("StorageSizeError", "declared, never set (ours is an artifact's, artifactTable)"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L371
	// InferenceServiceReady.
	same(service.ReasonCreatingRuntime, "CreatingRuntime"),               // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L381
	same(service.ReasonRuntimeReady, "RuntimeReady"),                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L382
	same(service.ReasonServerlessModeRejected, "ServerlessModeRejected"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L430
	same(service.ReasonInternalError, "InternalError"),                   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L440
	ours(service.ReasonKServeNotInstalled, docNoCRDs),
	neverAs("FetchError", docErrors), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L417
	// HTTPRouteReady; a gateway's own reason for rejecting the route is copied in both.
	same(service.ReasonGatewayNotConfigured, "GatewayNotConfigured"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L501
	same(service.ReasonPathTemplateInvalid, "PathTemplateInvalid"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservice_types.go#L385
	same(service.ReasonHTTPRouteCreating, "HTTPRouteCreating"),       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L518
	same(service.ReasonHTTPRouteAccepted, "HTTPRouteAccepted"),       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L716
	same(service.ReasonHTTPRoutePending, "HTTPRoutePending"),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L741
	ours(service.ReasonHTTPRouteRejected, docCopied),
	ours(service.ReasonGatewayAPINotInstalled, docNoCRDs),
	neverAs("HTTPRouteFetchError", docErrors),                                                         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L524
	never("HTTPRouteNotFound", "unreached: a route that does not exist is HTTPRouteCreating in both"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L704
	// HPAReady.
	same(service.ReasonHPANotFound, "HPANotFound"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L558
	same(service.ReasonWaitingForMetrics, "WaitingForMetrics"),     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L593
	same(service.ReasonMetricsFailed, "MetricsFailed"),             // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L599
	same(service.ReasonScaleTargetNotReady, "ScaleTargetNotReady"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L612
	same(service.ReasonHPAOperational, "HPAOperational"),           // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L619
	neverAs("HPAFetchError", docErrors),                            // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/reconcile.go#L564
}}

// candidateTable: the verdicts of a service's template selection, which aim-engine computes and never writes:
// status.templateMatching is ours (compatibility.md, "Template selection", F3).
var candidateTable = table{"AIMService status.templateMatching", []row{
	same(service.ReasonBestMatch, "BestMatch"),                             // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/selection.go#L292
	same(service.ReasonLowerPreferenceRank, "LowerPreferenceRank"),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/selection.go#L299
	same(service.ReasonUnoptimizedFiltered, "UnoptimizedTemplateFiltered"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/selection.go#L404
	same(service.ReasonOverridesNotMatched, "ServiceOverridesNotMatched"),  // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/selection.go#L405
	same(service.ReasonGPUNotInCluster, "RequiredGPUNotInCluster"),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/selection.go#L406
	same(service.ReasonTemplateNotReady, "TemplateNotReady"),               // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/selection.go#L422
	ours(service.ReasonDefaultTemplate, docDefaultTemplate),
	ours(service.ReasonNamespaceScopePrefered, docSelection),
	ours(service.ReasonAmbiguous, docSelection),
	never("TemplatePending", "a candidate that is not Ready is TemplateNotReady, its message naming its state"),      // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/selection.go#L412
	never("TemplateProgressing", "a candidate that is not Ready is TemplateNotReady, its message naming its state"),  // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/selection.go#L414
	never("TemplateNotAvailable", "a candidate that is not Ready is TemplateNotReady, its message naming its state"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/selection.go#L416
	never("TemplateDegraded", "a candidate that is not Ready is TemplateNotReady, its message naming its state"),     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/selection.go#L418
	never("TemplateFailed", "a candidate that is not Ready is TemplateNotReady, its message naming its state"),       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservice/selection.go#L420
}}

// modelTable: AIMModel and AIMClusterModel.
var modelTable = table{"AIMModel, AIMClusterModel", []row{
	// Components.
	same(model.ComponentRuntimeConfig, "RuntimeConfig"),                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimmodel/reconcile.go#L129
	same(model.ComponentImageMetadata, "ImageMetadata"),                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimmodel/reconcile.go#L103
	same(model.ComponentServiceTemplates, "ServiceTemplates"),               // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimmodel/reconcile.go#L135
	same(model.ComponentClusterServiceTemplates, "ClusterServiceTemplates"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimmodel/reconcile.go#L94
	same(runtimeconfig.ReasonConfigNotFound, "ConfigNotFound"),              // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L43
	// ImageMetadataReady.
	same(model.ReasonImageMetadataFound, "ImageMetadataFound"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimmodel/reconcile.go#L197
	same(model.ReasonImageFound, "ImageFound"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimmodel/reconcile.go#L202
	same(imagemeta.ReasonSecretNotFound, "SecretNotFound"),     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimmodel/inspector.go#L95
	ours(model.ReasonExtractionDisabled, docImage),
	ours(model.ReasonInvalidImageLabels, docImage),
	ours(imagemeta.ReasonInvalidImageReference, docImage),
	ours(imagemeta.ReasonRegistryNotAllowed, docImage),
	ours(imagemeta.ReasonImagePullAuthFailure, docRegistry),
	ours(imagemeta.ReasonImageNotFound, docRegistry),
	ours(imagemeta.ReasonRegistryRateLimited, docRegistry),
	ours(imagemeta.ReasonRegistryUnreachable, docRegistry),
	neverAs("SecretAccessFailed", docErrors), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimmodel/inspector.go#L105
	// (Cluster)ServiceTemplatesReady.
	same(model.ReasonNoTemplatesExpected, "NoTemplatesExpected"),     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L55
	same(model.ReasonCreatingTemplates, "CreatingTemplates"),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L57
	same(model.ReasonAllTemplatesFailed, "AllTemplatesFailed"),       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L49
	same(model.ReasonSomeTemplatesDegraded, "SomeTemplatesDegraded"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L51
	same(model.ReasonNoTemplatesAvailable, "NoTemplatesAvailable"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L50
	same(model.ReasonTemplatesProgressing, "TemplatesProgressing"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L52
	same(model.ReasonAllTemplatesReady, "AllTemplatesReady"),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L53
	same(model.ReasonSomeTemplatesReady, "SomeTemplatesReady"),       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L54
	never("AwaitingMetadata", "while the metadata is unknown no (Cluster)ServiceTemplates component is reported; ImageMetadataReady says what the model waits for (design.md R9.12)"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L56
	// Declared in aimmodel_shared.go, set by no controller.
	never("MetadataExtracted", "declared, never set (a condition type and a reason)"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L34
	never("MetadataExtractionFailed", "declared, never set"),                          // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L40
	never("RuntimeConfigError", "declared, never set"),                                // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L44
	never("UsingDefaults", "declared, never set"),                                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L45
	never("Resolved", "declared, never set"),                                          // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L46
	never("MetadataMissingRecommendedDeployments", "declared, never set"),             // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimmodel_shared.go#L58
}}

// templateTable: AIMServiceTemplate and AIMClusterServiceTemplate. Discovery pods have jobsTable's reasons.
var templateTable = table{"AIMServiceTemplate, AIMClusterServiceTemplate", []row{
	// Components.
	same(template.ComponentRuntimeConfig, "RuntimeConfig"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/reconcile.go#L156
	same(template.ComponentModel, "Model"),                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/reconcile.go#L157
	same(template.ComponentClusterModel, "ClusterModel"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/reconcile.go#L275
	same(template.ComponentGPU, "GPU"),                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/gpu.go#L104
	same(template.ComponentDiscoveryJob, "DiscoveryJob"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/reconcile.go#L163
	same(template.ComponentDiscoveryPods, "DiscoveryPods"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/reconcile.go#L167
	ours(template.ComponentTemplateCache, docTemplate),
	// Discovered.
	same(template.ConditionDiscovered, "Discovered"),              // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L333
	same(template.ReasonInlineModelSources, "InlineModelSources"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/reconcile.go#L666
	same(template.ReasonDiscoveryComplete, "DiscoveryComplete"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/reconcile.go#L718
	same(template.ReasonAwaitingDiscovery, "AwaitingDiscovery"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L350
	// (Cluster)ModelReady.
	same(template.ReasonModelFound, "ModelFound"),                                                                                              // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/model.go#L193
	same(template.ReasonClusterModelFound, "ClusterModelFound"),                                                                                // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/model.go#L229
	same(template.ReasonModelFailed, "ModelFailed"),                                                                                            // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/model.go#L186
	same(template.ReasonClusterModelFailed, "ClusterModelFailed"),                                                                              // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/model.go#L222
	same(template.ReasonModelNotFound, "ReferenceNotFound"),                                                                                    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/fetch.go#L169
	never("ModelNotFound", "in a model lookup no reconciler calls; its missing model is ReferenceNotFound (above)"),                            // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/model.go#L125
	never("ClusterModelNotFound", "unreached: a missing model fails the fetch first (ReferenceNotFound)"),                                      // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/model.go#L205
	never("ImageNotSpecified", "a model's spec.image is required (validation), so its templates never see a model without one"),                // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/model.go#L145
	never("ModelNotResolved", "in GetModelLookupHealth, which no reconciler calls"),                                                            // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/model.go#L137
	never("ModelResolved", "in GetModelLookupHealth, which no reconciler calls (and declared, never set in aimservicetemplate_shared.go:358)"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/model.go#L152
	// GPUReady.
	same(gpu.ReasonGPUAvailable, "GPUAvailable"),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/gpu.go#L106
	same(gpu.ReasonGPUNotAvailable, "GPUNotAvailable"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/gpu.go#L114
	same(gpu.ReasonVRAMNotAvailable, "VRAMNotAvailable"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/gpu.go#L196
	ours(gpu.ReasonInsufficientCapacity, docGPUCapacity),
	neverAs("VRAMAvailable", docTemplate),                                                                       // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/gpu.go#L182
	never("GPUCheckFailed", "the GPU inventory is the controller's Node informer: there is no request to fail"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/gpu.go#L78
	// DiscoveryJobReady: a failed discovery Job is JobFailed, whatever jobsTable's reason it failed with (docTemplate).
	same(template.ReasonJobRunning, "JobRunning"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L638
	same(template.ReasonJobFailed, "JobFailed"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L625
	ours(template.ReasonJobCreated, docTemplate),
	ours(template.ReasonWaitingForSlot, docTemplate),
	ours(template.ReasonDiscoveryOutputInvalid, docDiscoveryOutput),
	neverAs("JobNotCreated", docTemplate), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimservicetemplate/discovery.go#L342
	// TemplateCacheReady.
	ours(template.ReasonTemplateCacheConflict, docTaken),
	// Declared in aimservicetemplate_shared.go, set by no controller.
	never("CacheReady", "declared, never set (a condition type)"),                                   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L339
	never("Ready", "declared, never set (a CacheReady reason)"),                                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L341
	never("WaitingForCache", "declared, never set"),                                                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L342
	never("CacheDegraded", "declared, never set"),                                                   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L343
	never("CacheFailed", "declared, never set"),                                                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L344
	never("ProfilesDiscovered", "declared, never set"),                                              // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L351
	never("DiscoveryFailed", "declared, never set"),                                                 // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L352
	never("GpuNotAvailable", "declared, never set (GPUNotAvailable is written)"),                    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L354
	never("AwaitingTemplate", "declared, never set"),                                                // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L361
	never("TemplateFound", "declared, never set"),                                                   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L362
	never("ModelFound", "declared, never set (a condition type; ModelFound the reason is written)"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimservicetemplate_shared.go#L365
}}

// templateCacheTable: AIMTemplateCache. A template that is not Ready, and an artifact that is not, lend the cache
// their Ready reason in both.
var templateCacheTable = table{"AIMTemplateCache", []row{
	// Components.
	same(templatecache.ComponentRuntimeConfig, "RuntimeConfig"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimtemplatecache/reconcile.go#L151
	same(templatecache.ComponentTemplate, "ServiceTemplate"),    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimtemplatecache/reconcile.go#L159
	same(templatecache.ComponentArtifacts, "Artifacts"),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimtemplatecache/reconcile.go#L48
	// ServiceTemplateReady.
	same(templatecache.ReasonTemplateNotFound, "ReferenceNotFound"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/fetch.go#L169
	same(templatecache.ReasonResourceFound, "ResourceFound"),        // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimtemplatecache/reconcile.go#L97
	ours(templatecache.ReasonTemplateFound, docCacheTemplate),
	ours(templatecache.ReasonTemplateNotReady, docCacheTemplate),
	// ArtifactsReady.
	same(templatecache.ReasonNoCaches, "NoCaches"),             // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimtemplatecache/reconcile.go#L458
	same(templatecache.ReasonCreatingCaches, "CreatingCaches"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimtemplatecache/reconcile.go#L417
	same(templatecache.ReasonAllCachesReady, "AllCachesReady"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimtemplatecache/reconcile.go#L429
	same(templatecache.ReasonCachesNotReady, "CachesNotReady"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimtemplatecache/reconcile.go#L453
	ours(templatecache.ReasonArtifactConflict, docTaken),
	// Declared in aimtemplatecache_types.go, set by no controller.
	never("Resolved", "declared, never set (a condition type and a reason)"),                          // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimtemplatecache_types.go#L156
	never("CacheReady", "declared, never set (a condition type)"),                                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimtemplatecache_types.go#L158
	never("Ready", "declared, never set (a condition type; Ready of every kind is commonTable's)"),    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimtemplatecache_types.go#L160
	never("Progressing", "declared, never set (a condition type)"),                                    // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimtemplatecache_types.go#L162
	never("Failure", "declared, never set (a condition type)"),                                        // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimtemplatecache_types.go#L164
	never("TemplateNotFound", "declared, never set: a missing template is ReferenceNotFound in both"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimtemplatecache_types.go#L185
	never("Warming", "declared, never set"),                                                           // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimtemplatecache_types.go#L189
	never("Warm", "declared, never set"),                                                              // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimtemplatecache_types.go#L190
	never("Failed", "declared, never set"),                                                            // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimtemplatecache_types.go#L191
	never("TemplateFound", "declared, never set (a condition type)"),                                  // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimtemplatecache_types.go#L194
}}

// artifactTable: AIMArtifact. Its Jobs and pods have jobsTable's reasons.
var artifactTable = table{"AIMArtifact", []row{
	// Components.
	same(artifact.ComponentRuntimeConfig, "RuntimeConfig"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimartifact/reconcile.go#L248
	ours(artifact.ComponentAccount, docAccount),
	same(artifact.ComponentCheckSizeJob, "CheckSizeJob"),         // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimartifact/reconcile.go#L254
	same(artifact.ComponentCheckSizeJobPods, "CheckSizeJobPods"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimartifact/reconcile.go#L257
	same(artifact.ComponentCheckSizeOutput, "CheckSizeOutput"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimartifact/reconcile.go#L262
	same(artifact.ComponentVolume, "CachePvc"),                   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimartifact/reconcile.go#L275
	same(artifact.ComponentDownloadJob, "DownloadJob"),           // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimartifact/reconcile.go#L280
	same(artifact.ComponentDownloadJobPods, "DownloadJobPods"),   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimartifact/reconcile.go#L284
	// DownloadComplete.
	same(artifact.ConditionDownloadComplete, "DownloadComplete"),  // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimartifact_types.go#L43
	same(artifact.ReasonDownloading, "Downloading"),               // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimartifact_types.go#L45
	same(artifact.ReasonVerifying, "Verifying"),                   // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimartifact_types.go#L47
	same(artifact.ReasonVerified, "Verified"),                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimartifact_types.go#L48
	same(artifact.ReasonVerificationFailed, "VerificationFailed"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimartifact/reconcile.go#L511
	never("DownloadComplete", "declared, never set (as a reason); a DownloadComplete=True/DownloadComplete of an earlier aim-apiserver release is kept and read as Verified"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/api/v1alpha1/aimartifact_types.go#L46
	// ServiceAccountReady, and the Jobs waiting for it.
	ours(artifact.ReasonAccountReady, docAccount),
	ours(artifact.ReasonAccountCreating, docAccount),
	ours(artifact.ReasonWaitingForAccount, docAccount),
	// CheckSizeOutputReady and CachePvcReady (a bound volume is Ready in both).
	same(artifact.ReasonInvalidSizeOutput, "InvalidSizeOutput"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimartifact/reconcile.go#L264
	same(artifact.ReasonPVCPending, "PvcPending"),               // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L693
	same(artifact.ReasonPVCLost, "PvcLost"),                     // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L663
	ours(artifact.ReasonCheckSizePodNotFound, docArtifactSize),
	ours(artifact.ReasonStorageSizeError, docArtifactSize),
	never("PvcNotFound", "unreached: a volume that does not exist fails the fetch first, ResourceNotReady in both"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L647
	never("PvcProvisioningFailed", "unreached: it looks for a Resizing condition of reason ProvisioningFailed, which Kubernetes does not set (a failed provisioning is an Event); a pending volume is PvcPending in both"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/controller/utils/health_fetchers.go#L681
}}

// modelSourceTable: AIMClusterModelSource. A missing pull secret is imagemeta's SecretNotFound (modelTable).
var modelSourceTable = table{"AIMClusterModelSource", []row{
	same(modelsource.ComponentFilters, "Filters"),                             // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimclustermodelsource/reconcile.go#L117
	same(modelsource.ComponentExistingModels, "ExistingModels"),               // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimclustermodelsource/reconcile.go#L95
	same(modelsource.ConditionMaxModelsLimitReached, "MaxModelsLimitReached"), // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimclustermodelsource/reconcile.go#L269
	same(modelsource.ReasonLimitReached, "LimitReached"),                      // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimclustermodelsource/reconcile.go#L270
	same(modelsource.ReasonWithinLimit, "WithinLimit"),                        // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimclustermodelsource/reconcile.go#L277
	same(modelsource.ReasonNoFilters, "NoFilters"),                            // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimclustermodelsource/reconcile.go#L119
	same(modelsource.ReasonAllFiltersSucceeded, "AllFiltersSucceeded"),        // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimclustermodelsource/reconcile.go#L136
	same(modelsource.ReasonSomeFiltersFailed, "SomeFiltersFailed"),            // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimclustermodelsource/reconcile.go#L144
	same(modelsource.ReasonAllFiltersFailed, "AllFiltersFailed"),              // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimclustermodelsource/reconcile.go#L151
	same(modelsource.ReasonListed, "Listed"),                                  // https://github.com/amd-enterprise-ai/aim-engine/blob/9223504d74b01fec2e99d250933ea2884aef3b87/internal/aimclustermodelsource/reconcile.go#L99
}}

// runtimeConfigTable: AIMRuntimeConfig and AIMClusterRuntimeConfig, which aim-engine gives no status (F7).
var runtimeConfigTable = table{"AIMRuntimeConfig, AIMClusterRuntimeConfig", []row{
	ours(runtimeconfig.ConditionValid, docRuntimeConfigs),
	ours(runtimeconfig.ConditionReady, docRuntimeConfigs),
	ours(runtimeconfig.ReasonValid, docRuntimeConfigs),
	ours(runtimeconfig.ReasonInvalid, docRuntimeConfigs),
}}
