package validation

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// ruleCase is one validation rule: mutate a valid object into an invalid one and name the field that must be
// reported. Every rule also has a valid variant (valid), checked to produce no error, so that a rule which
// rejects everything fails too.
type ruleCase[T any] struct {
	name    string
	valid   func(T) // optional: a valid use of the same field
	invalid func(T)
	field   string
	errType field.ErrorType
}

func runRules[T any](t *testing.T, base func() T, validate func(T) field.ErrorList, cases []ruleCase[T]) {
	t.Helper()
	if errs := validate(base()); len(errs) != 0 {
		t.Fatalf("base object is invalid: %v", errs)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.valid != nil {
				obj := base()
				tc.valid(obj)
				if errs := validate(obj); len(errs) != 0 {
					t.Errorf("valid variant rejected: %v", errs)
				}
			}
			obj := base()
			tc.invalid(obj)
			errs := validate(obj)
			if !hasError(errs, tc.field, tc.errType) {
				t.Errorf("want %s error on %s, got %v", tc.errType, tc.field, errs)
			}
		})
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

func TestValidateAIMService(t *testing.T) {
	q := resource.MustParse
	runRules(t, newService, ValidateAIMService, []ruleCase[*aim.AIMService]{
		{name: "metadata name", invalid: func(s *aim.AIMService) { s.Name = "Bad_Name" }, field: "metadata.name", errType: field.ErrorTypeInvalid},
		{name: "model required", invalid: func(s *aim.AIMService) { s.Spec.Model = aim.AIMServiceModel{} }, field: "spec.model", errType: field.ErrorTypeRequired},
		{name: "model exclusive",
			valid:   func(s *aim.AIMService) { s.Spec.Model = aim.AIMServiceModel{Image: ptr.To("repo/img:1")} },
			invalid: func(s *aim.AIMService) { s.Spec.Model.Image = ptr.To("repo/img:1") }, field: "spec.model", errType: field.ErrorTypeInvalid},
		{name: "model name format", invalid: func(s *aim.AIMService) { s.Spec.Model.Name = ptr.To("UPPER") }, field: "spec.model.name", errType: field.ErrorTypeInvalid},
		{name: "model image whitespace", invalid: func(s *aim.AIMService) { s.Spec.Model = aim.AIMServiceModel{Image: ptr.To("repo/img 1")} }, field: "spec.model.image", errType: field.ErrorTypeInvalid},
		{name: "model image empty", invalid: func(s *aim.AIMService) { s.Spec.Model = aim.AIMServiceModel{Image: ptr.To("")} }, field: "spec.model.image", errType: field.ErrorTypeRequired},
		{name: "custom base image required",
			valid: func(s *aim.AIMService) {
				s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "base:1", ModelSources: []aim.AIMModelSource{source()}, Hardware: *gpuHardware()}}
			},
			invalid: func(s *aim.AIMService) {
				s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{ModelSources: []aim.AIMModelSource{source()}, Hardware: *gpuHardware()}}
			}, field: "spec.model.custom.baseImage", errType: field.ErrorTypeRequired},
		{name: "custom exactly one source", invalid: func(s *aim.AIMService) {
			s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "b", ModelSources: []aim.AIMModelSource{source(), {ModelID: "org/other", SourceURI: "s3://b/o"}}, Hardware: *gpuHardware()}}
		}, field: "spec.model.custom.modelSources", errType: field.ErrorTypeInvalid},
		{name: "custom hardware required", invalid: func(s *aim.AIMService) {
			s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "b", ModelSources: []aim.AIMModelSource{source()}}}
		}, field: "spec.model.custom.hardware", errType: field.ErrorTypeRequired},
		{name: "custom source id pattern", invalid: func(s *aim.AIMService) {
			s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "b", ModelSources: []aim.AIMModelSource{{ModelID: "noslash", SourceURI: "hf://a/b"}}, Hardware: *gpuHardware()}}
		}, field: "spec.model.custom.modelSources[0].modelId", errType: field.ErrorTypeInvalid},
		{name: "custom source uri scheme", invalid: func(s *aim.AIMService) {
			s.Spec.Model = aim.AIMServiceModel{Custom: &aim.AIMServiceCustomModel{BaseImage: "b", ModelSources: []aim.AIMModelSource{{ModelID: "a/b", SourceURI: "http://a/b"}}, Hardware: *gpuHardware()}}
		}, field: "spec.model.custom.modelSources[0].sourceUri", errType: field.ErrorTypeInvalid},
		{name: "template name", valid: func(s *aim.AIMService) { s.Spec.Template = &aim.AIMServiceTemplateSelector{Name: "tpl"} },
			invalid: func(s *aim.AIMService) { s.Spec.Template = &aim.AIMServiceTemplateSelector{Name: "Bad Name"} }, field: "spec.template.name", errType: field.ErrorTypeInvalid},
		{name: "caching mode", valid: func(s *aim.AIMService) { s.Spec.Caching.Mode = aim.AIMCachingModeNever },
			invalid: func(s *aim.AIMService) { s.Spec.Caching.Mode = "Sometimes" }, field: "spec.caching.mode", errType: field.ErrorTypeNotSupported},
		{name: "replicas non-negative", valid: func(s *aim.AIMService) { s.Spec.Replicas = ptr.To[int32](0) },
			invalid: func(s *aim.AIMService) { s.Spec.Replicas = ptr.To[int32](-1) }, field: "spec.replicas", errType: field.ErrorTypeInvalid},
		{name: "minReplicas at least 1", valid: func(s *aim.AIMService) { s.Spec.MinReplicas = ptr.To[int32](1) },
			invalid: func(s *aim.AIMService) { s.Spec.MinReplicas = ptr.To[int32](0) }, field: "spec.minReplicas", errType: field.ErrorTypeInvalid},
		{name: "maxReplicas at least 1", invalid: func(s *aim.AIMService) { s.Spec.MaxReplicas = ptr.To[int32](0) }, field: "spec.maxReplicas", errType: field.ErrorTypeInvalid},
		{name: "min not above max", valid: func(s *aim.AIMService) { s.Spec.MinReplicas, s.Spec.MaxReplicas = ptr.To[int32](2), ptr.To[int32](2) },
			invalid: func(s *aim.AIMService) { s.Spec.MinReplicas, s.Spec.MaxReplicas = ptr.To[int32](3), ptr.To[int32](2) }, field: "spec.maxReplicas", errType: field.ErrorTypeInvalid},
		{name: "autoscaling metric type", invalid: func(s *aim.AIMService) {
			s.Spec.AutoScaling = &aim.AIMServiceAutoScaling{Metrics: []aim.AIMServiceMetricSpec{{Type: "Resource"}}}
		}, field: "spec.autoScaling.metrics[0].type", errType: field.ErrorTypeNotSupported},
		{name: "autoscaling podmetric required", invalid: func(s *aim.AIMService) {
			s.Spec.AutoScaling = &aim.AIMServiceAutoScaling{Metrics: []aim.AIMServiceMetricSpec{{Type: "PodMetric"}}}
		}, field: "spec.autoScaling.metrics[0].podmetric", errType: field.ErrorTypeRequired},
		{name: "autoscaling target type",
			valid: func(s *aim.AIMService) {
				s.Spec.AutoScaling = &aim.AIMServiceAutoScaling{Metrics: []aim.AIMServiceMetricSpec{{Type: "PodMetric", PodMetric: &aim.AIMServicePodMetricSource{Target: aim.AIMServiceMetricTarget{Type: "AverageValue", AverageValue: "10"}}}}}
			},
			invalid: func(s *aim.AIMService) {
				s.Spec.AutoScaling = &aim.AIMServiceAutoScaling{Metrics: []aim.AIMServiceMetricSpec{{Type: "PodMetric", PodMetric: &aim.AIMServicePodMetricSource{Target: aim.AIMServiceMetricTarget{Type: "Max"}}}}}
			}, field: "spec.autoScaling.metrics[0].podmetric.target.type", errType: field.ErrorTypeNotSupported},
		{name: "autoscaling target value quantity", invalid: func(s *aim.AIMService) {
			s.Spec.AutoScaling = &aim.AIMServiceAutoScaling{Metrics: []aim.AIMServiceMetricSpec{{Type: "PodMetric", PodMetric: &aim.AIMServicePodMetricSource{Target: aim.AIMServiceMetricTarget{Type: "Value", Value: "ten"}}}}}
		}, field: "spec.autoScaling.metrics[0].podmetric.target.value", errType: field.ErrorTypeInvalid},
		{name: "autoscaling backend", invalid: func(s *aim.AIMService) {
			s.Spec.AutoScaling = &aim.AIMServiceAutoScaling{Metrics: []aim.AIMServiceMetricSpec{{Type: "PodMetric", PodMetric: &aim.AIMServicePodMetricSource{Metric: aim.AIMServicePodMetric{Backend: "prometheus"}, Target: aim.AIMServiceMetricTarget{Type: "Value", Value: "1"}}}}}
		}, field: "spec.autoScaling.metrics[0].podmetric.metric.backend", errType: field.ErrorTypeNotSupported},
		{name: "runtime config name", valid: func(s *aim.AIMService) { s.Spec.RuntimeConfigName = "default" },
			invalid: func(s *aim.AIMService) { s.Spec.RuntimeConfigName = "Not Valid" }, field: "spec.runtimeConfigName", errType: field.ErrorTypeInvalid},
		{name: "storage headroom", valid: func(s *aim.AIMService) { s.Spec.Storage = &aim.AIMStorageConfig{PVCHeadroomPercent: ptr.To[int32](0)} },
			invalid: func(s *aim.AIMService) { s.Spec.Storage = &aim.AIMStorageConfig{PVCHeadroomPercent: ptr.To[int32](-5)} }, field: "spec.storage.pvcHeadroomPercent", errType: field.ErrorTypeInvalid},
		{name: "storage class", invalid: func(s *aim.AIMService) {
			s.Spec.Storage = &aim.AIMStorageConfig{DefaultStorageClassName: ptr.To("Fast SSD")}
		}, field: "spec.storage.defaultStorageClassName", errType: field.ErrorTypeInvalid},
		{name: "storage access mode", invalid: func(s *aim.AIMService) {
			s.Spec.Storage = &aim.AIMStorageConfig{AccessModes: []corev1.PersistentVolumeAccessMode{"ReadAll"}}
		}, field: "spec.storage.accessModes[0]", errType: field.ErrorTypeNotSupported},
		{name: "routing gateway name", valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw"}}
		},
			invalid: func(s *aim.AIMService) {
				s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{}}
			}, field: "spec.routing.gatewayRef.name", errType: field.ErrorTypeRequired},
		{name: "routing gateway port", invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Port: ptr.To[int32](70000)}}
		}, field: "spec.routing.gatewayRef.port", errType: field.ErrorTypeInvalid},
		{name: "routing timeout", valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{RequestTimeout: &metav1.Duration{Duration: time.Minute}}
		},
			invalid: func(s *aim.AIMService) {
				s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{RequestTimeout: &metav1.Duration{Duration: -time.Second}}
			}, field: "spec.routing.requestTimeout", errType: field.ErrorTypeInvalid},
		{name: "routing path template", valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{PathTemplate: ptr.To("/{.metadata.name}")}
		},
			invalid: func(s *aim.AIMService) { s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{PathTemplate: ptr.To(" ")} }, field: "spec.routing.pathTemplate", errType: field.ErrorTypeInvalid},
		{name: "routing annotations", invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{Annotations: map[string]string{"bad key!": "v"}}
		}, field: "spec.routing.annotations", errType: field.ErrorTypeInvalid},
		{name: "env name required", valid: func(s *aim.AIMService) { s.Spec.Env = []corev1.EnvVar{{Name: "A", Value: "1"}} },
			invalid: func(s *aim.AIMService) { s.Spec.Env = []corev1.EnvVar{{Value: "1"}} }, field: "spec.env[0].name", errType: field.ErrorTypeRequired},
		{name: "env names unique", invalid: func(s *aim.AIMService) { s.Spec.Env = []corev1.EnvVar{{Name: "A"}, {Name: "A"}} }, field: "spec.env[1].name", errType: field.ErrorTypeDuplicate},
		{name: "env name format", invalid: func(s *aim.AIMService) { s.Spec.Env = []corev1.EnvVar{{Name: "1=x"}} }, field: "spec.env[0].name", errType: field.ErrorTypeInvalid},
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
			s.Spec.Resources = &corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}, {Name: "nic"}}}
		}, invalid: func(s *aim.AIMService) {
			s.Spec.Resources = &corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}, {}}}
		}, field: "spec.resources.claims[1].name", errType: field.ErrorTypeRequired},
		{name: "resource claims unique", invalid: func(s *aim.AIMService) {
			s.Spec.Resources = &corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}, {Name: "gpu"}}}
		}, field: "spec.resources.claims[1].name", errType: field.ErrorTypeDuplicate},
		{name: "routing gateway group", valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Group: ptr.To("gateway.networking.k8s.io")}}
		}, invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Group: ptr.To("Gateway_API")}}
		}, field: "spec.routing.gatewayRef.group", errType: field.ErrorTypeInvalid},
		{name: "routing gateway kind", valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Kind: ptr.To("Gateway")}}
		}, invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Kind: ptr.To("")}}
		}, field: "spec.routing.gatewayRef.kind", errType: field.ErrorTypeInvalid},
		{name: "routing gateway kind length", invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Kind: ptr.To("G" + strings.Repeat("a", 63))}}
		}, field: "spec.routing.gatewayRef.kind", errType: field.ErrorTypeTooLong},
		{name: "routing gateway section", valid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", SectionName: ptr.To("https")}}
		}, invalid: func(s *aim.AIMService) {
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", SectionName: ptr.To("HTTPS")}}
		}, field: "spec.routing.gatewayRef.sectionName", errType: field.ErrorTypeInvalid},
		{name: "resources requests within limits",
			valid: func(s *aim.AIMService) {
				s.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("2")}, Limits: corev1.ResourceList{"cpu": q("4")}}
			},
			invalid: func(s *aim.AIMService) {
				s.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("8")}, Limits: corev1.ResourceList{"cpu": q("4")}}
			}, field: "spec.resources.requests[cpu]", errType: field.ErrorTypeInvalid},
		{name: "resources non-negative", invalid: func(s *aim.AIMService) {
			s.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{"memory": q("-1Gi")}}
		}, field: "spec.resources.limits[memory]", errType: field.ErrorTypeInvalid},
		{name: "overrides metric", valid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Metric: ptr.To(aim.AIMMetricLatency)}
		},
			invalid: func(s *aim.AIMService) {
				s.Spec.Overrides = &aim.AIMRuntimeParameters{Metric: ptr.To(aim.AIMMetric("speed"))}
			}, field: "spec.overrides.metric", errType: field.ErrorTypeNotSupported},
		{name: "overrides precision", invalid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Precision: ptr.To(aim.AIMPrecision("fp64"))}
		}, field: "spec.overrides.precision", errType: field.ErrorTypeNotSupported},
		{name: "hardware needs gpu or cpu", invalid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{}}
		}, field: "spec.overrides.hardware", errType: field.ErrorTypeRequired},
		{name: "gpu requests non-negative", invalid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{GPU: &aim.AIMGpuRequirements{Requests: -1}}}
		}, field: "spec.overrides.hardware.gpu.requests", errType: field.ErrorTypeInvalid},
		{name: "gpu model length", invalid: func(s *aim.AIMService) {
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
		{name: "cpu limits at least requests", invalid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Hardware: &aim.AIMHardwareRequirements{CPU: &aim.AIMCpuRequirements{Requests: q("4"), Limits: ptr.To(q("2"))}}}
		}, field: "spec.overrides.hardware.cpu.limits", errType: field.ErrorTypeInvalid},
		{name: "pull secret name", valid: func(s *aim.AIMService) { s.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}} },
			invalid: func(s *aim.AIMService) { s.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{}} }, field: "spec.imagePullSecrets[0].name", errType: field.ErrorTypeRequired},
		{name: "service account", invalid: func(s *aim.AIMService) { s.Spec.ServiceAccountName = "Has Spaces" }, field: "spec.serviceAccountName", errType: field.ErrorTypeInvalid},
	})
}

