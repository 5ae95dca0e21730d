package validation

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blang/semver/v4"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// ruleCase is one validation rule: mutate a valid object into an invalid one and name the field that must be
// reported. Every rule also has a valid variant (valid), checked to produce no error, so that a rule which
// rejects everything fails too.
type ruleCase[T runtime.Object] struct {
	name    string
	valid   func(T) // optional: a valid use of the same field
	invalid func(T)
	field   string
	errType field.ErrorType
	// schema says the published OpenAPI schema can express the rule (an enum, a pattern, a bound, a length,
	// a required field), so that a schema-only validator must reject the invalid object too
	// (TestSchemaAgreesWithValidation).
	schema bool
}

// ruleTable is the rules of one validation function, over objects made by base.
type ruleTable[T runtime.Object] struct {
	base     func() T
	validate func(T) field.ErrorList
	cases    []ruleCase[T]
}

// table is a ruleTable of any kind.
type table interface {
	run(t *testing.T)
	objects(prefix string) []TableObject
}

// TableObject is an object of a rule table: the base object, a valid variant or an invalid one.
type TableObject struct {
	Name   string
	Object runtime.Object
	Valid  bool
	// Schema marks an invalid object whose rule the schema expresses; Field is where the rule fails.
	Schema bool
	Field  string
}

func (rt ruleTable[T]) run(t *testing.T) {
	t.Helper()
	if errs := rt.validate(rt.base()); len(errs) != 0 {
		t.Fatalf("base object is invalid: %v", errs)
	}
	for _, tc := range rt.cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.valid != nil {
				obj := rt.base()
				tc.valid(obj)
				if errs := rt.validate(obj); len(errs) != 0 {
					t.Errorf("valid variant rejected: %v", errs)
				}
			}
			obj := rt.base()
			tc.invalid(obj)
			errs := rt.validate(obj)
			if !hasError(errs, tc.field, tc.errType) {
				t.Errorf("want %s error on %s, got %v", tc.errType, tc.field, errs)
			}
		})
	}
}

func (rt ruleTable[T]) objects(prefix string) []TableObject {
	out := []TableObject{{Name: prefix + "/base", Object: rt.base(), Valid: true}}
	for _, tc := range rt.cases {
		if tc.valid != nil {
			obj := rt.base()
			tc.valid(obj)
			out = append(out, TableObject{Name: prefix + "/" + tc.name + "/valid", Object: obj, Valid: true})
		}
		obj := rt.base()
		tc.invalid(obj)
		out = append(out, TableObject{Name: prefix + "/" + tc.name, Object: obj, Schema: tc.schema, Field: tc.field})
	}
	return out
}

func runTables(t *testing.T, tables []table) {
	t.Helper()
	for _, tb := range tables {
		tb.run(t)
	}
}

// allTables is every rule table by the name of its test.
func allTables() map[string][]table {
	return map[string][]table{
		"TestValidateAIMService": serviceTables(), "TestValidateAIMServiceUpdate": serviceUpdateTables(),
		"TestValidateAIMServiceStatus": serviceStatusTables(), "TestValidateAIMServiceTemplate": templateTables(),
		"TestValidateAIMClusterServiceTemplate": clusterTemplateTables(), "TestValidateAIMModel": modelTables(),
		"TestValidateAIMClusterModel": clusterModelTables(), "TestValidateRuntimeConfigs": runtimeConfigTables(),
		"TestValidateAIMTemplateCache": templateCacheTables(), "TestValidateAIMArtifact": artifactTables(),
		"TestValidateAIMClusterModelSource": modelSourceTables(),
	}
}

func hasError(errs field.ErrorList, path string, typ field.ErrorType) bool {
	for _, e := range errs {
		if e.Field == path && (typ == "" || e.Type == typ) {
			return true
		}
	}
	return false
}

func meta(namespaced bool) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: "obj"}
	if namespaced {
		m.Namespace = "default"
	}
	return m
}

func gpuHardware() *aim.AIMHardwareRequirements {
	return &aim.AIMHardwareRequirements{GPU: &aim.AIMGpuRequirements{Requests: 1, Model: "MI300X", ResourceName: "amd.com/gpu"}}
}

func source() aim.AIMModelSource {
	return aim.AIMModelSource{ModelID: "org/model", SourceURI: "hf://org/model"}
}

func newService() *aim.AIMService {
	return &aim.AIMService{
		ObjectMeta: meta(true),
		Spec: aim.AIMServiceSpec{
			Model:    aim.AIMServiceModel{Name: ptr.To("qwen3-32b")},
			Caching:  &aim.AIMServiceCaching{Mode: aim.AIMCachingModeShared},
			Replicas: ptr.To[int32](1),
		},
	}
}

// podMetric is autoscaling on one pod metric.
func podMetric(m *aim.AIMServicePodMetric, target aim.AIMServiceMetricTarget) *aim.AIMServiceAutoScaling {
	return &aim.AIMServiceAutoScaling{Metrics: []aim.AIMServiceMetricSpec{{Type: "PodMetric",
		PodMetric: &aim.AIMServicePodMetricSource{Metric: m, Target: target}}}}
}

