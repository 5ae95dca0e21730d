//go:build tools

// Package hack keeps build-time tools in go.mod so that hack/update-codegen.sh uses the pinned versions.
package hack

import (
	_ "golang.org/x/tools/cmd/goimports"
	_ "k8s.io/code-generator"
	_ "k8s.io/code-generator/cmd/go-to-protobuf"
	_ "k8s.io/code-generator/cmd/go-to-protobuf/protoc-gen-gogo"
)
