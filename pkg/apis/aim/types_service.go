package aim

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMService is an inference endpoint: a model served with a runtime template on KServe, on AMD GPUs.
type AIMService struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// spec says which model to serve and how.
	Spec AIMServiceSpec
	// status is written by the controller.
	Status AIMServiceStatus
}

// AIMServiceSpec is the desired state of an AIMService.
type AIMServiceSpec struct {
	// model to serve: exactly one of name, image or custom. Immutable.
	Model AIMServiceModel
	// template selects the runtime template; without a name the best Ready template of the model is chosen.
	// Immutable once set: it may be added or removed after creation, not changed.
	Template *AIMServiceTemplateSelector
	// caching chooses how model weights are cached on volumes: mode Shared (also when absent) or Dedicated. The
	// weights are cached whenever the template lists model sources. Immutable once set: it may be added or removed
	// after creation, not changed.
	Caching *AIMServiceCaching
	// cacheModel is deprecated and ignored; use caching.mode.
	CacheModel *bool
	// replicas is the fixed number of inference replicas when autoscaling is off. Defaults to 1.
	Replicas *int32
	// minReplicas is the lower autoscaling bound (at least 1); defaults to 1 when autoscaling. Any of autoScaling,
	// minReplicas and maxReplicas enables autoscaling, and replicas is then not read.
	MinReplicas *int32
	// maxReplicas is the upper autoscaling bound (at least 1); defaults to minReplicas. A value below minReplicas
	// is stored with a warning, and KServe refuses the InferenceService made from it.
	MaxReplicas *int32
	// autoScaling configures the metrics that drive autoscaling.
	AutoScaling *AIMServiceAutoScaling
	// runtimeConfigName is the AIMRuntimeConfig / AIMClusterRuntimeConfig to take defaults from. Empty or
	// "default" resolves the configs named default, which may be absent; any other name must exist.
	RuntimeConfigName string
	// storage: its defaultStorageClassName overrides the runtime config's for the caches this service creates (a
	// Shared cache that exists is used whatever its class); pvcHeadroomPercent and accessModes are read from the
	// runtime config only.
	Storage *AIMStorageConfig
	// routing overrides the runtime config's routing settings for this service.
	Routing *AIMRuntimeRoutingConfig
	// env is added to the inference container; it wins over template and runtime config env of the same name.
	Env []corev1.EnvVar
	// resources of the inference container; they win over the template's and the computed per-GPU defaults.
	Resources *ResourceRequirements
	// overrides of the template's runtime parameters. The service then runs on a template derived from the
	// resolved one. Each field is immutable once set.
	Overrides *AIMRuntimeParameters
	// imagePullSecrets for the inference image, in the service's namespace.
	ImagePullSecrets []corev1.LocalObjectReference
	// serviceAccountName runs the inference pods under this service account.
	ServiceAccountName string
}

// AIMServiceModel selects the model of a service. Exactly one field must be set.
type AIMServiceModel struct {
	// name of an AIMModel in the service's namespace, else of an AIMClusterModel.
	Name *string
	// image of the model: the model whose spec.image equals it is used; when there is none an AIMModel is
	// created; when there are several the service fails and asks for model.name.
	Image *string
	// custom describes a model not in the catalog: a base image plus weights to download.
	Custom *AIMServiceCustomModel
}

// AIMServiceCustomModel describes a model built from a base image and downloaded weights.
type AIMServiceCustomModel struct {
	// baseImage is the AIM container image that serves the weights.
	BaseImage string
	// modelSources lists the weights to serve; exactly one entry.
	ModelSources []AIMModelSource
	// hardware the model needs.
	Hardware AIMHardwareRequirements
}

// AIMServiceTemplateSelector selects the runtime template of a service.
type AIMServiceTemplateSelector struct {
	// name of an AIMServiceTemplate in the service's namespace, else of an AIMClusterServiceTemplate.
	// Without a name the best Ready template of the model is selected automatically.
	Name string
	// allowUnoptimized lets automatic selection choose preview and unoptimized profiles. Defaults to false.
	AllowUnoptimized bool
}

// AIMCachingMode says how a service caches model weights.
type AIMCachingMode string

const (
	// AIMCachingModeShared reuses a cache shared by every service of the namespace using the same template.
	AIMCachingModeShared AIMCachingMode = "Shared"
	// AIMCachingModeDedicated gives the service a cache of its own, deleted with it.
	AIMCachingModeDedicated AIMCachingMode = "Dedicated"
	// AIMCachingModeNever is a legacy spelling of Dedicated.
	AIMCachingModeNever AIMCachingMode = "Never"
	// AIMCachingModeAuto is a legacy spelling of Shared.
	AIMCachingModeAuto AIMCachingMode = "Auto"
	// AIMCachingModeAlways is a legacy spelling of Shared.
	AIMCachingModeAlways AIMCachingMode = "Always"
)

// AIMServiceCaching controls model caching of a service.
type AIMServiceCaching struct {
	// mode is Shared (default) or Dedicated. The legacy values Auto and Always mean Shared, Never means Dedicated.
	Mode AIMCachingMode
}

// AIMServiceAutoScaling configures KEDA autoscaling of the inference service.
type AIMServiceAutoScaling struct {
	// metrics that drive scaling.
	Metrics []AIMServiceMetricSpec
}