func serviceTables() (tables []table) {
	q := func(s string) aim.Quantity { return aim.Quantity{Text: s} }
	tables = append(tables, ruleTable[*aim.AIMService]{base: newService, validate: ValidateAIMService, cases: []ruleCase[*aim.AIMService]{
		{name: "metadata name", invalid: func(s *aim.AIMService) { s.Name = "Bad_Name" }, field: "metadata.name", errType: field.ErrorTypeInvalid},
		{name: "model required", schema: true, invalid: func(s *aim.AIMService) { s.Spec.Model = aim.AIMServiceModel{} }, field: "spec.model", errType: field.ErrorTypeRequired},
		{name: "model exclusive",
			valid:   func(s *aim.AIMService) { s.Spec.Model = aim.AIMServiceModel{Image: ptr.To("repo/img:1")} },
			invalid: func(s *aim.AIMService) { s.Spec.Model.Image = ptr.To("repo/img:1") }, field: "spec.model", errType: field.ErrorTypeInvalid},
		{name: "model name format", schema: true, invalid: func(s *aim.AIMService) { s.Spec.Model.Name = ptr.To("UPPER") }, field: "spec.model.name", errType: field.ErrorTypeInvalid},
		{name: "model image whitespace", schema: true, invalid: func(s *aim.AIMService) { s.Spec.Model = aim.AIMServiceModel{Image: ptr.To("repo/img 1")} }, field: "spec.model.image", errType: field.ErrorTypeInvalid},
		{name: "model image empty", schema: true, invalid: func(s *aim.AIMService) { s.Spec.Model = aim.AIMServiceModel{Image: ptr.To("")} }, field: "spec.model.image", errType: field.ErrorTypeRequired},
		{name: "custom base image required", schema: true,
			valid: func(s *aim.AIMService) {
				s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "base:1", ModelSources: []aim.AIMModelSource{source()}, Hardware: *gpuHardware()}}
			},
			invalid: func(s *aim.AIMService) {
				s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{ModelSources: []aim.AIMModelSource{source()}, Hardware: *gpuHardware()}}
			}, field: "spec.model.custom.baseImage", errType: field.ErrorTypeRequired},
		{name: "custom exactly one source", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "b", ModelSources: []aim.AIMModelSource{source(), {ModelID: "org/other", SourceURI: "s3://b/o"}}, Hardware: *gpuHardware()}}
		}, field: "spec.model.custom.modelSources", errType: field.ErrorTypeInvalid},
		{name: "custom hardware required", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "b", ModelSources: []aim.AIMModelSource{source()}}}
		}, field: "spec.model.custom.hardware", errType: field.ErrorTypeRequired},
		{name: "custom source id pattern", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "b", ModelSources: []aim.AIMModelSource{{ModelID: "noslash", SourceURI: "hf://a/b"}}, Hardware: *gpuHardware()}}
		}, field: "spec.model.custom.modelSources[0].modelId", errType: field.ErrorTypeInvalid},
		{name: "custom source uri scheme", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "b", ModelSources: []aim.AIMModelSource{{ModelID: "a/b", SourceURI: "http://a/b"}}, Hardware: *gpuHardware()}}
		}, field: "spec.model.custom.modelSources[0].sourceUri", errType: field.ErrorTypeInvalid},
		{name: "template name", schema: true, valid: func(s *aim.AIMService) { s.Spec.Template = &aim.AIMServiceTemplateSelector{Name: "tpl"} },
			invalid: func(s *aim.AIMService) { s.Spec.Template = &aim.AIMServiceTemplateSelector{Name: "Bad Name"} }, field: "spec.template.name", errType: field.ErrorTypeInvalid},
		{name: "caching mode", schema: true, valid: func(s *aim.AIMService) { s.Spec.Caching.Mode = aim.AIMCachingModeNever },
			invalid: func(s *aim.AIMService) { s.Spec.Caching.Mode = "Sometimes" }, field: "spec.caching.mode", errType: field.ErrorTypeNotSupported},
		{name: "replicas non-negative", schema: true, valid: func(s *aim.AIMService) { s.Spec.Replicas = ptr.To[int32](0) },
			invalid: func(s *aim.AIMService) { s.Spec.Replicas = ptr.To[int32](-1) }, field: "spec.replicas", errType: field.ErrorTypeInvalid},
		{name: "minReplicas at least 1", schema: true, valid: func(s *aim.AIMService) { s.Spec.MinReplicas = ptr.To[int32](1) },
			invalid: func(s *aim.AIMService) { s.Spec.MinReplicas = ptr.To[int32](0) }, field: "spec.minReplicas", errType: field.ErrorTypeInvalid},
		{name: "maxReplicas at least 1", schema: true, invalid: func(s *aim.AIMService) { s.Spec.MaxReplicas = ptr.To[int32](0) }, field: "spec.maxReplicas", errType: field.ErrorTypeInvalid},
		{name: "autoscaling metric type", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.AutoScaling = &aim.AIMServiceAutoScaling{Metrics: []aim.AIMServiceMetricSpec{{Type: "Resource"}}}
		}, field: "spec.autoScaling.metrics[0].type", errType: field.ErrorTypeNotSupported},
		{name: "autoscaling podmetric required", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.AutoScaling = &aim.AIMServiceAutoScaling{Metrics: []aim.AIMServiceMetricSpec{{Type: "PodMetric"}}}
		}, field: "spec.autoScaling.metrics[0].podmetric", errType: field.ErrorTypeRequired},
		{name: "autoscaling podmetric metric required", schema: true, valid: func(s *aim.AIMService) {
			s.Spec.AutoScaling = podMetric(&aim.AIMServicePodMetric{MetricNames: []string{"vllm:num_requests_running"}}, aim.AIMServiceMetricTarget{Type: "Value", Value: "8"})
		}, invalid: func(s *aim.AIMService) {
			s.Spec.AutoScaling = podMetric(nil, aim.AIMServiceMetricTarget{Type: "Value", Value: "8"})
		}, field: "spec.autoScaling.metrics[0].podmetric.metric", errType: field.ErrorTypeRequired},
		{name: "autoscaling target type", schema: true,
			valid: func(s *aim.AIMService) {
				s.Spec.AutoScaling = podMetric(&aim.AIMServicePodMetric{}, aim.AIMServiceMetricTarget{Type: "AverageValue", AverageValue: "10"})
			},
			invalid: func(s *aim.AIMService) {
				s.Spec.AutoScaling = podMetric(&aim.AIMServicePodMetric{}, aim.AIMServiceMetricTarget{Type: "Max"})
			}, field: "spec.autoScaling.metrics[0].podmetric.target.type", errType: field.ErrorTypeNotSupported},
		{name: "autoscaling target value quantity", invalid: func(s *aim.AIMService) {
			s.Spec.AutoScaling = podMetric(&aim.AIMServicePodMetric{}, aim.AIMServiceMetricTarget{Type: "Value", Value: "ten"})
		}, field: "spec.autoScaling.metrics[0].podmetric.target.value", errType: field.ErrorTypeInvalid},
		{name: "autoscaling backend", schema: true, valid: func(s *aim.AIMService) {
			s.Spec.AutoScaling = podMetric(&aim.AIMServicePodMetric{Backend: "opentelemetry"}, aim.AIMServiceMetricTarget{Type: "Value", Value: "1"})
		}, invalid: func(s *aim.AIMService) {
			s.Spec.AutoScaling = podMetric(&aim.AIMServicePodMetric{Backend: "prometheus"}, aim.AIMServiceMetricTarget{Type: "Value", Value: "1"})
		}, field: "spec.autoScaling.metrics[0].podmetric.metric.backend", errType: field.ErrorTypeNotSupported},
		{name: "runtime config name", schema: true, valid: func(s *aim.AIMService) { s.Spec.RuntimeConfigName = "default" },
			invalid: func(s *aim.AIMService) { s.Spec.RuntimeConfigName = "Not Valid" }, field: "spec.runtimeConfigName", errType: field.ErrorTypeInvalid},
		{name: "storage headroom", schema: true, valid: func(s *aim.AIMService) { s.Spec.Storage = &aim.AIMStorageConfig{PVCHeadroomPercent: ptr.To[int32](0)} },
			invalid: func(s *aim.AIMService) { s.Spec.Storage = &aim.AIMStorageConfig{PVCHeadroomPercent: ptr.To[int32](-5)} }, field: "spec.storage.pvcHeadroomPercent", errType: field.ErrorTypeInvalid},
		{name: "storage class", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.Storage = &aim.AIMStorageConfig{DefaultStorageClassName: ptr.To("Fast SSD")}
		}, field: "spec.storage.defaultStorageClassName", errType: field.ErrorTypeInvalid},
		{name: "storage access mode", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.Storage = &aim.AIMStorageConfig{AccessModes: []corev1.PersistentVolumeAccessMode{"ReadAll"}}
		}, field: "spec.storage.accessModes[0]", errType: field.ErrorTypeNotSupported},
		{name: "routing gateway name", schema: true, valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw"}}
		},
			invalid: func(s *aim.AIMService) {
				s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{}}
			}, field: "spec.routing.gatewayRef.name", errType: field.ErrorTypeRequired},
		{name: "routing gateway port", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Port: ptr.To[int32](70000)}}
		}, field: "spec.routing.gatewayRef.port", errType: field.ErrorTypeInvalid},
		{name: "routing timeout: 0s disables it, as in aim-engine", valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{RequestTimeout: &aim.Duration{Duration: 0}}
		},
			invalid: func(s *aim.AIMService) {
				s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{RequestTimeout: &aim.Duration{Duration: -time.Second}}
			}, field: "spec.routing.requestTimeout", errType: field.ErrorTypeInvalid},
		{name: "routing path template", schema: true, valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{PathTemplate: ptr.To("/{.metadata.name}")}
		},
			invalid: func(s *aim.AIMService) { s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{PathTemplate: ptr.To(" ")} }, field: "spec.routing.pathTemplate", errType: field.ErrorTypeInvalid},
		{name: "routing annotations", invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{Annotations: map[string]string{"bad key!": "v"}}
		}, field: "spec.routing.annotations", errType: field.ErrorTypeInvalid},
		{name: "env name required", schema: true, valid: func(s *aim.AIMService) { s.Spec.Env = []corev1.EnvVar{{Name: "A", Value: "1"}} },
			invalid: func(s *aim.AIMService) { s.Spec.Env = []corev1.EnvVar{{Value: "1"}} }, field: "spec.env[0].name", errType: field.ErrorTypeRequired},
		{name: "env names unique", invalid: func(s *aim.AIMService) { s.Spec.Env = []corev1.EnvVar{{Name: "A"}, {Name: "A"}} }, field: "spec.env[1].name", errType: field.ErrorTypeDuplicate},
		{name: "env name format", schema: true, invalid: func(s *aim.AIMService) { s.Spec.Env = []corev1.EnvVar{{Name: "1=x"}} }, field: "spec.env[0].name", errType: field.ErrorTypeInvalid},
		{name: "env value xor valueFrom",
			valid: func(s *aim.AIMService) {
				s.Spec.Env = []corev1.EnvVar{{Name: "T", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k"}}}}
			},
			invalid: func(s *aim.AIMService) {
				s.Spec.Env = []corev1.EnvVar{{Name: "T", Value: "v", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k"}}}}
			}, field: "spec.env[0].valueFrom", errType: field.ErrorTypeInvalid},
		{name: "env valueFrom one source", invalid: func(s *aim.AIMService) { s.Spec.Env = []corev1.EnvVar{{Name: "T", ValueFrom: &corev1.EnvVarSource{}}} }, field: "spec.env[0].valueFrom", errType: field.ErrorTypeInvalid},
		{name: "env fileKeyRef fields required", valid: func(s *aim.AIMService) {
			s.Spec.Env = []corev1.EnvVar{{Name: "T", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "v", Path: "p.env", Key: "K"}}}}
		}, invalid: func(s *aim.AIMService) {
			s.Spec.Env = []corev1.EnvVar{{Name: "T", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "v", Key: "K"}}}}
		}, field: "spec.env[0].valueFrom.fileKeyRef.path", errType: field.ErrorTypeRequired},
		{name: "custom source env fileKeyRef", invalid: func(s *aim.AIMService) {
			src := source()
			src.Env = []corev1.EnvVar{{Name: "T", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{Path: "p", Key: "K"}}}}
			s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "repo/img:1", ModelSources: []aim.AIMModelSource{src}, Hardware: *gpuHardware()}}
		}, field: "spec.model.custom.modelSources[0].env[0].valueFrom.fileKeyRef.volumeName", errType: field.ErrorTypeRequired},
		{name: "resource claims named", valid: func(s *aim.AIMService) {
			s.Spec.Resources = &aim.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}, {Name: "nic"}}}
		}, invalid: func(s *aim.AIMService) {
			s.Spec.Resources = &aim.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}, {}}}
		}, field: "spec.resources.claims[1].name", errType: field.ErrorTypeRequired},
		{name: "resource claims unique", invalid: func(s *aim.AIMService) {
			s.Spec.Resources = &aim.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}, {Name: "gpu"}}}
		}, field: "spec.resources.claims[1].name", errType: field.ErrorTypeDuplicate},
		{name: "routing gateway group", schema: true, valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Group: ptr.To("gateway.networking.k8s.io")}}
		}, invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Group: ptr.To("Gateway_API")}}
		}, field: "spec.routing.gatewayRef.group", errType: field.ErrorTypeInvalid},
		{name: "routing gateway kind", schema: true, valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Kind: ptr.To("Gateway")}}
		}, invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Kind: ptr.To("")}}
		}, field: "spec.routing.gatewayRef.kind", errType: field.ErrorTypeInvalid},
		{name: "routing gateway kind length", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Kind: ptr.To("G" + strings.Repeat("a", 63))}}
		}, field: "spec.routing.gatewayRef.kind", errType: field.ErrorTypeTooLong},
		{name: "routing gateway section", schema: true, valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", SectionName: ptr.To("https")}}
		}, invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", SectionName: ptr.To("HTTPS")}}
		}, field: "spec.routing.gatewayRef.sectionName", errType: field.ErrorTypeInvalid},
		{name: "resources non-negative", invalid: func(s *aim.AIMService) {
			s.Spec.Resources = &aim.ResourceRequirements{Limits: aim.ResourceList{"memory": q("-1Gi")}}
		}, field: "spec.resources.limits[memory]", errType: field.ErrorTypeInvalid},
		{name: "overrides metric", schema: true, valid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Metric: ptr.To(aim.AIMMetricLatency)}
		},
			invalid: func(s *aim.AIMService) {
				s.Spec.Overrides = &aim.AIMRuntimeParameters{Metric: ptr.To(aim.AIMMetric("speed"))}
			}, field: "spec.overrides.metric", errType: field.ErrorTypeNotSupported},
		{name: "overrides precision", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Precision: ptr.To(aim.AIMPrecision("fp64"))}
		}, field: "spec.overrides.precision", errType: field.ErrorTypeNotSupported},
		{name: "hardware needs gpu or cpu", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{}}
		}, field: "spec.overrides.hardware", errType: field.ErrorTypeRequired},
		{name: "gpu requests non-negative", schema: true, invalid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{GPU: &aim.AIMGpuRequirements{Requests: -1}}}
		}, field: "spec.overrides.hardware.gpu.requests", errType: field.ErrorTypeInvalid},
		{name: "gpu model length, in characters as the schema counts", schema: true, valid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{GPU: &aim.AIMGpuRequirements{Model: strings.Repeat("é", 64)}}}
		}, invalid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{GPU: &aim.AIMGpuRequirements{Model: strings.Repeat("M", 65)}}}
		}, field: "spec.overrides.hardware.gpu.model", errType: field.ErrorTypeTooLong},
		{name: "gpu model xor minVram",
			valid: func(s *aim.AIMService) {
				s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{GPU: &aim.AIMGpuRequirements{MinVRAM: ptr.To(q("192Gi"))}}}
			},
			invalid: func(s *aim.AIMService) {
				s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{GPU: &aim.AIMGpuRequirements{Model: "MI300X", MinVRAM: ptr.To(q("192Gi"))}}}
			}, field: "spec.overrides.hardware.gpu.minVram", errType: field.ErrorTypeForbidden},
		{name: "gpu resource name", invalid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{GPU: &aim.AIMGpuRequirements{ResourceName: "amd.com/gpu!"}}}
		}, field: "spec.overrides.hardware.gpu.resourceName", errType: field.ErrorTypeInvalid},
		{name: "cpu requests required",
			valid: func(s *aim.AIMService) {
				s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{CPU: &aim.AIMCpuRequirements{Requests: q("4")}}}
			},
			invalid: func(s *aim.AIMService) {
				s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{CPU: &aim.AIMCpuRequirements{}}}
			}, field: "spec.overrides.hardware.cpu.requests", errType: field.ErrorTypeRequired},
		// 0 is written, not absent (the text is kept, D17), and aim-engine takes it.
		{name: "cpu requests of 0",
			valid: func(s *aim.AIMService) {
				s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{CPU: &aim.AIMCpuRequirements{Requests: q("0")}}}
			},
			invalid: func(s *aim.AIMService) {
				s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{CPU: &aim.AIMCpuRequirements{Requests: q("-1")}}}
			}, field: "spec.overrides.hardware.cpu.requests", errType: field.ErrorTypeInvalid},
		{name: "pull secret name", valid: func(s *aim.AIMService) { s.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}} },
			invalid: func(s *aim.AIMService) { s.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{}} }, field: "spec.imagePullSecrets[0].name", errType: field.ErrorTypeRequired},
		{name: "service account", schema: true, invalid: func(s *aim.AIMService) { s.Spec.ServiceAccountName = "Has Spaces" }, field: "spec.serviceAccountName", errType: field.ErrorTypeInvalid},
	}})
	return tables
}

