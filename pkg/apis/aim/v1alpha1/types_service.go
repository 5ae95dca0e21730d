package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMService is an inference endpoint: a model served with a runtime template on KServe, on AMD GPUs.
type AIMService struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which model to serve and how.
	Spec AIMServiceSpec `json:"spec"`
	// status is written by the controller.
	// +optional
	Status AIMServiceStatus `json:"status,omitempty"`
}

// AIMServiceSpec is the desired state of an AIMService.
type AIMServiceSpec struct {
	// model to serve: exactly one of name, image or custom. Immutable.
	// +required
	Model AIMServiceModel `json:"model"`
	// template selects the runtime template; without a name the best Ready template of the model is chosen.
	// Immutable.
	// +optional
	Template *AIMServiceTemplateSelector `json:"template,omitempty"`
	// caching controls whether model weights are pre-downloaded to a volume. Defaults to mode Shared. Immutable.
	// +optional
	// +default={"mode":"Shared"}
	Caching *AIMServiceCaching `json:"caching,omitempty"`
	// cacheModel is deprecated and ignored; use caching.mode.
	// +optional
	CacheModel *bool `json:"cacheModel,omitempty"`
	// replicas is the fixed number of inference replicas when autoscaling is off. Defaults to 1.
	// +optional
	// +k8s:validation:minimum=0
	// +default=1
	Replicas *int32 `json:"replicas,omitempty"`
	// minReplicas is the lower autoscaling bound (at least 1); setting it or maxReplicas enables autoscaling.
	// +optional
	// +k8s:validation:minimum=1
	MinReplicas *int32 `json:"minReplicas,omitempty"`
	// maxReplicas is the upper autoscaling bound (at least 1 and at least minReplicas).
	// +optional
	// +k8s:validation:minimum=1
	MaxReplicas *int32 `json:"maxReplicas,omitempty"`
	// autoScaling configures the metrics that drive autoscaling.
	// +optional
	AutoScaling *AIMServiceAutoScaling `json:"autoScaling,omitempty"`
	// runtimeConfigName is the AIMRuntimeConfig / AIMClusterRuntimeConfig to take defaults from. Empty or
	// "default" resolves the configs named default, which may be absent; any other name must exist.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	RuntimeConfigName string `json:"runtimeConfigName,omitempty"`
	// storage overrides the runtime config's storage settings for this service's caches.
	// +optional
	Storage *AIMStorageConfig `json:"storage,omitempty"`
	// routing overrides the runtime config's routing settings for this service.
	// +optional
	Routing *AIMRuntimeRoutingConfig `json:"routing,omitempty"`
	// env is added to the inference container; it wins over template and runtime config env of the same name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	// resources of the inference container; they win over the template's and the computed per-GPU defaults.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	// overrides of the template's runtime parameters. The service then runs on a template derived from the
	// resolved one. Each field is immutable once set.
	// +optional
	Overrides *AIMRuntimeParameters `json:"overrides,omitempty"`
	// imagePullSecrets for the inference image, in the service's namespace.
	// +optional
	// +listType=atomic
	// +k8s:validation:items:properties:name:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:items:properties:name:maxLength=253
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// serviceAccountName runs the inference pods under this service account.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
}

// AIMServiceModel selects the model of a service. Exactly one field must be set.
// +k8s:validation:minProperties=1
type AIMServiceModel struct {
	// name of an AIMModel in the service's namespace, else of an AIMClusterModel.
	// +optional
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:maxLength=253
	Name *string `json:"name,omitempty"`
	// image of the model: the model whose spec.image equals it is used; when there is none an AIMModel is
	// created; when there are several the service fails and asks for model.name.
	// +optional
	// +k8s:validation:pattern="^[^ \\t\\r\\n]*[^\\t\\n\\v\\f\\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^ \\t\\r\\n]*$"
	Image *string `json:"image,omitempty"`
	// custom describes a model not in the catalog: a base image plus weights to download.
	// +optional
	Custom *AIMServiceCustomModel `json:"custom,omitempty"`
}

// AIMServiceCustomModel describes a model built from a base image and downloaded weights.
type AIMServiceCustomModel struct {
	// baseImage is the AIM container image that serves the weights.
	// +required
	// +k8s:validation:pattern="^[^ \\t\\r\\n]*[^\\t\\n\\v\\f\\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^ \\t\\r\\n]*$"
	BaseImage string `json:"baseImage"`
	// modelSources lists the weights to serve; exactly one entry.
	// +listType=atomic
	// +required
	// +k8s:validation:minItems=1
	// +k8s:validation:maxItems=1
	ModelSources []AIMModelSource `json:"modelSources"`
	// hardware the model needs.
	// +required
	Hardware AIMHardwareRequirements `json:"hardware"`
}

