// Package discovery holds the discovery contract of service templates: the Job that runs an AIM image's
// dry run, the parsing of what it prints, and the retry schedule. Everything here is a pure function.
package discovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
)

const (
	// MaxOutputBytes bounds what is parsed: a profile list is a few KiB; more is a log, not a result.
	MaxOutputBytes = 1 << 20
	bytesPerGB     = 1 << 30
)

// Output is one element of the JSON array `dry-run --format=json` prints.
type Output struct {
	Filename string        `json:"filename"`
	Profile  OutputProfile `json:"profile"`
	Models   []OutputModel `json:"models"`
}

// OutputProfile is the engine profile of a result.
type OutputProfile struct {
	Model          string            `json:"model"`
	QuantizedModel string            `json:"quantized_model"`
	Metadata       OutputMetadata    `json:"metadata"`
	EngineArgs     json.RawMessage   `json:"engine_args"`
	EnvVars        map[string]string `json:"env_vars"`
}

// OutputMetadata describes a profile.
type OutputMetadata struct {
	Engine    string `json:"engine"`
	GPU       string `json:"gpu"`
	Precision string `json:"precision"`
	GPUCount  int32  `json:"gpu_count"`
	Metric    string `json:"metric"`
	Type      string `json:"type"`
}

// OutputModel is one set of weights a profile serves.
type OutputModel struct {
	Name   string  `json:"name"`
	Source string  `json:"source"`
	SizeGB float64 `json:"size_gb"`
}

// Result is what a template's status takes from discovery.
type Result struct {
	Profile      aimv1.AIMProfile
	ModelSources []aimv1.AIMModelSource
}

// ErrInvalidOutput is wrapped by every parse failure; the template then fails with DiscoveryOutputInvalid.
var ErrInvalidOutput = errors.New("discovery output is invalid")

var (
	modelIDPattern   = regexp.MustCompile(`^[a-zA-Z0-9_-]+/[a-zA-Z0-9._-]+$`)
	sourceURIPattern = regexp.MustCompile(`^(hf|s3)://[^ \t\r\n]+$`)
)

// Parse reads discovery output. The JSON array may be surrounded by log lines: when the whole text is not the
// array, the last parseable non-empty array in it is used. The first result becomes the profile and the model
// sources; a result that would make an invalid status (no models, a model id or URI the API rejects) is an
// error, so that a template never becomes Ready without sources (F8).
func Parse(out []byte) (*Result, error) {
	if len(out) > MaxOutputBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d a result can be: %s", ErrInvalidOutput, len(out), MaxOutputBytes, redact.Output(out))
	}
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: the output is empty", ErrInvalidOutput)
	}
	results, err := decode(trimmed)
	if err != nil {
		return nil, fmt.Errorf("%w: %v: %s", ErrInvalidOutput, err, redact.Output(out))
	}
	return convert(results[0], out)
}

// decode finds the result array in out.
func decode(out []byte) ([]Output, error) {
	var results []Output
	if err := json.Unmarshal(out, &results); err == nil {
		if len(results) == 0 {
			return nil, errors.New("the result list is empty")
		}
		return results, nil
	}
	// Noisy output: try every '[' before each ']' from the end, so trailing log lines are skipped and the
	// latest complete array of results wins.
	for end := bytes.LastIndexByte(out, ']'); end >= 0; end = bytes.LastIndexByte(out[:end], ']') {
		for start := bytes.LastIndexByte(out[:end], '['); start >= 0; start = bytes.LastIndexByte(out[:start], '[') {
			var candidate []Output
			if json.Unmarshal(out[start:end+1], &candidate) == nil && len(candidate) > 0 && looksLikeResult(candidate[0]) {
				return candidate, nil
			}
		}
	}
	return nil, errors.New("no JSON array of results found")
}

// looksLikeResult tells a result from other JSON arrays a log may contain.
func looksLikeResult(o Output) bool {
	return len(o.Models) > 0 || o.Filename != "" || o.Profile.Metadata.Engine != ""
}

func convert(o Output, raw []byte) (*Result, error) {
	if len(o.Models) == 0 {
		return nil, fmt.Errorf("%w: the first result lists no models: %s", ErrInvalidOutput, redact.Output(raw))
	}
	res := &Result{}
	for i, m := range o.Models {
		switch {
		case !modelIDPattern.MatchString(m.Name):
			return nil, fmt.Errorf("%w: models[%d].name %q is not an org/name model id", ErrInvalidOutput, i, m.Name)
		case !sourceURIPattern.MatchString(m.Source):
			return nil, fmt.Errorf("%w: models[%d].source %q is not an hf:// or s3:// URI", ErrInvalidOutput, i, m.Source)
		case m.SizeGB < 0 || math.IsNaN(m.SizeGB) || m.SizeGB > 1<<20:
			return nil, fmt.Errorf("%w: models[%d].size_gb %v is out of range", ErrInvalidOutput, i, m.SizeGB)
		}
		// As aim-engine converts it: truncated to whole bytes, and a size of 0 written as 0 (unknown to the
		// artifact, which measures it).
		src := aimv1.AIMModelSource{ModelID: m.Name, SourceURI: m.Source,
			WeightsSize: ptr.To(aimv1.NewQuantity(*resource.NewQuantity(int64(m.SizeGB*bytesPerGB), resource.BinarySI)))}
		res.ModelSources = append(res.ModelSources, src)
	}
	md := o.Profile.Metadata
	res.Profile = aimv1.AIMProfile{
		EnvVars: o.Profile.EnvVars,
		Metadata: aimv1.AIMProfileMetadata{
			Engine: md.Engine, GPU: md.GPU, GPUCount: md.GPUCount,
			Metric: aimv1.AIMMetric(strings.ToLower(md.Metric)), Precision: aimv1.AIMPrecision(strings.ToLower(md.Precision)),
			Type: aimv1.AIMProfileType(strings.ToLower(md.Type)),
		},
	}
	if args := bytes.TrimSpace(o.Profile.EngineArgs); len(args) > 0 && !bytes.Equal(args, []byte("null")) {
		if args[0] != '{' {
			return nil, fmt.Errorf("%w: profile.engine_args is not a JSON object", ErrInvalidOutput)
		}
		res.Profile.EngineArgs = &aimv1.JSON{Raw: append([]byte(nil), args...)}
	}
	return res, nil
}