func TestValidateAIMService(t *testing.T) { runTables(t, serviceTables()) }

func serviceUpdateTables() (tables []table) {
	update := func(old *aim.AIMService) func(*aim.AIMService) field.ErrorList {
		return func(obj *aim.AIMService) field.ErrorList { return ValidateAIMServiceUpdate(obj, old) }
	}
	oldWithOverrides := newService()
	oldWithOverrides.Spec.Overrides = &aim.AIMRuntimeParameters{Metric: ptr.To(aim.AIMMetricLatency)}
	base := func() *aim.AIMService { return newService() }
	baseOverrides := func() *aim.AIMService { return oldWithOverrides.DeepCopy() }
	oldWithTemplate := newService()
	oldWithTemplate.Spec.Template = &aim.AIMServiceTemplateSelector{Name: "a"}
	tables = append(tables, ruleTable[*aim.AIMService]{base: func() *aim.AIMService { return oldWithTemplate.DeepCopy() },
		validate: update(oldWithTemplate), cases: []ruleCase[*aim.AIMService]{
			{name: "template immutable once both have it", valid: func(s *aim.AIMService) { s.Spec.Template = nil },
				invalid: func(s *aim.AIMService) { s.Spec.Template.Name = "x" }, field: "spec.template", errType: field.ErrorTypeForbidden},
		}})

	tables = append(tables, ruleTable[*aim.AIMService]{base: base, validate: update(newService()), cases: []ruleCase[*aim.AIMService]{
		{name: "mutable fields change", valid: func(s *aim.AIMService) {
			s.Spec.Replicas = ptr.To[int32](3)
			s.Spec.Env = []corev1.EnvVar{{Name: "A", Value: "b"}}
			s.Spec.ServiceAccountName = "inference"
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{Enabled: ptr.To(true)}
		}, invalid: func(s *aim.AIMService) { s.Spec.Model.Name = ptr.To("other") }, field: "spec.model", errType: field.ErrorTypeForbidden},
		// aim-engine's transition rule applies only when the old and the new object have the field.
		{name: "template may be added", valid: func(s *aim.AIMService) { s.Spec.Template = &aim.AIMServiceTemplateSelector{Name: "x"} },
			invalid: func(s *aim.AIMService) { s.Spec.Caching = &aim.AIMServiceCaching{Mode: aim.AIMCachingModeDedicated} }, field: "spec.caching", errType: field.ErrorTypeForbidden},
		{name: "caching immutable", valid: func(s *aim.AIMService) { s.Spec.Caching = nil },
			invalid: func(s *aim.AIMService) { s.Spec.Caching.Mode = aim.AIMCachingModeDedicated }, field: "spec.caching", errType: field.ErrorTypeForbidden},
		{name: "overrides may be added", schema: true, valid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Metric: ptr.To(aim.AIMMetricLatency)}
		},
			invalid: func(s *aim.AIMService) { s.Spec.Replicas = ptr.To[int32](-2) }, field: "spec.replicas", errType: field.ErrorTypeInvalid},
	}})
	tables = append(tables, ruleTable[*aim.AIMService]{base: baseOverrides, validate: update(oldWithOverrides), cases: []ruleCase[*aim.AIMService]{
		{name: "override metric immutable once set", valid: func(s *aim.AIMService) { s.Spec.Overrides.Precision = ptr.To(aim.AIMPrecisionFP8) },
			invalid: func(s *aim.AIMService) { s.Spec.Overrides.Metric = ptr.To(aim.AIMMetricThroughput) }, field: "spec.overrides.metric", errType: field.ErrorTypeInvalid},
		{name: "overrides cannot be removed", invalid: func(s *aim.AIMService) { s.Spec.Overrides = nil }, field: "spec.overrides", errType: field.ErrorTypeInvalid},
	}})
	// A custom model's source env is keyed by name in aim-engine's schema: CEL's self == oldSelf ignores its order.
	oldCustom := newService()
	withEnv := source()
	withEnv.Env = []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}
	oldCustom.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "base:1", ModelSources: []aim.AIMModelSource{withEnv}, Hardware: *gpuHardware()}}
	tables = append(tables, ruleTable[*aim.AIMService]{base: func() *aim.AIMService { return oldCustom.DeepCopy() },
		validate: update(oldCustom), cases: []ruleCase[*aim.AIMService]{
			{name: "a custom model's source env reordered", valid: func(s *aim.AIMService) {
				e := s.Spec.Model.Custom.ModelSources[0].Env
				e[0], e[1] = e[1], e[0]
			}, invalid: func(s *aim.AIMService) { s.Spec.Model.Custom.ModelSources[0].Env[0].Value = "changed" },
				field: "spec.model", errType: field.ErrorTypeForbidden},
		}})
	// Overrides that set nothing may go: removing them changes nothing.
	oldWithEmptyOverrides := newService()
	oldWithEmptyOverrides.Spec.Overrides = &aim.AIMRuntimeParameters{}
	tables = append(tables, ruleTable[*aim.AIMService]{base: func() *aim.AIMService { return oldWithEmptyOverrides.DeepCopy() },
		validate: update(oldWithEmptyOverrides), cases: []ruleCase[*aim.AIMService]{
			{name: "empty overrides may be removed", schema: true, valid: func(s *aim.AIMService) { s.Spec.Overrides = nil },
				invalid: func(s *aim.AIMService) { s.Spec.Replicas = ptr.To[int32](-1) }, field: "spec.replicas", errType: field.ErrorTypeInvalid},
		}})
	return tables
}

func TestValidateAIMServiceUpdate(t *testing.T) { runTables(t, serviceUpdateTables()) }

func serviceStatusTables() (tables []table) {
	tables = append(tables, ruleTable[*aim.AIMService]{base: newService, validate: ValidateAIMServiceStatus, cases: []ruleCase[*aim.AIMService]{
		{name: "status enum", schema: true, valid: func(s *aim.AIMService) { s.Status.Status = aim.AIMStatusNotAvailable },
			invalid: func(s *aim.AIMService) { s.Status.Status = aim.AIMStatusReady }, field: "status.status", errType: field.ErrorTypeNotSupported},
		{name: "conditions", valid: func(s *aim.AIMService) {
			s.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "AllComponentsReady", LastTransitionTime: metav1.Now()}}
		}, invalid: func(s *aim.AIMService) {
			s.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: "Maybe", Reason: "X", LastTransitionTime: metav1.Now()}}
		}, field: "status.conditions[0].status", errType: field.ErrorTypeNotSupported},
		{name: "observed generation", schema: true, invalid: func(s *aim.AIMService) { s.Status.ObservedGeneration = -1 }, field: "status.observedGeneration", errType: field.ErrorTypeInvalid},
		{name: "resolved model name", schema: true, invalid: func(s *aim.AIMService) { s.Status.ResolvedModel = &aim.AIMResolvedReference{} }, field: "status.resolvedModel.name", errType: field.ErrorTypeRequired},
		{name: "cache reference scope", schema: true, valid: func(s *aim.AIMService) {
			s.Status.Cache = &aim.AIMServiceCacheStatus{TemplateCacheRef: &aim.AIMResolvedReference{Name: "c", Scope: aim.AIMResolutionScopeNamespace}}
		}, invalid: func(s *aim.AIMService) {
			s.Status.Cache = &aim.AIMServiceCacheStatus{TemplateCacheRef: &aim.AIMResolvedReference{Name: "c", Scope: "Galaxy"}}
		}, field: "status.cache.templateCacheRef.scope", errType: field.ErrorTypeNotSupported},
		{name: "candidate scope", schema: true, valid: func(s *aim.AIMService) {
			s.Status.TemplateMatching = &aim.AIMTemplateMatching{Candidates: []aim.AIMTemplateCandidate{{Name: "t", Scope: aim.AIMResolutionScopeCluster, Status: "chosen"}}}
		}, invalid: func(s *aim.AIMService) {
			s.Status.TemplateMatching = &aim.AIMTemplateMatching{Candidates: []aim.AIMTemplateCandidate{{Name: "t", Scope: "Galaxy", Status: "chosen"}}}
		}, field: "status.templateMatching.candidates[0].scope", errType: field.ErrorTypeNotSupported},
		{name: "candidate status", schema: true, invalid: func(s *aim.AIMService) {
			s.Status.TemplateMatching = &aim.AIMTemplateMatching{Candidates: []aim.AIMTemplateCandidate{{Name: "t", Status: "maybe"}}}
		}, field: "status.templateMatching.candidates[0].status", errType: field.ErrorTypeNotSupported},
	}})
	return tables
}