func TestValidateAIMServiceUpdate(t *testing.T) {
	update := func(old *aim.AIMService) func(*aim.AIMService) field.ErrorList {
		return func(obj *aim.AIMService) field.ErrorList { return ValidateAIMServiceUpdate(obj, old) }
	}
	oldWithOverrides := newService()
	oldWithOverrides.Spec.Overrides = &aim.AIMRuntimeParameters{Metric: ptr.To(aim.AIMMetricLatency)}
	base := func() *aim.AIMService { return newService() }
	baseOverrides := func() *aim.AIMService { return oldWithOverrides.DeepCopy() }

	runRules(t, base, update(newService()), []ruleCase[*aim.AIMService]{
		{name: "mutable fields change", valid: func(s *aim.AIMService) {
			s.Spec.Replicas = ptr.To[int32](3)
			s.Spec.Env = []corev1.EnvVar{{Name: "A", Value: "b"}}
			s.Spec.ServiceAccountName = "inference"
			s.Spec.Routing = &aim.AIMRuntimeRoutingConfig{Enabled: ptr.To(true)}
		}, invalid: func(s *aim.AIMService) { s.Spec.Model.Name = ptr.To("other") }, field: "spec.model", errType: field.ErrorTypeForbidden},
		{name: "template immutable", invalid: func(s *aim.AIMService) { s.Spec.Template = &aim.AIMServiceTemplateSelector{Name: "x"} }, field: "spec.template", errType: field.ErrorTypeForbidden},
		{name: "caching immutable", invalid: func(s *aim.AIMService) { s.Spec.Caching.Mode = aim.AIMCachingModeDedicated }, field: "spec.caching", errType: field.ErrorTypeForbidden},
		{name: "overrides may be added", valid: func(s *aim.AIMService) {
			s.Spec.Overrides = &aim.AIMRuntimeParameters{Metric: ptr.To(aim.AIMMetricLatency)}
		},
			invalid: func(s *aim.AIMService) { s.Spec.Replicas = ptr.To[int32](-2) }, field: "spec.replicas", errType: field.ErrorTypeInvalid},
	})
	runRules(t, baseOverrides, update(oldWithOverrides), []ruleCase[*aim.AIMService]{
		{name: "override metric immutable once set", valid: func(s *aim.AIMService) { s.Spec.Overrides.Precision = ptr.To(aim.AIMPrecisionFP8) },
			invalid: func(s *aim.AIMService) { s.Spec.Overrides.Metric = ptr.To(aim.AIMMetricThroughput) }, field: "spec.overrides.metric", errType: field.ErrorTypeInvalid},
		{name: "overrides cannot be removed", invalid: func(s *aim.AIMService) { s.Spec.Overrides = nil }, field: "spec.overrides", errType: field.ErrorTypeInvalid},
	})
}