// AIMServiceTemplateSelector selects the runtime template of a service.
type AIMServiceTemplateSelector struct {
	// name of an AIMServiceTemplate in the service's namespace, else of an AIMClusterServiceTemplate.
	// Without a name the best Ready template of the model is selected automatically.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	Name string `json:"name,omitempty"`
	// allowUnoptimized lets automatic selection choose preview and unoptimized profiles. Defaults to false.
	// +optional
	AllowUnoptimized bool `json:"allowUnoptimized,omitempty"`
}

// AIMCachingMode says how a service caches model weights.
// +enum
type AIMCachingMode string

const (
	// AIMCachingModeShared reuses a cache shared by every service of the namespace using the same template.
	AIMCachingModeShared AIMCachingMode = "Shared"
	// AIMCachingModeDedicated gives the service a cache of its own, deleted with it.
	AIMCachingModeDedicated AIMCachingMode = "Dedicated"
	// AIMCachingModeNever serves without a cache; the container downloads the weights when it starts.
	AIMCachingModeNever AIMCachingMode = "Never"
	// AIMCachingModeAuto is a legacy spelling of Shared.
	AIMCachingModeAuto AIMCachingMode = "Auto"
	// AIMCachingModeAlways is a legacy spelling of Shared.
	AIMCachingModeAlways AIMCachingMode = "Always"
)

// AIMServiceCaching controls model caching of a service.
type AIMServiceCaching struct {
	// mode is Shared, Dedicated or Never; the legacy values Auto and Always mean Shared. Defaults to Shared.
	// +optional
	// +default="Shared"
	Mode AIMCachingMode `json:"mode,omitempty"`
}

// AIMServiceAutoScaling configures KEDA autoscaling of the inference service.
type AIMServiceAutoScaling struct {
	// metrics that drive scaling.
	// +optional
	// +listType=atomic
	Metrics []AIMServiceMetricSpec `json:"metrics,omitempty"`
}

// AIMServiceMetricSpec is one autoscaling metric.
type AIMServiceMetricSpec struct {
	// type of the metric source; only PodMetric is supported.
	// +required
	// +k8s:validation:pattern="^(PodMetric)$"
	Type string `json:"type"`
	// podmetric is a metric scraped from the inference pods. Required when type is PodMetric.
	// +required
	PodMetric *AIMServicePodMetricSource `json:"podmetric,omitempty"`
}

// AIMServicePodMetricSource is a metric scraped from the inference pods and its target.
type AIMServicePodMetricSource struct {
	// metric to scale on.
	// +required
	Metric *AIMServicePodMetric `json:"metric,omitempty"`
	// target value of the metric.
	// +required
	Target AIMServiceMetricTarget `json:"target"`
}

// AIMServicePodMetric names a pod metric and how to read it.
type AIMServicePodMetric struct {
	// backend that collects the metric; only opentelemetry is supported. Defaults to opentelemetry.
	// +optional
	// +k8s:validation:pattern="^(opentelemetry)?$"
	// +default="opentelemetry"
	Backend string `json:"backend,omitempty"`
	// serverAddress of the metrics backend.
	// +optional
	ServerAddress string `json:"serverAddress,omitempty"`
	// metricNames to collect, for example vllm:num_requests_running.
	// +optional
	// +listType=atomic
	MetricNames []string `json:"metricNames,omitempty"`
	// query that computes the scaling value from the collected metrics.
	// +optional
	Query string `json:"query,omitempty"`
	// operationOverTime aggregates the metric over time, for example last_one, avg or max.
	// +optional
	OperationOverTime string `json:"operationOverTime,omitempty"`
}

// AIMServiceMetricTarget is the target of an autoscaling metric.
type AIMServiceMetricTarget struct {
	// type of target: Value, AverageValue or Utilization.
	// +required
	// +k8s:validation:pattern="^(Value|AverageValue|Utilization)$"
	Type string `json:"type"`
	// value is the target for type Value, as a quantity string.
	// +optional
	Value string `json:"value,omitempty"`
	// averageValue is the target for type AverageValue, as a quantity string.
	// +optional
	AverageValue string `json:"averageValue,omitempty"`
	// averageUtilization is the target for type Utilization, in percent.
	// +optional
	// +k8s:validation:minimum=1
	AverageUtilization *int32 `json:"averageUtilization,omitempty"`
}