func TestValidateAIMServiceStatus(t *testing.T) { runTables(t, serviceStatusTables()) }

func newTemplate() *aim.AIMServiceTemplate {
	return &aim.AIMServiceTemplate{
		ObjectMeta: meta(true),
		Spec: aim.AIMServiceTemplateSpec{AIMServiceTemplateSpecCommon: aim.AIMServiceTemplateSpecCommon{
			ModelName:            "qwen3-32b",
			AIMRuntimeParameters: aim.AIMRuntimeParameters{Metric: ptr.To(aim.AIMMetricLatency), Hardware: gpuHardware()},
		}},
	}
}

func templateTables() (tables []table) {
	tables = append(tables, ruleTable[*aim.AIMServiceTemplate]{base: newTemplate, validate: ValidateAIMServiceTemplate, cases: []ruleCase[*aim.AIMServiceTemplate]{
		{name: "modelName required", schema: true, invalid: func(o *aim.AIMServiceTemplate) { o.Spec.ModelName = "" }, field: "spec.modelName", errType: field.ErrorTypeRequired},
		{name: "metric", schema: true, invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Metric = ptr.To(aim.AIMMetric("x")) }, field: "spec.metric", errType: field.ErrorTypeNotSupported},
		{name: "precision", schema: true, valid: func(o *aim.AIMServiceTemplate) { o.Spec.Precision = ptr.To(aim.AIMPrecisionBF16) },
			invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Precision = ptr.To(aim.AIMPrecision("x")) }, field: "spec.precision", errType: field.ErrorTypeNotSupported},
		{name: "hardware", schema: true, invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Hardware = &aim.AIMHardwareRequirements{} }, field: "spec.hardware", errType: field.ErrorTypeRequired},
		{name: "type", schema: true, valid: func(o *aim.AIMServiceTemplate) { o.Spec.Type = ptr.To(aim.AIMProfileTypePreview) },
			invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Type = ptr.To(aim.AIMProfileType("great")) }, field: "spec.type", errType: field.ErrorTypeNotSupported},
		{name: "model sources unique", valid: func(o *aim.AIMServiceTemplate) { o.Spec.ModelSources = []aim.AIMModelSource{source()} },
			invalid: func(o *aim.AIMServiceTemplate) { o.Spec.ModelSources = []aim.AIMModelSource{source(), source()} }, field: "spec.modelSources[1].modelId", errType: field.ErrorTypeDuplicate},
		{name: "model source size", invalid: func(o *aim.AIMServiceTemplate) {
			src := source()
			src.WeightsSize = ptr.To(aim.Quantity{Text: "-1"})
			o.Spec.ModelSources = []aim.AIMModelSource{src}
		}, field: "spec.modelSources[0].size", errType: field.ErrorTypeInvalid},
		{name: "caching env", schema: true, invalid: func(o *aim.AIMServiceTemplate) {
			o.Spec.Caching = &aim.AIMTemplateCachingConfig{Enabled: true, Env: []corev1.EnvVar{{Name: ""}}}
		}, field: "spec.caching.env[0].name", errType: field.ErrorTypeRequired},
		{name: "env", invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Env = []corev1.EnvVar{{Name: "A"}, {Name: "A"}} }, field: "spec.env[1].name", errType: field.ErrorTypeDuplicate},
		{name: "resources", invalid: func(o *aim.AIMServiceTemplate) {
			o.Spec.Resources = &aim.ResourceRequirements{Limits: aim.ResourceList{"cpu": {Text: "-1"}}}
		}, field: "spec.resources.limits[cpu]", errType: field.ErrorTypeInvalid},
	}})
	old := newTemplate()
	tables = append(tables, ruleTable[*aim.AIMServiceTemplate]{base: newTemplate, validate: func(o *aim.AIMServiceTemplate) field.ErrorList { return ValidateAIMServiceTemplateUpdate(o, old) }, cases: []ruleCase[*aim.AIMServiceTemplate]{
		{name: "modelName immutable", valid: func(o *aim.AIMServiceTemplate) { o.Spec.Precision = ptr.To(aim.AIMPrecisionFP8) },
			invalid: func(o *aim.AIMServiceTemplate) { o.Spec.ModelName = "other" }, field: "spec.modelName", errType: field.ErrorTypeInvalid},
		{name: "metric immutable once set", invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Metric = ptr.To(aim.AIMMetricThroughput) }, field: "spec.metric", errType: field.ErrorTypeInvalid},
		{name: "hardware immutable once set", invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Hardware.GPU.Requests = 2 }, field: "spec.hardware", errType: field.ErrorTypeInvalid},
	}})
	// Immutable is by amount: a quantity written another way (or stored before quantities kept their text) is
	// no change.
	withVRAM := func() *aim.AIMServiceTemplate {
		o := newTemplate()
		o.Spec.Hardware.GPU.Model, o.Spec.Hardware.GPU.MinVRAM = "", &aim.Quantity{Text: "1Gi"}
		return o
	}
	oldVRAM := withVRAM()
	tables = append(tables, ruleTable[*aim.AIMServiceTemplate]{base: withVRAM, validate: func(o *aim.AIMServiceTemplate) field.ErrorList { return ValidateAIMServiceTemplateUpdate(o, oldVRAM) }, cases: []ruleCase[*aim.AIMServiceTemplate]{
		{name: "hardware quantities by amount", valid: func(o *aim.AIMServiceTemplate) { o.Spec.Hardware.GPU.MinVRAM = &aim.Quantity{Text: "1024Mi"} },
			invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Hardware.GPU.MinVRAM = &aim.Quantity{Text: "2Gi"} }, field: "spec.hardware", errType: field.ErrorTypeInvalid},
	}})
	tables = append(tables, ruleTable[*aim.AIMServiceTemplate]{base: func() *aim.AIMServiceTemplate { return newTemplate() }, validate: func(o *aim.AIMServiceTemplate) field.ErrorList { return ValidateAIMServiceTemplateStatus(&o.Status) }, cases: []ruleCase[*aim.AIMServiceTemplate]{
		{name: "status enum", schema: true, valid: func(o *aim.AIMServiceTemplate) { o.Status.Status = aim.AIMStatusReady },
			invalid: func(o *aim.AIMServiceTemplate) { o.Status.Status = aim.AIMStatusRunning }, field: "status.status", errType: field.ErrorTypeNotSupported},
		{name: "discovery attempts", schema: true, invalid: func(o *aim.AIMServiceTemplate) { o.Status.Discovery = &aim.AIMDiscoveryState{Attempts: -1} }, field: "status.discovery.attempts", errType: field.ErrorTypeInvalid},
		{name: "discovery Job scope", schema: true, valid: func(o *aim.AIMServiceTemplate) {
			o.Status.DiscoveryJob = &aim.AIMResolvedReference{Name: "discover-x-1", Scope: aim.AIMResolutionScopeNamespace}
		}, invalid: func(o *aim.AIMServiceTemplate) {
			o.Status.DiscoveryJob = &aim.AIMResolvedReference{Name: "discover-x-1", Scope: "Bogus"}
		}, field: "status.discoveryJob.scope", errType: field.ErrorTypeNotSupported},
		{name: "resolved cache scope", schema: true, invalid: func(o *aim.AIMServiceTemplate) {
			o.Status.ResolvedCache = &aim.AIMResolvedReference{Name: "c", Scope: "Bogus"}
		}, field: "status.resolvedCache.scope", errType: field.ErrorTypeNotSupported},
		{name: "status model sources", schema: true, invalid: func(o *aim.AIMServiceTemplate) { o.Status.ModelSources = []aim.AIMModelSource{{ModelID: "x"}} }, field: "status.modelSources[0].sourceUri", errType: field.ErrorTypeRequired},
		{name: "profile metric", schema: true, valid: func(o *aim.AIMServiceTemplate) {
			o.Status.Profile = &aim.AIMProfile{Metadata: aim.AIMProfileMetadata{Metric: aim.AIMMetricLatency, Precision: aim.AIMPrecisionFP8, Type: aim.AIMProfileTypeOptimized}}
		}, invalid: func(o *aim.AIMServiceTemplate) {
			o.Status.Profile = &aim.AIMProfile{Metadata: aim.AIMProfileMetadata{Metric: "speed"}}
		}, field: "status.profile.metadata.metric", errType: field.ErrorTypeNotSupported},
		{name: "profile precision", schema: true, invalid: func(o *aim.AIMServiceTemplate) {
			o.Status.Profile = &aim.AIMProfile{Metadata: aim.AIMProfileMetadata{Precision: "fp12"}}
		}, field: "status.profile.metadata.precision", errType: field.ErrorTypeNotSupported},
		{name: "profile type", schema: true, invalid: func(o *aim.AIMServiceTemplate) {
			o.Status.Profile = &aim.AIMProfile{Metadata: aim.AIMProfileMetadata{Type: "tuned"}}
		}, field: "status.profile.metadata.type", errType: field.ErrorTypeNotSupported},
		{name: "node affinity operator", schema: true, valid: func(o *aim.AIMServiceTemplate) {
			o.Status.ResolvedNodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "amd.com/gpu.device-id", Operator: corev1.NodeSelectorOpIn, Values: []string{"74a1"}}}}}}}
		}, invalid: func(o *aim.AIMServiceTemplate) {
			o.Status.ResolvedNodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "k", Operator: "Near"}}}}}}
		}, field: "status.resolvedNodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator", errType: field.ErrorTypeNotSupported},
		{name: "node affinity key", invalid: func(o *aim.AIMServiceTemplate) {
			o.Status.ResolvedNodeAffinity = &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 1,
				Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Operator: corev1.NodeSelectorOpExists}}}}}}
		}, field: "status.resolvedNodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].key", errType: field.ErrorTypeRequired},
		{name: "node affinity terms required", schema: true, invalid: func(o *aim.AIMServiceTemplate) {
			o.Status.ResolvedNodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{}}
		}, field: "status.resolvedNodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms", errType: field.ErrorTypeRequired},
		{name: "node affinity weight", invalid: func(o *aim.AIMServiceTemplate) {
			o.Status.ResolvedNodeAffinity = &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 0}}}
		}, field: "status.resolvedNodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight", errType: field.ErrorTypeInvalid},
	}})
	return tables
}

func TestValidateAIMServiceTemplate(t *testing.T) { runTables(t, templateTables()) }