func TestValidateAIMServiceStatus(t *testing.T) {
	runRules(t, newService, ValidateAIMServiceStatus, []ruleCase[*aim.AIMService]{
		{name: "status enum", valid: func(s *aim.AIMService) { s.Status.Status = aim.AIMStatusNotAvailable },
			invalid: func(s *aim.AIMService) { s.Status.Status = aim.AIMStatusReady }, field: "status.status", errType: field.ErrorTypeNotSupported},
		{name: "conditions", valid: func(s *aim.AIMService) {
			s.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "AllComponentsReady", LastTransitionTime: metav1.Now()}}
		}, invalid: func(s *aim.AIMService) {
			s.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: "Maybe", Reason: "X", LastTransitionTime: metav1.Now()}}
		}, field: "status.conditions[0].status", errType: field.ErrorTypeNotSupported},
		{name: "observed generation", invalid: func(s *aim.AIMService) { s.Status.ObservedGeneration = -1 }, field: "status.observedGeneration", errType: field.ErrorTypeInvalid},
		{name: "resolved model name", invalid: func(s *aim.AIMService) { s.Status.ResolvedModel = &aim.AIMResolvedReference{} }, field: "status.resolvedModel.name", errType: field.ErrorTypeRequired},
		{name: "cache reference scope", valid: func(s *aim.AIMService) {
			s.Status.Cache = &aim.AIMServiceCacheStatus{TemplateCacheRef: &aim.AIMResolvedReference{Name: "c", Scope: aim.AIMResolutionScopeNamespace}}
		}, invalid: func(s *aim.AIMService) {
			s.Status.Cache = &aim.AIMServiceCacheStatus{TemplateCacheRef: &aim.AIMResolvedReference{Name: "c", Scope: "Galaxy"}}
		}, field: "status.cache.templateCacheRef.scope", errType: field.ErrorTypeNotSupported},
		{name: "candidate status", invalid: func(s *aim.AIMService) {
			s.Status.TemplateMatching = &aim.AIMTemplateMatching{Candidates: []aim.AIMTemplateCandidate{{Name: "t", Status: "maybe"}}}
		}, field: "status.templateMatching.candidates[0].status", errType: field.ErrorTypeNotSupported},
	})
}

