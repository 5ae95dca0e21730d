package controller_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Parameters and variables whose string literal arguments or values would be a condition type, a component
// name (its condition is <Name>Ready) or a reason.
var (
	reasonName        = regexp.MustCompile(`(?i)reason$`)
	typeOrComponentID = regexp.MustCompile(`^(typ|conditionType|component)$`)
)

// Functions of client-go's meta package whose second argument is a condition type.
var conditionTypeArg = map[string]bool{
	"FindStatusCondition": true, "IsStatusConditionTrue": true, "IsStatusConditionFalse": true,
	"IsStatusConditionPresentAndEqual": true, "RemoveStatusCondition": true,
}

// TestConditionStringsAreConstants fails when a controller writes a string literal as a condition type, a
// component name or a reason: every such string must be a named constant, so that the tables of
// docs/conditions.md pin it to aim-engine's (conditions_test.go). It looks, in the non-test files under
// pkg/controller, at
//   - the Reason field of any composite literal, the Type field of metav1.Condition literals and the Name field
//     of state.Component literals;
//   - assignments to a Reason or Type field, and to a variable or named result whose name ends in "reason";
//   - arguments to parameters named like that, "typ", "conditionType" or "component" of the functions and
//     function literals declared there (state.NewError's reason, health.Pods' component, ...), and the
//     condition type of meta.FindStatusCondition and its kin.
//
// "" passes: a component without a reason of its own takes its errors'.
func TestConditionStringsAreConstants(t *testing.T) {
	fset, files := controllerFiles(t)
	for _, v := range guardViolations(fset, files) {
		t.Error(v)
	}
}