func clusterTemplateTables() (tables []table) {
	base := func() *aim.AIMClusterServiceTemplate {
		return &aim.AIMClusterServiceTemplate{ObjectMeta: meta(false), Spec: aim.AIMClusterServiceTemplateSpec{
			AIMServiceTemplateSpecCommon: aim.AIMServiceTemplateSpecCommon{ModelName: "m", AIMRuntimeParameters: aim.AIMRuntimeParameters{Precision: ptr.To(aim.AIMPrecisionFP8)}}}}
	}
	tables = append(tables, ruleTable[*aim.AIMClusterServiceTemplate]{base: base, validate: ValidateAIMClusterServiceTemplate, cases: []ruleCase[*aim.AIMClusterServiceTemplate]{
		{name: "no namespace", invalid: func(o *aim.AIMClusterServiceTemplate) { o.Namespace = "default" }, field: "metadata.namespace", errType: field.ErrorTypeForbidden},
		{name: "modelName", schema: true, invalid: func(o *aim.AIMClusterServiceTemplate) { o.Spec.ModelName = "" }, field: "spec.modelName", errType: field.ErrorTypeRequired},
	}})
	old := base()
	tables = append(tables, ruleTable[*aim.AIMClusterServiceTemplate]{base: base, validate: func(o *aim.AIMClusterServiceTemplate) field.ErrorList {
		return ValidateAIMClusterServiceTemplateUpdate(o, old)
	}, cases: []ruleCase[*aim.AIMClusterServiceTemplate]{
		{name: "precision immutable once set", valid: func(o *aim.AIMClusterServiceTemplate) { o.Spec.Metric = ptr.To(aim.AIMMetricLatency) },
			invalid: func(o *aim.AIMClusterServiceTemplate) { o.Spec.Precision = ptr.To(aim.AIMPrecisionFP16) }, field: "spec.precision", errType: field.ErrorTypeInvalid},
	}})
	return tables
}

func TestValidateAIMClusterServiceTemplate(t *testing.T) { runTables(t, clusterTemplateTables()) }

func newModel() *aim.AIMModel {
	return &aim.AIMModel{ObjectMeta: meta(true), Spec: aim.AIMModelSpec{Image: "amdenterpriseai/aim-qwen:0.8.5"}}
}

func modelTables() (tables []table) {
	tables = append(tables, ruleTable[*aim.AIMModel]{base: newModel, validate: ValidateAIMModel, cases: []ruleCase[*aim.AIMModel]{
		{name: "image required", schema: true, invalid: func(m *aim.AIMModel) { m.Spec.Image = "" }, field: "spec.image", errType: field.ErrorTypeRequired},
		{name: "default template name", schema: true, valid: func(m *aim.AIMModel) { m.Spec.DefaultServiceTemplate = "tpl" },
			invalid: func(m *aim.AIMModel) { m.Spec.DefaultServiceTemplate = "Tpl!" }, field: "spec.defaultServiceTemplate", errType: field.ErrorTypeInvalid},
		{name: "custom templates at most 16", schema: true, valid: func(m *aim.AIMModel) { m.Spec.CustomTemplates = make([]aim.AIMCustomTemplate, 16) },
			invalid: func(m *aim.AIMModel) { m.Spec.CustomTemplates = make([]aim.AIMCustomTemplate, 17) }, field: "spec.customTemplates", errType: field.ErrorTypeTooMany},
		{name: "custom template name length, in characters", schema: true, valid: func(m *aim.AIMModel) {
			m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Name: strings.Repeat("é", 63)}}
		}, invalid: func(m *aim.AIMModel) {
			m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Name: strings.Repeat("a", 64)}}
		}, field: "spec.customTemplates[0].name", errType: field.ErrorTypeTooLong},
		{name: "custom template type", schema: true, invalid: func(m *aim.AIMModel) {
			m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Type: ptr.To(aim.AIMProfileType("x"))}}
		}, field: "spec.customTemplates[0].type", errType: field.ErrorTypeNotSupported},
		{name: "custom template env at most 64", schema: true, invalid: func(m *aim.AIMModel) {
			env := make([]corev1.EnvVar, 65)
			for i := range env {
				env[i].Name = "E" + strings.Repeat("X", i)
			}
			m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Env: env}}
		}, field: "spec.customTemplates[0].env", errType: field.ErrorTypeTooMany},
		{name: "custom template profile metric", schema: true, invalid: func(m *aim.AIMModel) {
			m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Profile: &aim.AIMCustomTemplateProfile{Metric: ptr.To(aim.AIMMetric("x"))}}}
		}, field: "spec.customTemplates[0].profile.metric", errType: field.ErrorTypeNotSupported},
		{name: "custom template hardware", schema: true, invalid: func(m *aim.AIMModel) {
			m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Hardware: &aim.AIMHardwareRequirements{}}}
		}, field: "spec.customTemplates[0].hardware", errType: field.ErrorTypeRequired},
		{name: "model sources at most one", schema: true, invalid: func(m *aim.AIMModel) {
			m.Spec.Custom = &aim.AIMModelCustomConfig{Hardware: gpuHardware()}
			m.Spec.ModelSources = []aim.AIMModelSource{source(), {ModelID: "a/b", SourceURI: "s3://a/b"}}
		}, field: "spec.modelSources", errType: field.ErrorTypeTooMany},
		{name: "custom model needs hardware",
			valid: func(m *aim.AIMModel) {
				m.Spec.ModelSources = []aim.AIMModelSource{source()}
				m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Hardware: gpuHardware()}, {Hardware: gpuHardware()}}
			},
			invalid: func(m *aim.AIMModel) {
				m.Spec.ModelSources = []aim.AIMModelSource{source()}
				m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Hardware: gpuHardware()}, {}}
			}, field: "spec.custom.hardware", errType: field.ErrorTypeRequired},
		{name: "custom type", schema: true, invalid: func(m *aim.AIMModel) {
			m.Spec.Custom = &aim.AIMModelCustomConfig{Type: ptr.To(aim.AIMProfileType("x"))}
		}, field: "spec.custom.type", errType: field.ErrorTypeNotSupported},
		{name: "recommended deployment gpu count", schema: true, valid: func(m *aim.AIMModel) {
			m.Spec.ImageMetadata = &aim.ImageMetadata{Model: &aim.ModelMetadata{RecommendedDeployments: []aim.RecommendedDeployment{{GPUModel: "MI300X", GPUCount: 1, Metric: "latency", Precision: "fp8"}}}}
		}, invalid: func(m *aim.AIMModel) {
			m.Spec.ImageMetadata = &aim.ImageMetadata{Model: &aim.ModelMetadata{RecommendedDeployments: []aim.RecommendedDeployment{{GPUCount: -1}}}}
		}, field: "spec.imageMetadata.model.recommendedDeployments[0].gpuCount", errType: field.ErrorTypeInvalid},
		{name: "recommended deployment metric", schema: true, invalid: func(m *aim.AIMModel) {
			m.Spec.ImageMetadata = &aim.ImageMetadata{Model: &aim.ModelMetadata{RecommendedDeployments: []aim.RecommendedDeployment{{Metric: "fast"}}}}
		}, field: "spec.imageMetadata.model.recommendedDeployments[0].metric", errType: field.ErrorTypeNotSupported},
		{name: "service account", schema: true, invalid: func(m *aim.AIMModel) { m.Spec.ServiceAccountName = "A B" }, field: "spec.serviceAccountName", errType: field.ErrorTypeInvalid},
	}})
	tables = append(tables, ruleTable[*aim.AIMModel]{base: newModel, validate: func(m *aim.AIMModel) field.ErrorList { return ValidateAIMModelStatus(&m.Status) }, cases: []ruleCase[*aim.AIMModel]{
		{name: "source type", schema: true, valid: func(m *aim.AIMModel) { m.Status.SourceType = aim.AIMModelSourceTypeCustom },
			invalid: func(m *aim.AIMModel) { m.Status.SourceType = "Registry" }, field: "status.sourceType", errType: field.ErrorTypeNotSupported},
	}})
	return tables
}

func TestValidateAIMModel(t *testing.T) { runTables(t, modelTables()) }

func clusterModelTables() (tables []table) {
	base := func() *aim.AIMClusterModel {
		return &aim.AIMClusterModel{ObjectMeta: meta(false), Spec: newModel().Spec}
	}
	old := base()
	tables = append(tables, ruleTable[*aim.AIMClusterModel]{base: base, validate: func(m *aim.AIMClusterModel) field.ErrorList { return ValidateAIMClusterModelUpdate(m, old) }, cases: []ruleCase[*aim.AIMClusterModel]{
		{name: "image may change but not be empty", schema: true, valid: func(m *aim.AIMClusterModel) { m.Spec.Image = "repo/new:1" },
			invalid: func(m *aim.AIMClusterModel) { m.Spec.Image = " " }, field: "spec.image", errType: field.ErrorTypeRequired},
	}})
	return tables
}

func TestValidateAIMClusterModel(t *testing.T) { runTables(t, clusterModelTables()) }