// AIMServiceStatus is the observed state of an AIMService.
type AIMServiceStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	// +k8s:validation:minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// conditions: ModelReady, TemplateReady, RuntimeConfigReady, InferenceServiceReady,
	// InferenceServicePodsReady, CacheReady, HTTPRouteReady, ConfigValid, AuthValid, DependenciesReachable, Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// status is Pending, Starting, Running, Degraded, Failed or NotAvailable.
	// +optional
	// +k8s:validation:pattern="^(Pending|Starting|Running|Degraded|Failed|NotAvailable)?$"
	// +default="Pending"
	Status AIMStatus `json:"status,omitempty"`
	// resolvedModel is the model the service runs.
	// +optional
	ResolvedModel *AIMResolvedReference `json:"resolvedModel,omitempty"`
	// resolvedTemplate is the template the service runs.
	// +optional
	ResolvedTemplate *AIMResolvedReference `json:"resolvedTemplate,omitempty"`
	// resolvedRuntimeConfig is the runtime config the service's defaults came from.
	// +optional
	ResolvedRuntimeConfig *AIMResolvedReference `json:"resolvedRuntimeConfig,omitempty"`
	// templateMatching records every template automatic selection considered.
	// +optional
	TemplateMatching *AIMTemplateMatching `json:"templateMatching,omitempty"`
	// cache is the template cache the service mounts.
	// +optional
	Cache *AIMServiceCacheStatus `json:"cache,omitempty"`
	// routing is the state of the service's HTTPRoute.
	// +optional
	Routing *AIMServiceRoutingStatus `json:"routing,omitempty"`
	// endpoint is where the service answers.
	// +optional
	Endpoint *AIMServiceEndpoint `json:"endpoint,omitempty"`
	// runtime reports replica counts of the inference service.
	// +optional
	Runtime *AIMServiceRuntimeStatus `json:"runtime,omitempty"`
}

// AIMTemplateMatching records the outcome of automatic template selection.
type AIMTemplateMatching struct {
	// candidates are the templates considered, chosen or rejected with a reason.
	// +optional
	// +listType=atomic
	Candidates []AIMTemplateCandidate `json:"candidates,omitempty"`
}

// AIMTemplateCandidate is one template considered by automatic selection.
type AIMTemplateCandidate struct {
	// name of the template.
	// +required
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:maxLength=253
	Name string `json:"name"`
	// namespace of the template; empty for cluster templates.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// scope is Namespace or Cluster.
	// +optional
	Scope AIMResolutionScope `json:"scope,omitempty"`
	// status is chosen or rejected.
	// +required
	// +k8s:validation:pattern="^(chosen|rejected)$"
	Status string `json:"status"`
	// reason explains the decision, for example BestMatch, RequiredGPUNotInCluster or LowerPreferenceRank.
	// +optional
	Reason string `json:"reason,omitempty"`
	// message gives details.
	// +optional
	Message string `json:"message,omitempty"`
}

// AIMServiceCacheStatus is the cache state of a service.
type AIMServiceCacheStatus struct {
	// templateCacheRef is the AIMTemplateCache the service mounts.
	// +optional
	TemplateCacheRef *AIMResolvedReference `json:"templateCacheRef,omitempty"`
	// retryAttempts counts cache retries.
	// +optional
	RetryAttempts int32 `json:"retryAttempts,omitempty"`
}

// AIMServiceRoutingStatus is the routing state of a service.
type AIMServiceRoutingStatus struct {
	// path is the rendered HTTPRoute path.
	// +optional
	Path string `json:"path,omitempty"`
}

// AIMServiceEndpoint says where a service answers.
type AIMServiceEndpoint struct {
	// internal is the URL of the predictor Service inside the cluster.
	// +optional
	Internal string `json:"internal,omitempty"`
	// path is the Gateway path when the service is routed.
	// +optional
	Path string `json:"path,omitempty"`
}

// AIMServiceRuntimeStatus reports replica counts of the inference service.
type AIMServiceRuntimeStatus struct {
	// currentReplicas is the number of ready predictor pods.
	// +optional
	CurrentReplicas int32 `json:"currentReplicas,omitempty"`
	// desiredReplicas is the number of replicas wanted.
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas,omitempty"`
	// minReplicas is the lower autoscaling bound.
	// +optional
	MinReplicas int32 `json:"minReplicas,omitempty"`
	// maxReplicas is the upper autoscaling bound.
	// +optional
	MaxReplicas int32 `json:"maxReplicas,omitempty"`
	// replicas is a display string: "N" (the current replicas) when minReplicas equals maxReplicas, else
	// "current/desired (min-max)".
	// +optional
	Replicas string `json:"replicas,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMServiceList is a list of AIMServices.
type AIMServiceList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the services.
	Items []AIMService `json:"items"`
}