func newTemplate() *aim.AIMServiceTemplate {
	return &aim.AIMServiceTemplate{
		ObjectMeta: meta(true),
		Spec: aim.AIMServiceTemplateSpec{AIMServiceTemplateSpecCommon: aim.AIMServiceTemplateSpecCommon{
			ModelName:            "qwen3-32b",
			AIMRuntimeParameters: aim.AIMRuntimeParameters{Metric: ptr.To(aim.AIMMetricLatency), Hardware: gpuHardware()},
		}},
	}
}

func TestValidateAIMServiceTemplate(t *testing.T) {
	runRules(t, newTemplate, ValidateAIMServiceTemplate, []ruleCase[*aim.AIMServiceTemplate]{
		{name: "modelName required", invalid: func(o *aim.AIMServiceTemplate) { o.Spec.ModelName = "" }, field: "spec.modelName", errType: field.ErrorTypeRequired},
		{name: "metric", invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Metric = ptr.To(aim.AIMMetric("x")) }, field: "spec.metric", errType: field.ErrorTypeNotSupported},
		{name: "precision", valid: func(o *aim.AIMServiceTemplate) { o.Spec.Precision = ptr.To(aim.AIMPrecisionBF16) },
			invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Precision = ptr.To(aim.AIMPrecision("x")) }, field: "spec.precision", errType: field.ErrorTypeNotSupported},
		{name: "hardware", invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Hardware = &aim.AIMHardwareRequirements{} }, field: "spec.hardware", errType: field.ErrorTypeRequired},
		{name: "type", valid: func(o *aim.AIMServiceTemplate) { o.Spec.Type = ptr.To(aim.AIMProfileTypePreview) },
			invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Type = ptr.To(aim.AIMProfileType("great")) }, field: "spec.type", errType: field.ErrorTypeNotSupported},
		{name: "model sources unique", valid: func(o *aim.AIMServiceTemplate) { o.Spec.ModelSources = []aim.AIMModelSource{source()} },
			invalid: func(o *aim.AIMServiceTemplate) { o.Spec.ModelSources = []aim.AIMModelSource{source(), source()} }, field: "spec.modelSources[1].modelId", errType: field.ErrorTypeDuplicate},
		{name: "model source size", invalid: func(o *aim.AIMServiceTemplate) {
			src := source()
			src.Size = ptr.To(resource.MustParse("-1"))
			o.Spec.ModelSources = []aim.AIMModelSource{src}
		}, field: "spec.modelSources[0].size", errType: field.ErrorTypeInvalid},
		{name: "caching env", invalid: func(o *aim.AIMServiceTemplate) {
			o.Spec.Caching = &aim.AIMTemplateCachingConfig{Enabled: true, Env: []corev1.EnvVar{{Name: ""}}}
		}, field: "spec.caching.env[0].name", errType: field.ErrorTypeRequired},
		{name: "env", invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Env = []corev1.EnvVar{{Name: "A"}, {Name: "A"}} }, field: "spec.env[1].name", errType: field.ErrorTypeDuplicate},
		{name: "resources", invalid: func(o *aim.AIMServiceTemplate) {
			o.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": resource.MustParse("-1")}}
		}, field: "spec.resources.limits[cpu]", errType: field.ErrorTypeInvalid},
	})
	old := newTemplate()
	runRules(t, newTemplate, func(o *aim.AIMServiceTemplate) field.ErrorList { return ValidateAIMServiceTemplateUpdate(o, old) },
		[]ruleCase[*aim.AIMServiceTemplate]{
			{name: "modelName immutable", valid: func(o *aim.AIMServiceTemplate) { o.Spec.Precision = ptr.To(aim.AIMPrecisionFP8) },
				invalid: func(o *aim.AIMServiceTemplate) { o.Spec.ModelName = "other" }, field: "spec.modelName", errType: field.ErrorTypeInvalid},
			{name: "metric immutable once set", invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Metric = ptr.To(aim.AIMMetricThroughput) }, field: "spec.metric", errType: field.ErrorTypeInvalid},
			{name: "hardware immutable once set", invalid: func(o *aim.AIMServiceTemplate) { o.Spec.Hardware.GPU.Requests = 2 }, field: "spec.hardware", errType: field.ErrorTypeInvalid},
		})
	runRules(t, func() *aim.AIMServiceTemplate { return newTemplate() }, func(o *aim.AIMServiceTemplate) field.ErrorList { return ValidateAIMServiceTemplateStatus(&o.Status) },
		[]ruleCase[*aim.AIMServiceTemplate]{
			{name: "status enum", valid: func(o *aim.AIMServiceTemplate) { o.Status.Status = aim.AIMStatusReady },
				invalid: func(o *aim.AIMServiceTemplate) { o.Status.Status = aim.AIMStatusRunning }, field: "status.status", errType: field.ErrorTypeNotSupported},
			{name: "discovery attempts", invalid: func(o *aim.AIMServiceTemplate) { o.Status.Discovery = &aim.AIMDiscoveryState{Attempts: -1} }, field: "status.discovery.attempts", errType: field.ErrorTypeInvalid},
			{name: "status model sources", invalid: func(o *aim.AIMServiceTemplate) { o.Status.ModelSources = []aim.AIMModelSource{{ModelID: "x"}} }, field: "status.modelSources[0].sourceUri", errType: field.ErrorTypeRequired},
			{name: "profile metric", valid: func(o *aim.AIMServiceTemplate) {
				o.Status.Profile = &aim.AIMProfile{Metadata: aim.AIMProfileMetadata{Metric: aim.AIMMetricLatency, Precision: aim.AIMPrecisionFP8, Type: aim.AIMProfileTypeOptimized}}
			}, invalid: func(o *aim.AIMServiceTemplate) {
				o.Status.Profile = &aim.AIMProfile{Metadata: aim.AIMProfileMetadata{Metric: "speed"}}
			}, field: "status.profile.metadata.metric", errType: field.ErrorTypeNotSupported},
			{name: "profile precision", invalid: func(o *aim.AIMServiceTemplate) {
				o.Status.Profile = &aim.AIMProfile{Metadata: aim.AIMProfileMetadata{Precision: "fp12"}}
			}, field: "status.profile.metadata.precision", errType: field.ErrorTypeNotSupported},
			{name: "profile type", invalid: func(o *aim.AIMServiceTemplate) {
				o.Status.Profile = &aim.AIMProfile{Metadata: aim.AIMProfileMetadata{Type: "tuned"}}
			}, field: "status.profile.metadata.type", errType: field.ErrorTypeNotSupported},
			{name: "node affinity operator", valid: func(o *aim.AIMServiceTemplate) {
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
			{name: "node affinity terms required", invalid: func(o *aim.AIMServiceTemplate) {
				o.Status.ResolvedNodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{}}
			}, field: "status.resolvedNodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms", errType: field.ErrorTypeRequired},
			{name: "node affinity weight", invalid: func(o *aim.AIMServiceTemplate) {
				o.Status.ResolvedNodeAffinity = &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 0}}}
			}, field: "status.resolvedNodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight", errType: field.ErrorTypeInvalid},
		})
}