func runtimeConfigTables() (tables []table) {
	base := func() *aim.AIMRuntimeConfig { return &aim.AIMRuntimeConfig{ObjectMeta: meta(true)} }
	tables = append(tables, ruleTable[*aim.AIMRuntimeConfig]{base: base, validate: ValidateAIMRuntimeConfig, cases: []ruleCase[*aim.AIMRuntimeConfig]{
		{name: "label glob", valid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.LabelPropagation = &aim.AIMLabelPropagationConfig{Match: []string{"team/*"}}
		},
			invalid: func(c *aim.AIMRuntimeConfig) {
				c.Spec.LabelPropagation = &aim.AIMLabelPropagationConfig{Match: []string{"team[/*"}}
			}, field: "spec.labelPropagation.match[0]", errType: field.ErrorTypeInvalid},
		{name: "toleration operator", schema: true, valid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Scheduling = &aim.AIMSchedulingConfig{Tolerations: []corev1.Toleration{{Key: "amd.com/gpu", Operator: "Exists", Effect: "NoSchedule"}}}
		}, invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Scheduling = &aim.AIMSchedulingConfig{Tolerations: []corev1.Toleration{{Key: "amd.com/gpu", Operator: "Matches"}}}
		}, field: "spec.scheduling.tolerations[0].operator", errType: field.ErrorTypeNotSupported},
		{name: "toleration exists has no value", invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Scheduling = &aim.AIMSchedulingConfig{Tolerations: []corev1.Toleration{{Key: "k", Operator: "Exists", Value: "v"}}}
		}, field: "spec.scheduling.tolerations[0].value", errType: field.ErrorTypeInvalid},
		{name: "toleration effect", schema: true, invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Scheduling = &aim.AIMSchedulingConfig{Tolerations: []corev1.Toleration{{Key: "k", Operator: "Equal", Value: "v", Effect: "Never"}}}
		}, field: "spec.scheduling.tolerations[0].effect", errType: field.ErrorTypeNotSupported},
		{name: "toleration empty key needs Exists", invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Scheduling = &aim.AIMSchedulingConfig{Tolerations: []corev1.Toleration{{Operator: "Equal"}}}
		}, field: "spec.scheduling.tolerations[0].operator", errType: field.ErrorTypeInvalid},
		{name: "node selector", valid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Scheduling = &aim.AIMSchedulingConfig{NodeSelector: map[string]string{"pool": "gpu"}}
		},
			invalid: func(c *aim.AIMRuntimeConfig) {
				c.Spec.Scheduling = &aim.AIMSchedulingConfig{NodeSelector: map[string]string{"pool": "gpu pool"}}
			}, field: "spec.scheduling.nodeSelector", errType: field.ErrorTypeInvalid},
		{name: "priority class", schema: true, invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Scheduling = &aim.AIMSchedulingConfig{PriorityClassName: ptr.To("")}
		}, field: "spec.scheduling.priorityClassName", errType: field.ErrorTypeRequired},
		{name: "max concurrent jobs", schema: true, valid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Discovery = &aim.AIMDiscoveryConfig{MaxConcurrentJobs: ptr.To[int32](1)}
		},
			invalid: func(c *aim.AIMRuntimeConfig) {
				c.Spec.Discovery = &aim.AIMDiscoveryConfig{MaxConcurrentJobs: ptr.To[int32](0)}
			}, field: "spec.discovery.maxConcurrentJobs", errType: field.ErrorTypeInvalid},
		{name: "discovery service account", schema: true, invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Discovery = &aim.AIMDiscoveryConfig{ServiceAccountName: ptr.To("Bad")}
		}, field: "spec.discovery.serviceAccountName", errType: field.ErrorTypeInvalid},
		{name: "legacy headroom", schema: true, invalid: func(c *aim.AIMRuntimeConfig) { c.Spec.PVCHeadroomPercent = ptr.To[int32](-1) }, field: "spec.pvcHeadroomPercent", errType: field.ErrorTypeInvalid},
		{name: "storage", schema: true, invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Storage = &aim.AIMStorageConfig{AccessModes: []corev1.PersistentVolumeAccessMode{"Shared"}}
		}, field: "spec.storage.accessModes[0]", errType: field.ErrorTypeNotSupported},
		{name: "routing", schema: true, invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Namespace: ptr.To("Bad_NS")}}
		}, field: "spec.routing.gatewayRef.namespace", errType: field.ErrorTypeInvalid},
		{name: "env", schema: true, invalid: func(c *aim.AIMRuntimeConfig) { c.Spec.Env = []corev1.EnvVar{{}} }, field: "spec.env[0].name", errType: field.ErrorTypeRequired},
	}})
	cluster := func() *aim.AIMClusterRuntimeConfig { return &aim.AIMClusterRuntimeConfig{ObjectMeta: meta(false)} }
	tables = append(tables, ruleTable[*aim.AIMClusterRuntimeConfig]{base: cluster, validate: ValidateAIMClusterRuntimeConfig, cases: []ruleCase[*aim.AIMClusterRuntimeConfig]{
		{name: "storage class", schema: true, valid: func(c *aim.AIMClusterRuntimeConfig) { c.Spec.DefaultStorageClassName = "fast" },
			invalid: func(c *aim.AIMClusterRuntimeConfig) { c.Spec.DefaultStorageClassName = "Fast!" }, field: "spec.defaultStorageClassName", errType: field.ErrorTypeInvalid},
	}})
	tables = append(tables, ruleTable[*aim.AIMClusterRuntimeConfig]{base: cluster, validate: func(c *aim.AIMClusterRuntimeConfig) field.ErrorList { return ValidateAIMRuntimeConfigStatus(&c.Status) }, cases: []ruleCase[*aim.AIMClusterRuntimeConfig]{
		{name: "consumers", schema: true, valid: func(c *aim.AIMClusterRuntimeConfig) { c.Status.Consumers = 3 },
			invalid: func(c *aim.AIMClusterRuntimeConfig) { c.Status.Consumers = -3 }, field: "status.consumers", errType: field.ErrorTypeInvalid},
	}})
	return tables
}

func TestValidateRuntimeConfigs(t *testing.T) { runTables(t, runtimeConfigTables()) }

func templateCacheTables() (tables []table) {
	base := func() *aim.AIMTemplateCache {
		return &aim.AIMTemplateCache{ObjectMeta: meta(true), Spec: aim.AIMTemplateCacheSpec{TemplateName: "tpl",
			TemplateScope: aim.AIMTemplateScopeNamespace, Mode: aim.AIMTemplateCacheModeShared}}
	}
	tables = append(tables, ruleTable[*aim.AIMTemplateCache]{base: base, validate: ValidateAIMTemplateCache, cases: []ruleCase[*aim.AIMTemplateCache]{
		{name: "template name", schema: true, invalid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateName = "" }, field: "spec.templateName", errType: field.ErrorTypeRequired},
		{name: "scope required", valid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = aim.AIMTemplateScopeUnknown },
			invalid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = "" }, field: "spec.templateScope", errType: field.ErrorTypeRequired},
		{name: "scope", schema: true, valid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = aim.AIMTemplateScopeCluster },
			invalid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = "Global" }, field: "spec.templateScope", errType: field.ErrorTypeNotSupported},
		{name: "mode", schema: true, valid: func(c *aim.AIMTemplateCache) { c.Spec.Mode = aim.AIMTemplateCacheModeDedicated },
			invalid: func(c *aim.AIMTemplateCache) { c.Spec.Mode = "Never" }, field: "spec.mode", errType: field.ErrorTypeNotSupported},
		{name: "download image", schema: true, invalid: func(c *aim.AIMTemplateCache) { c.Spec.DownloadImage = "a b" }, field: "spec.downloadImage", errType: field.ErrorTypeInvalid},
		{name: "storage class", schema: true, invalid: func(c *aim.AIMTemplateCache) { c.Spec.StorageClassName = "A" }, field: "spec.storageClassName", errType: field.ErrorTypeInvalid},
	}})
	unscoped := base()
	unscoped.Spec.TemplateScope = ""
	tables = append(tables, ruleTable[*aim.AIMTemplateCache]{base: base, validate: func(c *aim.AIMTemplateCache) field.ErrorList { return ValidateAIMTemplateCacheUpdate(c, unscoped) }, cases: []ruleCase[*aim.AIMTemplateCache]{
		{name: "a cache stored without scope may stay so", schema: true, valid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = "" },
			invalid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = "Galaxy" }, field: "spec.templateScope", errType: field.ErrorTypeNotSupported},
	}})
	tables = append(tables, ruleTable[*aim.AIMTemplateCache]{base: base, validate: ValidateAIMTemplateCacheStatus, cases: []ruleCase[*aim.AIMTemplateCache]{
		{name: "artifact status", schema: true, valid: func(c *aim.AIMTemplateCache) {
			c.Status.Artifacts = map[string]aim.AIMTemplateCacheArtifactStatus{"a": {UID: "u", Name: "a", Model: "org/m", Status: aim.AIMStatusReady}}
		}, invalid: func(c *aim.AIMTemplateCache) {
			c.Status.Artifacts = map[string]aim.AIMTemplateCacheArtifactStatus{"a": {UID: "u", Name: "a", Model: "org/m", Status: "Done"}}
		}, field: "status.artifacts[a].status", errType: field.ErrorTypeNotSupported},
		{name: "artifact entry fields required", schema: true, valid: func(c *aim.AIMTemplateCache) {
			c.Status.Artifacts = map[string]aim.AIMTemplateCacheArtifactStatus{"a": {UID: "u", Name: "a", Model: "org/m", Status: aim.AIMStatusPending}}
		}, invalid: func(c *aim.AIMTemplateCache) {
			c.Status.Artifacts = map[string]aim.AIMTemplateCacheArtifactStatus{"a": {Name: "a", Model: "org/m", Status: aim.AIMStatusPending}}
		}, field: "status.artifacts[a].uid", errType: field.ErrorTypeRequired},
	}})
	return tables
}

func TestValidateAIMTemplateCache(t *testing.T) { runTables(t, templateCacheTables()) }

func artifactTables() (tables []table) {
	base := func() *aim.AIMArtifact {
		return &aim.AIMArtifact{ObjectMeta: meta(true), Spec: aim.AIMArtifactSpec{SourceURI: "s3://bucket/model", ModelID: "org/model"}}
	}
	tables = append(tables, ruleTable[*aim.AIMArtifact]{base: base, validate: ValidateAIMArtifact, cases: []ruleCase[*aim.AIMArtifact]{
		{name: "source uri required", schema: true, invalid: func(a *aim.AIMArtifact) { a.Spec.SourceURI = "" }, field: "spec.sourceUri", errType: field.ErrorTypeRequired},
		{name: "source uri pattern", schema: true, valid: func(a *aim.AIMArtifact) { a.Spec.SourceURI = "hf://org/model" },
			invalid: func(a *aim.AIMArtifact) { a.Spec.SourceURI = "hf://org/mo del" }, field: "spec.sourceUri", errType: field.ErrorTypeInvalid},
		{name: "model id pattern", schema: true, invalid: func(a *aim.AIMArtifact) { a.Spec.ModelID = "a/b/c" }, field: "spec.modelId", errType: field.ErrorTypeInvalid},
		{name: "size", valid: func(a *aim.AIMArtifact) { a.Spec.WeightsSize = ptr.To(aim.Quantity{Text: "10Gi"}) },
			invalid: func(a *aim.AIMArtifact) { a.Spec.WeightsSize = ptr.To(aim.Quantity{Text: "-10Gi"}) }, field: "spec.size", errType: field.ErrorTypeInvalid},
	}})
	old := base()
	tables = append(tables, ruleTable[*aim.AIMArtifact]{base: base, validate: func(a *aim.AIMArtifact) field.ErrorList { return ValidateAIMArtifactUpdate(a, old) }, cases: []ruleCase[*aim.AIMArtifact]{
		{name: "source uri immutable", valid: func(a *aim.AIMArtifact) { a.Spec.StorageClassName = "fast" },
			invalid: func(a *aim.AIMArtifact) { a.Spec.SourceURI = "s3://bucket/other" }, field: "spec.sourceUri", errType: field.ErrorTypeInvalid},
	}})
	tables = append(tables, ruleTable[*aim.AIMArtifact]{base: base, validate: ValidateAIMArtifactStatus, cases: []ruleCase[*aim.AIMArtifact]{
		{name: "percentage", schema: true, valid: func(a *aim.AIMArtifact) { a.Status.Progress = &aim.AIMDownloadProgress{Percentage: 100} },
			invalid: func(a *aim.AIMArtifact) { a.Status.Progress = &aim.AIMDownloadProgress{Percentage: 101} }, field: "status.progress.percentage", errType: field.ErrorTypeInvalid},
		{name: "mode", schema: true, invalid: func(a *aim.AIMArtifact) { a.Status.Mode = "Private" }, field: "status.mode", errType: field.ErrorTypeNotSupported},
	}})
	return tables
}