// AIMServiceMetricSpec is one autoscaling metric.
type AIMServiceMetricSpec struct {
	// type of the metric source; only PodMetric is supported.
	Type string
	// podmetric is a metric scraped from the inference pods. Required when type is PodMetric.
	PodMetric *AIMServicePodMetricSource
}

// AIMServicePodMetricSource is a metric scraped from the inference pods and its target.
type AIMServicePodMetricSource struct {
	// metric to scale on.
	Metric *AIMServicePodMetric
	// target value of the metric.
	Target AIMServiceMetricTarget
}

// AIMServicePodMetric names a pod metric and how to read it.
type AIMServicePodMetric struct {
	// backend that collects the metric; only opentelemetry is supported. Defaults to opentelemetry.
	Backend string
	// serverAddress of the metrics backend.
	ServerAddress string
	// metricNames to collect, for example vllm:num_requests_running.
	MetricNames []string
	// query that computes the scaling value from the collected metrics.
	Query string
	// operationOverTime aggregates the metric over time, for example last_one, avg or max.
	OperationOverTime string
}

// AIMServiceMetricTarget is the target of an autoscaling metric.
type AIMServiceMetricTarget struct {
	// type of target: Value, AverageValue or Utilization.
	Type string
	// value is the target for type Value, as a quantity string.
	Value string
	// averageValue is the target for type AverageValue, as a quantity string.
	AverageValue string
	// averageUtilization is the target for type Utilization, in percent.
	AverageUtilization *int32
}

// AIMServiceStatus is the observed state of an AIMService.
type AIMServiceStatus struct {
	// observedGeneration is the spec generation the status describes.
	ObservedGeneration int64
	// conditions: ModelReady, TemplateReady, RuntimeConfigReady, InferenceServiceReady,
	// InferenceServicePodsReady, CacheReady, HTTPRouteReady, HPAReady (autoscaled services), ConfigValid, AuthValid,
	// DependenciesReachable, Ready.
	Conditions []metav1.Condition
	// status is Pending, Starting, Running, Degraded, Failed or NotAvailable.
	Status AIMStatus
	// resolvedModel is the model the service runs.
	ResolvedModel *AIMResolvedReference
	// resolvedTemplate is the template the service runs.
	ResolvedTemplate *AIMResolvedReference
	// resolvedRuntimeConfig is the runtime config the service's defaults came from.
	ResolvedRuntimeConfig *AIMResolvedReference
	// templateMatching records every template automatic selection considered.
	TemplateMatching *AIMTemplateMatching
	// cache is the template cache the service mounts.
	Cache *AIMServiceCacheStatus
	// routing is the state of the service's HTTPRoute.
	Routing *AIMServiceRoutingStatus
	// endpoint is where the service answers.
	Endpoint *AIMServiceEndpoint
	// runtime reports replica counts of the inference service.
	Runtime *AIMServiceRuntimeStatus
}

// AIMTemplateMatching records the outcome of automatic template selection.
type AIMTemplateMatching struct {
	// candidates are the templates considered, chosen or rejected with a reason.
	Candidates []AIMTemplateCandidate
}

// AIMTemplateCandidate is one template considered by automatic selection.
type AIMTemplateCandidate struct {
	// name of the template.
	Name string
	// namespace of the template; empty for cluster templates.
	Namespace string
	// scope is Namespace or Cluster.
	Scope AIMResolutionScope
	// status is chosen or rejected.
	Status string
	// reason explains the decision, for example BestMatch, RequiredGPUNotInCluster or LowerPreferenceRank.
	Reason string
	// message gives details.
	Message string
}

// AIMServiceCacheStatus is the cache state of a service.
type AIMServiceCacheStatus struct {
	// templateCacheRef is the AIMTemplateCache the service mounts.
	TemplateCacheRef *AIMResolvedReference
	// retryAttempts is not written by aim-apiserver (nor by aim-engine); kept for compatibility.
	RetryAttempts int32
}

// AIMServiceRoutingStatus is the routing state of a service.
type AIMServiceRoutingStatus struct {
	// path is the rendered HTTPRoute path.
	Path string
}

// AIMServiceEndpoint says where a service answers.
type AIMServiceEndpoint struct {
	// internal is the URL of the predictor Service inside the cluster.
	Internal string
	// path is the Gateway path when the service is routed.
	Path string
}

// AIMServiceRuntimeStatus reports replica counts of the inference service.
type AIMServiceRuntimeStatus struct {
	// currentReplicas is the number of ready predictor pods.
	CurrentReplicas int32
	// desiredReplicas is the number of replicas wanted.
	DesiredReplicas int32
	// minReplicas is the lower replica bound: replicas when not autoscaled, else minReplicas (the HPA's once
	// KEDA made it).
	MinReplicas int32
	// maxReplicas is the upper replica bound: replicas when not autoscaled, else maxReplicas (the HPA's once
	// KEDA made it).
	MaxReplicas int32
	// replicas is a display string: "N" (the current replicas) when minReplicas equals maxReplicas, else
	// "current/desired (min-max)".
	Replicas string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMServiceList is a list of AIMServices.
type AIMServiceList struct {
	metav1.TypeMeta
	metav1.ListMeta
	// items are the services.
	Items []AIMService
}