func TestValidateAIMClusterServiceTemplate(t *testing.T) {
	base := func() *aim.AIMClusterServiceTemplate {
		return &aim.AIMClusterServiceTemplate{ObjectMeta: meta(false), Spec: aim.AIMClusterServiceTemplateSpec{
			AIMServiceTemplateSpecCommon: aim.AIMServiceTemplateSpecCommon{ModelName: "m", AIMRuntimeParameters: aim.AIMRuntimeParameters{Precision: ptr.To(aim.AIMPrecisionFP8)}}}}
	}
	runRules(t, base, ValidateAIMClusterServiceTemplate, []ruleCase[*aim.AIMClusterServiceTemplate]{
		{name: "no namespace", invalid: func(o *aim.AIMClusterServiceTemplate) { o.Namespace = "default" }, field: "metadata.namespace", errType: field.ErrorTypeForbidden},
		{name: "modelName", invalid: func(o *aim.AIMClusterServiceTemplate) { o.Spec.ModelName = "" }, field: "spec.modelName", errType: field.ErrorTypeRequired},
	})
	old := base()
	runRules(t, base, func(o *aim.AIMClusterServiceTemplate) field.ErrorList {
		return ValidateAIMClusterServiceTemplateUpdate(o, old)
	},
		[]ruleCase[*aim.AIMClusterServiceTemplate]{
			{name: "precision immutable once set", valid: func(o *aim.AIMClusterServiceTemplate) { o.Spec.Metric = ptr.To(aim.AIMMetricLatency) },
				invalid: func(o *aim.AIMClusterServiceTemplate) { o.Spec.Precision = ptr.To(aim.AIMPrecisionFP16) }, field: "spec.precision", errType: field.ErrorTypeInvalid},
		})
}

func newModel() *aim.AIMModel {
	return &aim.AIMModel{ObjectMeta: meta(true), Spec: aim.AIMModelSpec{Image: "amdenterpriseai/aim-qwen:0.8.5"}}
}

