// Package fuzzer fills internal AIM objects with random values that survive a round trip through the wire
// version: every field the versioned defaulters would set is set, and free-form JSON is valid JSON.
package fuzzer

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

var statuses = []aim.AIMStatus{
	aim.AIMStatusPending, aim.AIMStatusProgressing, aim.AIMStatusReady, aim.AIMStatusDegraded, aim.AIMStatusFailed,
}

func status(c randfill.Continue) aim.AIMStatus { return statuses[c.Intn(len(statuses))] }

// Funcs returns the fuzz functions of the AIM group.
func Funcs(_ runtimeserializer.CodecFactory) []any {
	return []any{
		// A duration's text is empty, or a spelling other than Go's own: the one that decoding keeps.
		func(d *aim.Duration, c randfill.Continue) {
			d.Duration, d.Text = time.Duration(c.Int63()), ""
			if spelled := strconv.FormatInt(int64(d.Duration), 10) + "ns"; c.Bool() && spelled != d.Duration.String() {
				d.Text = spelled
			}
		},
		func(s *aim.AIMServiceSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			if s.Replicas == nil {
				s.Replicas = ptr.To(c.Int31())
			}
			if s.Caching == nil {
				s.Caching = &aim.AIMServiceCaching{}
			}
			if s.Caching.Mode == "" {
				s.Caching.Mode = aim.AIMCachingModeShared
			}
			if s.Storage != nil && s.Storage.PVCHeadroomPercent == nil {
				s.Storage.PVCHeadroomPercent = ptr.To[int32](10)
			}
		},
		func(s *aim.AIMServicePodMetric, c randfill.Continue) {
			c.FillNoCustom(s)
			if s.Backend == "" {
				s.Backend = "opentelemetry"
			}
		},
		func(s *aim.AIMGpuRequirements, c randfill.Continue) {
			c.FillNoCustom(s)
			if s.ResourceName == "" {
				s.ResourceName = "amd.com/gpu"
			}
		},
		func(s *aim.AIMModelDiscoveryConfig, c randfill.Continue) {
			s.ExtractMetadata = ptr.To(c.Bool())
			s.CreateServiceTemplates = ptr.To(c.Bool())
		},
		func(s *aim.AIMCustomTemplate, c randfill.Continue) {
			c.FillNoCustom(s)
			if s.Type == nil {
				s.Type = ptr.To(aim.AIMProfileTypeUnoptimized)
			}
		},
		func(s *aim.AIMTemplateCacheSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			if s.Mode == "" {
				s.Mode = aim.AIMTemplateCacheModeDedicated
			}
		},
		func(s *aim.AIMClusterModelSourceSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			if s.Registry == "" {
				s.Registry = "ghcr.io"
			}
			if s.SyncInterval == nil {
				s.SyncInterval = &aim.Duration{Duration: 1}
			}
			if s.MaxModels == nil {
				s.MaxModels = ptr.To[int32](7)
			}
		},
		func(r *aim.AIMGatewayParentReference, c randfill.Continue) {
			c.FillNoCustom(r)
			if r.Group == nil {
				r.Group = ptr.To("gateway.networking.k8s.io")
			}
			if r.Kind == nil {
				r.Kind = ptr.To("Gateway")
			}
		},
		func(s *aim.AIMArtifactSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			if s.ModelDownloadImage == "" {
				s.ModelDownloadImage = "registry.example/downloader:1"
			}
		},
		func(s *aim.AIMServiceStatus, c randfill.Continue) {
			c.FillNoCustom(s)
			s.Status = aim.AIMStatusRunning
		},
		func(s *aim.AIMServiceTemplateStatus, c randfill.Continue) { c.FillNoCustom(s); s.Status = status(c) },
		func(s *aim.AIMModelStatus, c randfill.Continue) { c.FillNoCustom(s); s.Status = status(c) },
		func(s *aim.AIMRuntimeConfigStatus, c randfill.Continue) { c.FillNoCustom(s); s.Status = status(c) },
		func(s *aim.AIMTemplateCacheStatus, c randfill.Continue) { c.FillNoCustom(s); s.Status = status(c) },
		func(s *aim.AIMArtifactStatus, c randfill.Continue) { c.FillNoCustom(s); s.Status = status(c) },
		func(s *aim.AIMClusterModelSourceStatus, c randfill.Continue) { c.FillNoCustom(s); s.Status = status(c) },
		// core/v1 marks FileKeySelector.optional +default=false; the generated defaulter applies it.
		func(s *corev1.FileKeySelector, c randfill.Continue) {
			c.FillNoCustom(s)
			if s.Optional == nil {
				s.Optional = ptr.To(false)
			}
		},
		// Free-form JSON is any JSON value but null (null decodes as nil).
		func(j *aim.JSON, c randfill.Continue) {
			values := []string{fmt.Sprintf(`{"max_model_len":%d,"flag":%t}`, c.Intn(100000), c.Bool()),
				fmt.Sprintf(`["--tp",%d]`, c.Intn(8)), fmt.Sprintf(`"--max-model-len %d"`, c.Intn(100000)),
				strconv.Itoa(c.Intn(1000)), strconv.FormatBool(c.Bool())}
			j.Raw = []byte(values[c.Intn(len(values))])
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1<<40), resource.BinarySI)
		},
		// A quantity is always written (an unset one reads back "0"), as text in any spelling, or as a number
		// when it is a plain integer.
		func(q *aim.Quantity, c randfill.Continue) {
			suffixes := []string{"", "m", "k", "M", "G", "Ki", "Mi", "Gi", "Ti"}
			n := strconv.FormatInt(c.Int63n(1<<20), 10)
			suffix := suffixes[c.Intn(len(suffixes))]
			*q = aim.Quantity{Text: n + suffix, Number: suffix == "" && c.Bool()}
		},
	}
}