func TestValidateAIMArtifact(t *testing.T) { runTables(t, artifactTables()) }

func modelSourceTables() (tables []table) {
	base := func() *aim.AIMClusterModelSource {
		return &aim.AIMClusterModelSource{ObjectMeta: meta(false), Spec: aim.AIMClusterModelSourceSpec{
			Registry: "docker.io", Filters: []aim.AIMModelSourceFilter{{Image: "amdenterpriseai/aim-*"}}, MaxModels: ptr.To[int32](100),
		}}
	}
	tables = append(tables, ruleTable[*aim.AIMClusterModelSource]{base: base, validate: ValidateAIMClusterModelSource, cases: []ruleCase[*aim.AIMClusterModelSource]{
		{name: "filters required", schema: true, invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters = nil }, field: "spec.filters", errType: field.ErrorTypeRequired},
		{name: "filters at most 100", schema: true, valid: func(s *aim.AIMClusterModelSource) {
			s.Spec.Filters = make([]aim.AIMModelSourceFilter, 100)
			for i := range s.Spec.Filters {
				s.Spec.Filters[i].Image = "org/repo"
			}
		}, invalid: func(s *aim.AIMClusterModelSource) {
			s.Spec.Filters = make([]aim.AIMModelSourceFilter, 101)
			for i := range s.Spec.Filters {
				s.Spec.Filters[i].Image = "org/repo"
			}
		}, field: "spec.filters", errType: field.ErrorTypeTooMany},
		{name: "filter image required", schema: true, invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Image = "" }, field: "spec.filters[0].image", errType: field.ErrorTypeRequired},
		{name: "filter image pattern", schema: true, valid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Image = "ghcr.io:443/amd/aim-*:0.8.*" },
			invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Image = "Amd Enterprise/aim" }, field: "spec.filters[0].image", errType: field.ErrorTypeInvalid},
		{name: "filter image length", schema: true, invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Image = strings.Repeat("a", 513) }, field: "spec.filters[0].image", errType: field.ErrorTypeTooLong},
		{name: "exclude entries", schema: true, invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Exclude = []string{""} }, field: "spec.filters[0].exclude[0]", errType: field.ErrorTypeRequired},
		{name: "max models range", schema: true, valid: func(s *aim.AIMClusterModelSource) { s.Spec.MaxModels = ptr.To[int32](10000) },
			invalid: func(s *aim.AIMClusterModelSource) { s.Spec.MaxModels = ptr.To[int32](10001) }, field: "spec.maxModels", errType: field.ErrorTypeInvalid},
		{name: "max models at least 1", schema: true, invalid: func(s *aim.AIMClusterModelSource) { s.Spec.MaxModels = ptr.To[int32](0) }, field: "spec.maxModels", errType: field.ErrorTypeInvalid},
		// 0s is the default interval, as aim-engine reads it.
		{name: "sync interval", valid: func(s *aim.AIMClusterModelSource) { s.Spec.SyncInterval = &aim.Duration{} },
			invalid: func(s *aim.AIMClusterModelSource) { s.Spec.SyncInterval = &aim.Duration{Duration: -time.Hour} }, field: "spec.syncInterval", errType: field.ErrorTypeInvalid},
		{name: "registry", schema: true, valid: func(s *aim.AIMClusterModelSource) { s.Spec.Registry = "registry.example.com:5000" },
			invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Registry = "https://docker.io" }, field: "spec.registry", errType: field.ErrorTypeInvalid},
	}})
	tables = append(tables, ruleTable[*aim.AIMClusterModelSource]{base: base, validate: ValidateAIMClusterModelSourceStatus, cases: []ruleCase[*aim.AIMClusterModelSource]{
		{name: "discovered models", schema: true, valid: func(s *aim.AIMClusterModelSource) { s.Status.DiscoveredModels = 2 },
			invalid: func(s *aim.AIMClusterModelSource) { s.Status.DiscoveredModels = -2 }, field: "status.discoveredModels", errType: field.ErrorTypeInvalid},
	}})
	return tables
}

func TestValidateAIMClusterModelSource(t *testing.T) { runTables(t, modelSourceTables()) }

// TestModelSourceVersionsAcceptedWithAdvice: aim-engine's schema accepts any versions entry and its controller
// ignores one that does not parse, so every entry is stored, and each ignored one is warned about by its field.
func TestModelSourceVersionsAcceptedWithAdvice(t *testing.T) {
	s := &aim.AIMClusterModelSource{ObjectMeta: meta(false), Spec: aim.AIMClusterModelSourceSpec{
		Registry: "docker.io", MaxModels: ptr.To[int32](100), Versions: []string{">=0.9", "latest"},
		Filters: []aim.AIMModelSourceFilter{
			{Image: "amdenterpriseai/aim-*", Versions: []string{"~0.8", ">=0.8.0 <1.0.0", ">=0.8.0, <1.0.0"}},
			{Image: "amdenterpriseai/aim-qwen", Versions: []string{"0.8.x || ^1.0.0", ">>1", "1.0.0 || >=2.0.0"}},
		},
	}}
	if errs := ValidateAIMClusterModelSource(s); len(errs) != 0 {
		t.Errorf("refused: %v", errs)
	}
	if errs := ValidateAIMClusterModelSourceUpdate(s, s); len(errs) != 0 {
		t.Errorf("update refused: %v", errs)
	}
	var fields []string
	for _, w := range ModelSourceAdvice(&s.Spec) {
		fields = append(fields, w[:strings.Index(w, ":")])
	}
	want := []string{"spec.filters[0].versions[0]", "spec.filters[0].versions[2]", "spec.filters[1].versions[0]",
		"spec.filters[1].versions[1]", "spec.versions[1]"}
	if !slices.Equal(fields, want) {
		t.Errorf("advice on %v, want %v", fields, want)
	}
}

// TestVersionRange: aim-engine's reading of a versions entry (filtering.go normalizeConstraint and
// blang/semver's ParseRange).
func TestVersionRange(t *testing.T) {
	for _, tc := range []struct {
		constraint, version string
		want, parses        bool
	}{
		{">=0.9", "0.9.0", true, true}, // a one-dot version gets its patch
		{"<0.9", "0.8.9", true, true},
		{"<0.9", "0.9.0", false, true},
		{"0.9", "0.9.0", true, true},
		{">=0.8.0", "0.8.1-rc1", true, true}, // a prerelease is an ordinary version
		{">=0.8.0 <1.0.0", "1.0.0", false, true},
		{"<1.0.0 || >=2.0.0", "2.1.0", true, true},
		{"0.8.x", "0.8.7", true, true},
		{">=0.8 <1.0", "", false, false}, // two dots from the first digit on: no patch is added
		{"~0.8", "", false, false},
		{"^1.0.0", "", false, false},
		{">=0.8.0, <1.0.0", "", false, false},
		{"latest", "", false, false},
		{"", "", false, false},
	} {
		r, err := VersionRange(tc.constraint)
		if (err == nil) != tc.parses {
			t.Errorf("%q: err %v, want parses=%v", tc.constraint, err, tc.parses)
			continue
		}
		if err == nil && r(semver.MustParse(tc.version)) != tc.want {
			t.Errorf("%q on %s: want %v", tc.constraint, tc.version, tc.want)
		}
	}
}

// TestMaxLengthCountsCharacters: the schema's maxLength counts characters, and the error says so (field.TooLong
// says bytes): 64 two-byte characters are a valid GPU model, 65 are one too many.
func TestMaxLengthCountsCharacters(t *testing.T) {
	p := field.NewPath("spec", "hardware", "gpu", "model")
	if errs := validateMaxLength(strings.Repeat("é", 64), 64, p); len(errs) != 0 {
		t.Errorf("64 characters (128 bytes): %v", errs)
	}
	errs := validateMaxLength(strings.Repeat("é", 65), 64, p)
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeTooLong || errs[0].Error() != "spec.hardware.gpu.model: Too long: may not be more than 64 characters" {
		t.Errorf("65 characters: %v", errs)
	}
}

// adviceFields are the fields warnings name, in order.
func adviceFields(ws []string) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w[:strings.Index(w, ":")])
	}
	return out
}