func TestValidateAIMModel(t *testing.T) {
	runRules(t, newModel, ValidateAIMModel, []ruleCase[*aim.AIMModel]{
		{name: "image required", invalid: func(m *aim.AIMModel) { m.Spec.Image = "" }, field: "spec.image", errType: field.ErrorTypeRequired},
		{name: "default template name", valid: func(m *aim.AIMModel) { m.Spec.DefaultServiceTemplate = "tpl" },
			invalid: func(m *aim.AIMModel) { m.Spec.DefaultServiceTemplate = "Tpl!" }, field: "spec.defaultServiceTemplate", errType: field.ErrorTypeInvalid},
		{name: "custom templates at most 16", valid: func(m *aim.AIMModel) { m.Spec.CustomTemplates = make([]aim.AIMCustomTemplate, 16) },
			invalid: func(m *aim.AIMModel) { m.Spec.CustomTemplates = make([]aim.AIMCustomTemplate, 17) }, field: "spec.customTemplates", errType: field.ErrorTypeTooMany},
		{name: "custom template name length", invalid: func(m *aim.AIMModel) {
			m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Name: strings.Repeat("a", 64)}}
		}, field: "spec.customTemplates[0].name", errType: field.ErrorTypeTooLong},
		{name: "custom template type", invalid: func(m *aim.AIMModel) {
			m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Type: ptr.To(aim.AIMProfileType("x"))}}
		}, field: "spec.customTemplates[0].type", errType: field.ErrorTypeNotSupported},
		{name: "custom template env at most 64", invalid: func(m *aim.AIMModel) {
			env := make([]corev1.EnvVar, 65)
			for i := range env {
				env[i].Name = "E" + strings.Repeat("X", i)
			}
			m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Env: env}}
		}, field: "spec.customTemplates[0].env", errType: field.ErrorTypeTooMany},
		{name: "custom template profile metric", invalid: func(m *aim.AIMModel) {
			m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Profile: &aim.AIMCustomTemplateProfile{Metric: ptr.To(aim.AIMMetric("x"))}}}
		}, field: "spec.customTemplates[0].profile.metric", errType: field.ErrorTypeNotSupported},
		{name: "custom template hardware", invalid: func(m *aim.AIMModel) {
			m.Spec.CustomTemplates = []aim.AIMCustomTemplate{{Hardware: &aim.AIMHardwareRequirements{}}}
		}, field: "spec.customTemplates[0].hardware", errType: field.ErrorTypeRequired},
		{name: "model sources at most one", invalid: func(m *aim.AIMModel) {
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
		{name: "custom type", invalid: func(m *aim.AIMModel) {
			m.Spec.Custom = &aim.AIMModelCustomConfig{Type: ptr.To(aim.AIMProfileType("x"))}
		}, field: "spec.custom.type", errType: field.ErrorTypeNotSupported},
		{name: "recommended deployment gpu count", valid: func(m *aim.AIMModel) {
			m.Spec.ImageMetadata = &aim.ImageMetadata{Model: &aim.ModelMetadata{RecommendedDeployments: []aim.RecommendedDeployment{{GPUModel: "MI300X", GPUCount: 1, Metric: "latency", Precision: "fp8"}}}}
		}, invalid: func(m *aim.AIMModel) {
			m.Spec.ImageMetadata = &aim.ImageMetadata{Model: &aim.ModelMetadata{RecommendedDeployments: []aim.RecommendedDeployment{{GPUCount: -1}}}}
		}, field: "spec.imageMetadata.model.recommendedDeployments[0].gpuCount", errType: field.ErrorTypeInvalid},
		{name: "recommended deployment metric", invalid: func(m *aim.AIMModel) {
			m.Spec.ImageMetadata = &aim.ImageMetadata{Model: &aim.ModelMetadata{RecommendedDeployments: []aim.RecommendedDeployment{{Metric: "fast"}}}}
		}, field: "spec.imageMetadata.model.recommendedDeployments[0].metric", errType: field.ErrorTypeNotSupported},
		{name: "service account", invalid: func(m *aim.AIMModel) { m.Spec.ServiceAccountName = "A B" }, field: "spec.serviceAccountName", errType: field.ErrorTypeInvalid},
	})
	runRules(t, newModel, func(m *aim.AIMModel) field.ErrorList { return ValidateAIMModelStatus(&m.Status) }, []ruleCase[*aim.AIMModel]{
		{name: "source type", valid: func(m *aim.AIMModel) { m.Status.SourceType = aim.AIMModelSourceTypeCustom },
			invalid: func(m *aim.AIMModel) { m.Status.SourceType = "Registry" }, field: "status.sourceType", errType: field.ErrorTypeNotSupported},
	})
}

func TestValidateAIMClusterModel(t *testing.T) {
	base := func() *aim.AIMClusterModel {
		return &aim.AIMClusterModel{ObjectMeta: meta(false), Spec: newModel().Spec}
	}
	old := base()
	runRules(t, base, func(m *aim.AIMClusterModel) field.ErrorList { return ValidateAIMClusterModelUpdate(m, old) }, []ruleCase[*aim.AIMClusterModel]{
		{name: "image may change but not be empty", valid: func(m *aim.AIMClusterModel) { m.Spec.Image = "repo/new:1" },
			invalid: func(m *aim.AIMClusterModel) { m.Spec.Image = " " }, field: "spec.image", errType: field.ErrorTypeRequired},
	})
}

