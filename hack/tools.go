//go:build tools

// Package hack keeps build-time tools in go.mod so that hack/update-codegen.sh uses the pinned version.
package hack

import _ "k8s.io/code-generator"