// TestServiceAdviceOfWhatIsNotRead: a service's warnings say what the controller makes of the replica fields
// (kserve.ScaleOf) and of its storage, and say nothing of a value the defaults put there: advice is given on the
// defaulted object, and aim-engine's own autoscaling example (minReplicas and maxReplicas, no replicas) must not
// be told that its replicas are not read.
func TestServiceAdviceOfWhatIsNotRead(t *testing.T) {
	autoScaling := &aim.AIMServiceAutoScaling{}
	defaulted := ptr.To(aim.DefaultReplicas)
	for _, tc := range []struct {
		name string
		spec aim.AIMServiceSpec
		want []string
	}{
		{"fixed replicas", aim.AIMServiceSpec{Replicas: ptr.To[int32](3)}, nil},
		{"a range, replicas defaulted", aim.AIMServiceSpec{Replicas: defaulted, MinReplicas: ptr.To[int32](1), MaxReplicas: ptr.To[int32](4), AutoScaling: autoScaling}, nil},
		{"autoScaling alone", aim.AIMServiceSpec{Replicas: defaulted, AutoScaling: autoScaling}, []string{"spec.autoScaling"}},
		{"replicas beside autoScaling", aim.AIMServiceSpec{Replicas: ptr.To[int32](3), AutoScaling: autoScaling}, []string{"spec.autoScaling", "spec.replicas"}},
		{"replicas beside maxReplicas", aim.AIMServiceSpec{Replicas: ptr.To[int32](3), MaxReplicas: ptr.To[int32](4)}, []string{"spec.replicas"}},
		{"a range upside down", aim.AIMServiceSpec{Replicas: defaulted, MinReplicas: ptr.To[int32](3), MaxReplicas: ptr.To[int32](2)}, []string{"spec.maxReplicas"}},
		{"storage class", aim.AIMServiceSpec{Storage: &aim.AIMStorageConfig{DefaultStorageClassName: ptr.To("fast"),
			PVCHeadroomPercent: ptr.To(aim.DefaultPVCHeadroomPercent)}}, nil},
		{"storage headroom and access modes", aim.AIMServiceSpec{Storage: &aim.AIMStorageConfig{PVCHeadroomPercent: ptr.To[int32](50),
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}, []string{"spec.storage.pvcHeadroomPercent", "spec.storage.accessModes"}},
		{"legacy caching mode", aim.AIMServiceSpec{Caching: &aim.AIMServiceCaching{Mode: aim.AIMCachingModeNever}}, []string{"spec.caching.mode"}},
		{"cacheModel", aim.AIMServiceSpec{CacheModel: ptr.To(false)}, []string{"spec.cacheModel"}},
	} {
		if got := adviceFields(ServiceAdvice(&tc.spec)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: advice on %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestAdviceOfResourcesBesideTheGPUDefaults: where the GPU count is known at admission (a template's
// hardware.gpu, a service's custom model), half a request/limit pair below or above the per-GPU default beside it
// is a pod kube-apiserver refuses; a pair within them, or resources of an unknown count, draw nothing.
func TestAdviceOfResourcesBesideTheGPUDefaults(t *testing.T) {
	q := func(s string) aim.Quantity { return aim.Quantity{Text: s} }
	res := func(requests, limits aim.ResourceList) *aim.ResourceRequirements {
		return &aim.ResourceRequirements{Requests: requests, Limits: limits}
	}
	template := func(gpus int32, r *aim.ResourceRequirements) *aim.AIMServiceTemplateSpecCommon {
		spec := &aim.AIMServiceTemplateSpecCommon{ModelName: "m"}
		if gpus > 0 {
			spec.Hardware = &aim.AIMHardwareRequirements{GPU: &aim.AIMGpuRequirements{Requests: gpus}}
		}
		spec.Resources = r
		return spec
	}
	for _, tc := range []struct {
		name string
		spec *aim.AIMServiceTemplateSpecCommon
		want []string
	}{
		{"a memory limit below 32Gi a GPU", template(1, res(nil, aim.ResourceList{"memory": q("16Gi")})), []string{"spec.resources.limits[memory]"}},
		{"a CPU limit below 4 a GPU", template(2, res(nil, aim.ResourceList{"cpu": q("6")})), []string{"spec.resources.limits[cpu]"}},
		{"a memory request above 48Gi a GPU", template(2, res(aim.ResourceList{"memory": q("100Gi")}, nil)), []string{"spec.resources.requests[memory]"}},
		{"a memory limit above the default request", template(1, res(nil, aim.ResourceList{"memory": q("64Gi")})), nil},
		{"a memory request below the default limit", template(1, res(aim.ResourceList{"memory": q("40Gi")}, nil)), nil},
		{"both halves written", template(1, res(aim.ResourceList{"memory": q("8Gi")}, aim.ResourceList{"memory": q("16Gi")})), nil},
		{"no GPU count", template(0, res(nil, aim.ResourceList{"memory": q("16Gi")})), nil},
	} {
		if got := adviceFields(TemplateAdvice(tc.spec)); !slices.Equal(got, tc.want) {
			t.Errorf("template, %s: advice on %v, want %v", tc.name, got, tc.want)
		}
	}
	custom := func(cpu *aim.AIMCpuRequirements, r *aim.ResourceRequirements) *aim.AIMServiceSpec {
		return &aim.AIMServiceSpec{Model: aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "b",
			Hardware: aim.AIMHardwareRequirements{GPU: &aim.AIMGpuRequirements{Requests: 1}, CPU: cpu}}}, Resources: r}
	}
	limits := res(nil, aim.ResourceList{"cpu": q("2"), "memory": q("8Gi")})
	if got := adviceFields(ServiceAdvice(custom(nil, limits))); !slices.Equal(got, []string{"spec.resources.limits[cpu]", "spec.resources.limits[memory]"}) {
		t.Errorf("a custom model's service: advice on %v", got)
	}
	// The custom model's CPU is its template's CPU request: the default is not beside the service's limit then.
	if got := adviceFields(ServiceAdvice(custom(&aim.AIMCpuRequirements{Requests: q("1")}, limits))); !slices.Equal(got, []string{"spec.resources.limits[memory]"}) {
		t.Errorf("a custom model with CPU: advice on %v", got)
	}
	if got := ServiceAdvice(&aim.AIMServiceSpec{Resources: limits}); len(got) != 0 {
		t.Errorf("a service of an unknown GPU count: advice %q", got)
	}
	// Overridden hardware sets the GPU count of the derived template the pods run on.
	overridden := custom(nil, res(aim.ResourceList{"memory": q("60Gi")}, nil))
	overridden.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{GPU: &aim.AIMGpuRequirements{Requests: 2}}}
	if got := ServiceAdvice(overridden); len(got) != 0 {
		t.Errorf("a custom model's service with overridden hardware: advice %q", got)
	}
}

// TestAdviceSaysWhatRuns: the warnings of CPU fields say where CPU reaches the pods (a template's resources, which a
// model writes from its custom hardware), and the warnings of a service's changes fire only where what runs changes.
func TestAdviceSaysWhatRuns(t *testing.T) {
	cpu := &aim.AIMHardwareRequirements{CPU: &aim.AIMCpuRequirements{Requests: aim.Quantity{Text: "4"}}}
	if got := adviceFields(TemplateAdvice(&aim.AIMServiceTemplateSpecCommon{ModelName: "m", AIMRuntimeParameters: aim.AIMRuntimeParameters{Hardware: cpu}})); !slices.Equal(got, []string{"spec.hardware.cpu"}) {
		t.Errorf("a template's hardware.cpu without resources: advice on %v", got)
	}
	withResources := &aim.AIMServiceTemplateSpecCommon{ModelName: "m", AIMRuntimeParameters: aim.AIMRuntimeParameters{Hardware: cpu},
		Resources: &aim.ResourceRequirements{Requests: aim.ResourceList{"cpu": aim.Quantity{Text: "4"}}}}
	if got := TemplateAdvice(withResources); len(got) != 0 {
		t.Errorf("a template whose resources carry the CPU (as a model writes them): %q", got)
	}
	if got := adviceFields(ServiceAdvice(&aim.AIMServiceSpec{Overrides: &aim.AIMRuntimeParameters{Hardware: cpu}})); !slices.Equal(got, []string{"spec.overrides.hardware.cpu"}) {
		t.Errorf("overrides.hardware.cpu: advice on %v", got)
	}
	if got := adviceFields(ModelAdvice(&aim.AIMModelSpec{Image: "r/m:1", Resources: &aim.ResourceRequirements{Limits: aim.ResourceList{"memory": aim.Quantity{Text: "1Gi"}}}})); !slices.Equal(got, []string{"spec.resources"}) {
		t.Errorf("a model's resources: advice on %v", got)
	}
	if got := ModelAdvice(&aim.AIMModelSpec{Image: "r/m:1", Resources: &aim.ResourceRequirements{}}); len(got) != 0 {
		t.Errorf("a model's empty resources (as a service writes them): %q", got)
	}
	// A custom template's CPU merged over the model's: the template's request over the model's limit.
	merged := &aim.AIMModelSpec{Image: "r/m:1", Custom: &aim.AIMModelCustomConfig{Hardware: &aim.AIMHardwareRequirements{
		CPU: &aim.AIMCpuRequirements{Requests: aim.Quantity{Text: "2"}, Limits: &aim.Quantity{Text: "4"}}}},
		CustomTemplates: []aim.AIMCustomTemplate{{Hardware: &aim.AIMHardwareRequirements{CPU: &aim.AIMCpuRequirements{Requests: aim.Quantity{Text: "8"}}}}}}
	if got := adviceFields(ModelAdvice(merged)); !slices.Equal(got, []string{"spec.customTemplates[0].hardware.cpu.requests"}) {
		t.Errorf("a custom template's request over the model's limit: advice on %v", got)
	}
	// A GPU cannot be overcommitted: a request other than the limit is refused; CPU may be.
	gpu := &aim.AIMServiceSpec{Resources: &aim.ResourceRequirements{Requests: aim.ResourceList{"amd.com/gpu": aim.Quantity{Text: "1"}, "cpu": aim.Quantity{Text: "1"}},
		Limits: aim.ResourceList{"amd.com/gpu": aim.Quantity{Text: "2"}, "cpu": aim.Quantity{Text: "2"}}}}
	if got := adviceFields(ServiceAdvice(gpu)); !slices.Equal(got, []string{"spec.resources.requests[amd.com/gpu]"}) {
		t.Errorf("a GPU request below its limit: advice on %v", got)
	}
	named, nameless := &aim.AIMServiceSpec{Template: &aim.AIMServiceTemplateSelector{Name: "t"}}, &aim.AIMServiceSpec{Template: &aim.AIMServiceTemplateSelector{AllowUnoptimized: true}}
	for _, tc := range []struct {
		name      string
		spec, old *aim.AIMServiceSpec
		want      []string
	}{
		{"a template named", named, &aim.AIMServiceSpec{}, []string{"spec.template.name"}},
		{"a named template removed", &aim.AIMServiceSpec{}, named, []string{"spec.template.name"}},
		{"allowUnoptimized added", nameless, &aim.AIMServiceSpec{}, nil},
		{"caching Shared added", &aim.AIMServiceSpec{Caching: &aim.AIMServiceCaching{Mode: aim.AIMCachingModeShared}}, &aim.AIMServiceSpec{}, nil},
		{"caching Never added", &aim.AIMServiceSpec{Caching: &aim.AIMServiceCaching{Mode: aim.AIMCachingModeNever}}, &aim.AIMServiceSpec{}, []string{"spec.caching"}},
	} {
		if got := adviceFields(ServiceUpdateAdvice(tc.spec, tc.old)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: advice on %v, want %v", tc.name, got, tc.want)
		}
	}
}