func TestValidateRuntimeConfigs(t *testing.T) {
	base := func() *aim.AIMRuntimeConfig { return &aim.AIMRuntimeConfig{ObjectMeta: meta(true)} }
	runRules(t, base, ValidateAIMRuntimeConfig, []ruleCase[*aim.AIMRuntimeConfig]{
		{name: "label glob", valid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.LabelPropagation = &aim.AIMLabelPropagationConfig{Match: []string{"team/*"}}
		},
			invalid: func(c *aim.AIMRuntimeConfig) {
				c.Spec.LabelPropagation = &aim.AIMLabelPropagationConfig{Match: []string{"team[/*"}}
			}, field: "spec.labelPropagation.match[0]", errType: field.ErrorTypeInvalid},
		{name: "toleration operator", valid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Scheduling = &aim.AIMSchedulingConfig{Tolerations: []corev1.Toleration{{Key: "amd.com/gpu", Operator: "Exists", Effect: "NoSchedule"}}}
		}, invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Scheduling = &aim.AIMSchedulingConfig{Tolerations: []corev1.Toleration{{Key: "amd.com/gpu", Operator: "Matches"}}}
		}, field: "spec.scheduling.tolerations[0].operator", errType: field.ErrorTypeNotSupported},
		{name: "toleration exists has no value", invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Scheduling = &aim.AIMSchedulingConfig{Tolerations: []corev1.Toleration{{Key: "k", Operator: "Exists", Value: "v"}}}
		}, field: "spec.scheduling.tolerations[0].value", errType: field.ErrorTypeInvalid},
		{name: "toleration effect", invalid: func(c *aim.AIMRuntimeConfig) {
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
		{name: "priority class", invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Scheduling = &aim.AIMSchedulingConfig{PriorityClassName: ptr.To("")}
		}, field: "spec.scheduling.priorityClassName", errType: field.ErrorTypeRequired},
		{name: "max concurrent jobs", valid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Discovery = &aim.AIMDiscoveryConfig{MaxConcurrentJobs: ptr.To[int32](1)}
		},
			invalid: func(c *aim.AIMRuntimeConfig) {
				c.Spec.Discovery = &aim.AIMDiscoveryConfig{MaxConcurrentJobs: ptr.To[int32](0)}
			}, field: "spec.discovery.maxConcurrentJobs", errType: field.ErrorTypeInvalid},
		{name: "discovery service account", invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Discovery = &aim.AIMDiscoveryConfig{ServiceAccountName: ptr.To("Bad")}
		}, field: "spec.discovery.serviceAccountName", errType: field.ErrorTypeInvalid},
		{name: "legacy headroom", invalid: func(c *aim.AIMRuntimeConfig) { c.Spec.PVCHeadroomPercent = ptr.To[int32](-1) }, field: "spec.pvcHeadroomPercent", errType: field.ErrorTypeInvalid},
		{name: "storage", invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Storage = &aim.AIMStorageConfig{AccessModes: []corev1.PersistentVolumeAccessMode{"Shared"}}
		}, field: "spec.storage.accessModes[0]", errType: field.ErrorTypeNotSupported},
		{name: "routing", invalid: func(c *aim.AIMRuntimeConfig) {
			c.Spec.Routing = &aim.AIMRuntimeRoutingConfig{GatewayRef: &aim.AIMGatewayParentReference{Name: "gw", Namespace: ptr.To("Bad_NS")}}
		}, field: "spec.routing.gatewayRef.namespace", errType: field.ErrorTypeInvalid},
		{name: "env", invalid: func(c *aim.AIMRuntimeConfig) { c.Spec.Env = []corev1.EnvVar{{}} }, field: "spec.env[0].name", errType: field.ErrorTypeRequired},
	})
	cluster := func() *aim.AIMClusterRuntimeConfig { return &aim.AIMClusterRuntimeConfig{ObjectMeta: meta(false)} }
	runRules(t, cluster, ValidateAIMClusterRuntimeConfig, []ruleCase[*aim.AIMClusterRuntimeConfig]{
		{name: "storage class", valid: func(c *aim.AIMClusterRuntimeConfig) { c.Spec.DefaultStorageClassName = "fast" },
			invalid: func(c *aim.AIMClusterRuntimeConfig) { c.Spec.DefaultStorageClassName = "Fast!" }, field: "spec.defaultStorageClassName", errType: field.ErrorTypeInvalid},
	})
	runRules(t, cluster, func(c *aim.AIMClusterRuntimeConfig) field.ErrorList { return ValidateAIMRuntimeConfigStatus(&c.Status) }, []ruleCase[*aim.AIMClusterRuntimeConfig]{
		{name: "consumers", valid: func(c *aim.AIMClusterRuntimeConfig) { c.Status.Consumers = 3 },
			invalid: func(c *aim.AIMClusterRuntimeConfig) { c.Status.Consumers = -3 }, field: "status.consumers", errType: field.ErrorTypeInvalid},
	})
}

func TestValidateAIMTemplateCache(t *testing.T) {
	base := func() *aim.AIMTemplateCache {
		return &aim.AIMTemplateCache{ObjectMeta: meta(true), Spec: aim.AIMTemplateCacheSpec{TemplateName: "tpl",
			TemplateScope: aim.AIMTemplateScopeNamespace, Mode: aim.AIMTemplateCacheModeShared}}
	}
	runRules(t, base, ValidateAIMTemplateCache, []ruleCase[*aim.AIMTemplateCache]{
		{name: "template name", invalid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateName = "" }, field: "spec.templateName", errType: field.ErrorTypeRequired},
		{name: "scope required", valid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = aim.AIMTemplateScopeUnknown },
			invalid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = "" }, field: "spec.templateScope", errType: field.ErrorTypeRequired},
		{name: "scope", valid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = aim.AIMTemplateScopeCluster },
			invalid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = "Global" }, field: "spec.templateScope", errType: field.ErrorTypeNotSupported},
		{name: "mode", valid: func(c *aim.AIMTemplateCache) { c.Spec.Mode = aim.AIMTemplateCacheModeDedicated },
			invalid: func(c *aim.AIMTemplateCache) { c.Spec.Mode = "Never" }, field: "spec.mode", errType: field.ErrorTypeNotSupported},
		{name: "download image", invalid: func(c *aim.AIMTemplateCache) { c.Spec.DownloadImage = "a b" }, field: "spec.downloadImage", errType: field.ErrorTypeInvalid},
		{name: "storage class", invalid: func(c *aim.AIMTemplateCache) { c.Spec.StorageClassName = "A" }, field: "spec.storageClassName", errType: field.ErrorTypeInvalid},
	})
	unscoped := base()
	unscoped.Spec.TemplateScope = ""
	runRules(t, base, func(c *aim.AIMTemplateCache) field.ErrorList { return ValidateAIMTemplateCacheUpdate(c, unscoped) }, []ruleCase[*aim.AIMTemplateCache]{
		{name: "a cache stored without scope may stay so", valid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = "" },
			invalid: func(c *aim.AIMTemplateCache) { c.Spec.TemplateScope = "Galaxy" }, field: "spec.templateScope", errType: field.ErrorTypeNotSupported},
	})
	runRules(t, base, ValidateAIMTemplateCacheStatus, []ruleCase[*aim.AIMTemplateCache]{
		{name: "artifact status", valid: func(c *aim.AIMTemplateCache) {
			c.Status.Artifacts = map[string]aim.AIMTemplateCacheArtifactStatus{"a": {UID: "u", Name: "a", Model: "org/m", Status: aim.AIMStatusReady}}
		}, invalid: func(c *aim.AIMTemplateCache) {
			c.Status.Artifacts = map[string]aim.AIMTemplateCacheArtifactStatus{"a": {UID: "u", Name: "a", Model: "org/m", Status: "Done"}}
		}, field: "status.artifacts[a].status", errType: field.ErrorTypeNotSupported},
		{name: "artifact entry fields required", valid: func(c *aim.AIMTemplateCache) {
			c.Status.Artifacts = map[string]aim.AIMTemplateCacheArtifactStatus{"a": {UID: "u", Name: "a", Model: "org/m", Status: aim.AIMStatusPending}}
		}, invalid: func(c *aim.AIMTemplateCache) {
			c.Status.Artifacts = map[string]aim.AIMTemplateCacheArtifactStatus{"a": {Name: "a", Model: "org/m", Status: aim.AIMStatusPending}}
		}, field: "status.artifacts[a].uid", errType: field.ErrorTypeRequired},
	})
}