// controllerFiles parses the non-test Go files under pkg/controller.
func controllerFiles(t *testing.T) (*token.FileSet, []*ast.File) {
	fset := token.NewFileSet()
	var files []*ast.File
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		files = append(files, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return fset, files
}

// guardViolations lists the string literals TestConditionStringsAreConstants refuses, with their positions.
func guardViolations(fset *token.FileSet, files []*ast.File) []string {
	// params maps package.function (methods and function literals assigned to a variable by their name) to
	// the parameter names of each function of that name.
	params := map[string][][]string{}
	for _, f := range files {
		collectParams(f, f.Name.Name+".", params)
	}
	var out []string
	report := func(e ast.Expr, what string) {
		// "" is no reason: the component's is taken from its errors.
		if lit, ok := ast.Unparen(e).(*ast.BasicLit); ok && lit.Kind == token.STRING && lit.Value != `""` {
			out = append(out, fset.Position(lit.Pos()).String()+": string literal "+lit.Value+" as "+what+
				"; name it as a constant and pin it in docs/conditions.md")
		}
	}
	for _, f := range files {
		inState := f.Name.Name == "state"
		imports := map[string]bool{}
		for _, im := range f.Imports {
			name := filepath.Base(strings.Trim(im.Path.Value, `"`))
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = true
		}
		// elts maps the composite literals whose type is elided to the element type of their parent.
		elts := map[*ast.CompositeLit]ast.Expr{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				typ := n.Type
				if typ == nil {
					typ = elts[n]
				}
				var elt ast.Expr
				switch t := typ.(type) {
				case *ast.ArrayType:
					elt = t.Elt
				case *ast.MapType:
					elt = t.Value
				}
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						e = kv.Value
						checkField(kv, typ, inState, report)
					}
					if cl, ok := unaddr(e).(*ast.CompositeLit); ok && cl.Type == nil && elt != nil {
						elts[cl] = elt
					}
				}
			case *ast.AssignStmt:
				if len(n.Lhs) != len(n.Rhs) {
					break
				}
				for i, l := range n.Lhs {
					switch l := l.(type) {
					case *ast.SelectorExpr:
						if l.Sel.Name == "Reason" || l.Sel.Name == "Type" {
							report(n.Rhs[i], "the field "+l.Sel.Name)
						}
					case *ast.Ident:
						if reasonName.MatchString(l.Name) {
							report(n.Rhs[i], "the variable "+l.Name)
						}
					}
				}
			case *ast.GenDecl:
				if n.Tok != token.VAR {
					break
				}
				for _, s := range n.Specs {
					vs := s.(*ast.ValueSpec)
					for i, id := range vs.Names {
						if reasonName.MatchString(id.Name) && i < len(vs.Values) {
							report(vs.Values[i], "the variable "+id.Name)
						}
					}
				}
			case *ast.CallExpr:
				pkg, name := callee(n.Fun, f.Name.Name, imports)
				if pkg == "meta" && conditionTypeArg[name] && len(n.Args) > 1 {
					report(n.Args[1], "a condition type of meta."+name)
				}
				for _, ps := range params[pkg+"."+name] {
					for i, p := range ps {
						if i < len(n.Args) && (reasonName.MatchString(p) || typeOrComponentID.MatchString(p)) {
							report(n.Args[i], "the argument "+p+" of "+name)
						}
					}
				}
			}
			return true
		})
		// Named results: return "X", ... in a function whose result is named like a reason.
		for _, fd := range f.Decls {
			fd, ok := fd.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Type.Results == nil {
				continue
			}
			names := paramNames(&ast.FuncType{Params: fd.Type.Results})
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false
				}
				if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) == len(names) {
					for i, p := range names {
						if reasonName.MatchString(p) {
							report(r.Results[i], "the result "+p+" of "+fd.Name.Name)
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// checkField reports a literal Reason of any composite literal, Type of a metav1.Condition and Name of a
// state.Component.
func checkField(kv *ast.KeyValueExpr, typ ast.Expr, inState bool, report func(ast.Expr, string)) {
	key, ok := kv.Key.(*ast.Ident)
	if !ok {
		return
	}
	typeName := ""
	switch t := unaddr(typ).(type) {
	case *ast.SelectorExpr:
		typeName = t.Sel.Name
		if x, ok := t.X.(*ast.Ident); ok && t.Sel.Name == "Component" && x.Name != "state" {
			typeName = ""
		}
	case *ast.Ident:
		if t.Name == "Component" && !inState {
			break
		}
		typeName = t.Name
	}
	switch {
	case reasonName.MatchString(key.Name):
		report(kv.Value, "the field "+key.Name)
	case key.Name == "Type" && typeName == "Condition":
		report(kv.Value, "the Type of a condition")
	case key.Name == "Name" && typeName == "Component":
		report(kv.Value, "the Name of a state.Component")
	}
}

// unaddr strips & and * from an expression or a type.
func unaddr(e ast.Expr) ast.Expr {
	for {
		switch u := e.(type) {
		case *ast.UnaryExpr:
			if u.Op != token.AND {
				return e
			}
			e = u.X
		case *ast.StarExpr:
			e = u.X
		default:
			return e
		}
	}
}

// callee is the package and the name of a called function: pkg.F is F of the package imported as pkg, F and
// x.F (a method, or a function literal held in a field) are of the calling file's package.
func callee(fun ast.Expr, pkg string, imports map[string]bool) (string, string) {
	switch f := fun.(type) {
	case *ast.Ident:
		return pkg, f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok && imports[x.Name] {
			return x.Name, f.Sel.Name
		}
		return pkg, f.Sel.Name
	case *ast.IndexExpr:
		return callee(f.X, pkg, imports)
	}
	return "", ""
}

// collectParams adds to params, under prefix+name, the parameter names of f's functions and methods and of the
// function literals f assigns to a variable.
func collectParams(f *ast.File, prefix string, params map[string][][]string) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			params[prefix+n.Name.Name] = append(params[prefix+n.Name.Name], paramNames(n.Type))
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && i < len(n.Rhs) {
					if fl, ok := n.Rhs[i].(*ast.FuncLit); ok {
						params[prefix+id.Name] = append(params[prefix+id.Name], paramNames(fl.Type))
					}
				}
			}
		}
		return true
	})
}

func paramNames(ft *ast.FuncType) []string {
	var out []string
	if ft.Params == nil {
		return nil
	}
	for _, f := range ft.Params.List {
		if len(f.Names) == 0 {
			out = append(out, "")
		}
		for _, id := range f.Names {
			out = append(out, id.Name)
		}
	}
	return out
}