func TestValidateAIMArtifact(t *testing.T) {
	base := func() *aim.AIMArtifact {
		return &aim.AIMArtifact{ObjectMeta: meta(true), Spec: aim.AIMArtifactSpec{SourceURI: "s3://bucket/model", ModelID: "org/model"}}
	}
	runRules(t, base, ValidateAIMArtifact, []ruleCase[*aim.AIMArtifact]{
		{name: "source uri required", invalid: func(a *aim.AIMArtifact) { a.Spec.SourceURI = "" }, field: "spec.sourceUri", errType: field.ErrorTypeRequired},
		{name: "source uri pattern", valid: func(a *aim.AIMArtifact) { a.Spec.SourceURI = "hf://org/model" },
			invalid: func(a *aim.AIMArtifact) { a.Spec.SourceURI = "hf://org/mo del" }, field: "spec.sourceUri", errType: field.ErrorTypeInvalid},
		{name: "model id pattern", invalid: func(a *aim.AIMArtifact) { a.Spec.ModelID = "a/b/c" }, field: "spec.modelId", errType: field.ErrorTypeInvalid},
		{name: "size", valid: func(a *aim.AIMArtifact) { a.Spec.Size = ptr.To(resource.MustParse("10Gi")) },
			invalid: func(a *aim.AIMArtifact) { a.Spec.Size = ptr.To(resource.MustParse("-10Gi")) }, field: "spec.size", errType: field.ErrorTypeInvalid},
	})
	old := base()
	runRules(t, base, func(a *aim.AIMArtifact) field.ErrorList { return ValidateAIMArtifactUpdate(a, old) }, []ruleCase[*aim.AIMArtifact]{
		{name: "source uri immutable", valid: func(a *aim.AIMArtifact) { a.Spec.StorageClassName = "fast" },
			invalid: func(a *aim.AIMArtifact) { a.Spec.SourceURI = "s3://bucket/other" }, field: "spec.sourceUri", errType: field.ErrorTypeInvalid},
	})
	runRules(t, base, ValidateAIMArtifactStatus, []ruleCase[*aim.AIMArtifact]{
		{name: "percentage", valid: func(a *aim.AIMArtifact) { a.Status.Progress = &aim.AIMDownloadProgress{Percentage: 100} },
			invalid: func(a *aim.AIMArtifact) { a.Status.Progress = &aim.AIMDownloadProgress{Percentage: 101} }, field: "status.progress.percentage", errType: field.ErrorTypeInvalid},
		{name: "mode", invalid: func(a *aim.AIMArtifact) { a.Status.Mode = "Private" }, field: "status.mode", errType: field.ErrorTypeNotSupported},
	})
}

func TestValidateAIMClusterModelSource(t *testing.T) {
	base := func() *aim.AIMClusterModelSource {
		return &aim.AIMClusterModelSource{ObjectMeta: meta(false), Spec: aim.AIMClusterModelSourceSpec{
			Registry: "docker.io", Filters: []aim.AIMModelSourceFilter{{Image: "amdenterpriseai/aim-*"}}, MaxModels: ptr.To[int32](100),
		}}
	}
	runRules(t, base, ValidateAIMClusterModelSource, []ruleCase[*aim.AIMClusterModelSource]{
		{name: "filters required", invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters = nil }, field: "spec.filters", errType: field.ErrorTypeRequired},
		{name: "filters at most 100", valid: func(s *aim.AIMClusterModelSource) {
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
		{name: "filter image required", invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Image = "" }, field: "spec.filters[0].image", errType: field.ErrorTypeRequired},
		{name: "filter image pattern", valid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Image = "ghcr.io:443/amd/aim-*:0.8.*" },
			invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Image = "Amd Enterprise/aim" }, field: "spec.filters[0].image", errType: field.ErrorTypeInvalid},
		{name: "filter image length", invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Image = strings.Repeat("a", 513) }, field: "spec.filters[0].image", errType: field.ErrorTypeTooLong},
		{name: "filter versions semver", valid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Versions = []string{">=0.8.0, <1.0.0"} },
			invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Versions = []string{"newest"} }, field: "spec.filters[0].versions[0]", errType: field.ErrorTypeInvalid},
		{name: "exclude entries", invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Filters[0].Exclude = []string{""} }, field: "spec.filters[0].exclude[0]", errType: field.ErrorTypeRequired},
		{name: "global versions", invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Versions = []string{">>1"} }, field: "spec.versions[0]", errType: field.ErrorTypeInvalid},
		{name: "max models range", valid: func(s *aim.AIMClusterModelSource) { s.Spec.MaxModels = ptr.To[int32](10000) },
			invalid: func(s *aim.AIMClusterModelSource) { s.Spec.MaxModels = ptr.To[int32](10001) }, field: "spec.maxModels", errType: field.ErrorTypeInvalid},
		{name: "max models at least 1", invalid: func(s *aim.AIMClusterModelSource) { s.Spec.MaxModels = ptr.To[int32](0) }, field: "spec.maxModels", errType: field.ErrorTypeInvalid},
		{name: "sync interval", valid: func(s *aim.AIMClusterModelSource) { s.Spec.SyncInterval = &metav1.Duration{Duration: time.Hour} },
			invalid: func(s *aim.AIMClusterModelSource) { s.Spec.SyncInterval = &metav1.Duration{} }, field: "spec.syncInterval", errType: field.ErrorTypeInvalid},
		{name: "registry", valid: func(s *aim.AIMClusterModelSource) { s.Spec.Registry = "registry.example.com:5000" },
			invalid: func(s *aim.AIMClusterModelSource) { s.Spec.Registry = "https://docker.io" }, field: "spec.registry", errType: field.ErrorTypeInvalid},
	})
	runRules(t, base, ValidateAIMClusterModelSourceStatus, []ruleCase[*aim.AIMClusterModelSource]{
		{name: "discovered models", valid: func(s *aim.AIMClusterModelSource) { s.Status.DiscoveredModels = 2 },
			invalid: func(s *aim.AIMClusterModelSource) { s.Status.DiscoveredModels = -2 }, field: "status.discoveredModels", errType: field.ErrorTypeInvalid},
	})
}
