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
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec says which model to serve and how.
	Spec AIMServiceSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// status is written by the controller.
	// +optional
	Status AIMServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// AIMServiceSpec is the desired state of an AIMService.
type AIMServiceSpec struct {
	// model to serve: exactly one of name, image or custom. Immutable.
	// +required
	Model AIMServiceModel `json:"model" protobuf:"bytes,1,opt,name=model"`
	// template selects the runtime template; without a name the best Ready template of the model is chosen.
	// Immutable once set: it may be added or removed after creation (the service then moves to the template it
	// names or selects), not changed.
	// +optional
	Template *AIMServiceTemplateSelector `json:"template,omitempty" protobuf:"bytes,2,opt,name=template"`
	// caching chooses how model weights are cached on volumes: mode Shared (also when absent) or Dedicated. The
	// weights are cached whenever the template lists model sources. Immutable once set: it may be added or removed
	// after creation, not changed.
	// +optional
	Caching *AIMServiceCaching `json:"caching,omitempty" protobuf:"bytes,3,opt,name=caching"`
	// cacheModel is deprecated and ignored; use caching.mode.
	// +optional
	CacheModel *bool `json:"cacheModel,omitempty" protobuf:"varint,4,opt,name=cacheModel"`
	// replicas is the fixed number of inference replicas when autoscaling is off. Defaults to 1.
	// +optional
	// +k8s:validation:minimum=0
	// +default=1
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,5,opt,name=replicas"`
	// minReplicas is the lower autoscaling bound (at least 1); defaults to 1 when autoscaling. Any of autoScaling,
	// minReplicas and maxReplicas enables autoscaling, and replicas is then not read.
	// +optional
	// +k8s:validation:minimum=1
	MinReplicas *int32 `json:"minReplicas,omitempty" protobuf:"varint,6,opt,name=minReplicas"`
	// maxReplicas is the upper autoscaling bound (at least 1); defaults to minReplicas. A value below minReplicas
	// is stored with a warning, and KServe refuses the InferenceService made from it.
	// +optional
	// +k8s:validation:minimum=1
	MaxReplicas *int32 `json:"maxReplicas,omitempty" protobuf:"varint,7,opt,name=maxReplicas"`
	// autoScaling configures the metrics that drive autoscaling.
	// +optional
	AutoScaling *AIMServiceAutoScaling `json:"autoScaling,omitempty" protobuf:"bytes,8,opt,name=autoScaling"`
	// runtimeConfigName is the AIMRuntimeConfig / AIMClusterRuntimeConfig to take defaults from. Empty or
	// "default" resolves the configs named default, which may be absent; any other name must exist.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	RuntimeConfigName string `json:"runtimeConfigName,omitempty" protobuf:"bytes,9,opt,name=runtimeConfigName"`
	// storage: its defaultStorageClassName overrides the runtime config's for the caches this service creates (a
	// Shared cache that exists is used whatever its class); pvcHeadroomPercent and accessModes are read from the
	// runtime config only.
	// +optional
	Storage *AIMStorageConfig `json:"storage,omitempty" protobuf:"bytes,10,opt,name=storage"`
	// routing overrides the runtime config's routing settings for this service.
	// +optional
	Routing *AIMRuntimeRoutingConfig `json:"routing,omitempty" protobuf:"bytes,11,opt,name=routing"`
	// env is added to the inference container; it wins over template and runtime config env of the same name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,12,rep,name=env"`
	// resources of the inference container; they win over the template's and the computed per-GPU defaults.
	// +optional
	Resources *ResourceRequirements `json:"resources,omitempty" protobuf:"bytes,13,opt,name=resources"`
	// overrides of the template's runtime parameters. The service then runs on a template derived from the
	// resolved one. Each field is immutable once set.
	// +optional
	Overrides *AIMRuntimeParameters `json:"overrides,omitempty" protobuf:"bytes,14,opt,name=overrides"`
	// imagePullSecrets for the inference image, in the service's namespace.
	// +optional
	// +listType=atomic
	// +k8s:validation:items:properties:name:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:items:properties:name:maxLength=253
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,15,rep,name=imagePullSecrets"`
	// serviceAccountName runs the inference pods under this service account.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	ServiceAccountName string `json:"serviceAccountName,omitempty" protobuf:"bytes,16,opt,name=serviceAccountName"`
}

// AIMServiceModel selects the model of a service. Exactly one field must be set.
// +k8s:validation:minProperties=1
type AIMServiceModel struct {
	// name of an AIMModel in the service's namespace, else of an AIMClusterModel.
	// +optional
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:maxLength=253
	Name *string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// image of the model: the model whose spec.image equals it is used; when there is none an AIMModel is
	// created; when there are several the service fails and asks for model.name.
	// +optional
	// +k8s:validation:pattern="^[^ \\t\\r\\n]*[^\\t\\n\\v\\f\\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^ \\t\\r\\n]*$"
	Image *string `json:"image,omitempty" protobuf:"bytes,2,opt,name=image"`
	// custom describes a model not in the catalog: a base image plus weights to download.
	// +optional
	Custom *AIMServiceCustomModel `json:"custom,omitempty" protobuf:"bytes,3,opt,name=custom"`
}

// AIMServiceCustomModel describes a model built from a base image and downloaded weights.
type AIMServiceCustomModel struct {
	// baseImage is the AIM container image that serves the weights.
	// +required
	// +k8s:validation:pattern="^[^ \\t\\r\\n]*[^\\t\\n\\v\\f\\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^ \\t\\r\\n]*$"
	BaseImage string `json:"baseImage" protobuf:"bytes,1,opt,name=baseImage"`
	// modelSources lists the weights to serve; exactly one entry.
	// +listType=atomic
	// +required
	// +k8s:validation:minItems=1
	// +k8s:validation:maxItems=1
	ModelSources []AIMModelSource `json:"modelSources" protobuf:"bytes,2,rep,name=modelSources"`
	// hardware the model needs.
	// +required
	Hardware AIMHardwareRequirements `json:"hardware" protobuf:"bytes,3,opt,name=hardware"`
}

// AIMServiceTemplateSelector selects the runtime template of a service.
type AIMServiceTemplateSelector struct {
	// name of an AIMServiceTemplate in the service's namespace, else of an AIMClusterServiceTemplate.
	// Without a name the best Ready template of the model is selected automatically.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// allowUnoptimized lets automatic selection choose preview and unoptimized profiles. Defaults to false.
	// +optional
	AllowUnoptimized bool `json:"allowUnoptimized,omitempty" protobuf:"varint,2,opt,name=allowUnoptimized"`
}

// AIMCachingMode says how a service caches model weights.
// +enum
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
	// mode is Shared or Dedicated; the legacy values Auto and Always mean Shared, Never means Dedicated. Defaults to Shared.
	// +optional
	// +default="Shared"
	Mode AIMCachingMode `json:"mode,omitempty" protobuf:"bytes,1,opt,name=mode,casttype=AIMCachingMode"`
}

// AIMServiceMetricSourceType is the source of an autoscaling metric.
// +enum
type AIMServiceMetricSourceType string

const (
	// AIMServiceMetricSourceTypePodMetric is a metric scraped from the inference pods.
	AIMServiceMetricSourceTypePodMetric AIMServiceMetricSourceType = "PodMetric"
)

// AIMServicePodMetricBackend is the backend that collects a pod metric.
// +enum
type AIMServicePodMetricBackend string

const (
	// AIMServicePodMetricBackendOpenTelemetry collects the metric with the OpenTelemetry collector.
	AIMServicePodMetricBackendOpenTelemetry AIMServicePodMetricBackend = "opentelemetry"
)

// AIMServiceMetricTargetType says how a metric's target is expressed.
// +enum
type AIMServiceMetricTargetType string

const (
	// AIMServiceMetricTargetTypeValue compares the metric's value with value.
	AIMServiceMetricTargetTypeValue AIMServiceMetricTargetType = "Value"
	// AIMServiceMetricTargetTypeAverageValue compares the metric's average over the pods with averageValue.
	AIMServiceMetricTargetTypeAverageValue AIMServiceMetricTargetType = "AverageValue"
	// AIMServiceMetricTargetTypeUtilization compares the metric's average, in percent of the pods' requests,
	// with averageUtilization.
	AIMServiceMetricTargetTypeUtilization AIMServiceMetricTargetType = "Utilization"
)

// AIMServiceAutoScaling configures KEDA autoscaling of the inference service.
type AIMServiceAutoScaling struct {
	// metrics that drive scaling.
	// +optional
	// +listType=atomic
	Metrics []AIMServiceMetricSpec `json:"metrics,omitempty" protobuf:"bytes,1,rep,name=metrics"`
}

// AIMServiceMetricSpec is one autoscaling metric.
type AIMServiceMetricSpec struct {
	// type of the metric source; only PodMetric is supported.
	// +required
	Type AIMServiceMetricSourceType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=AIMServiceMetricSourceType"`
	// podmetric is a metric scraped from the inference pods. Required when type is PodMetric.
	// +required
	PodMetric *AIMServicePodMetricSource `json:"podmetric,omitempty" protobuf:"bytes,2,opt,name=podmetric"`
}

// AIMServicePodMetricSource is a metric scraped from the inference pods and its target.
type AIMServicePodMetricSource struct {
	// metric to scale on.
	// +required
	Metric *AIMServicePodMetric `json:"metric,omitempty" protobuf:"bytes,1,opt,name=metric"`
	// target value of the metric.
	// +required
	Target AIMServiceMetricTarget `json:"target" protobuf:"bytes,2,opt,name=target"`
}

// AIMServicePodMetric names a pod metric and how to read it.
type AIMServicePodMetric struct {
	// backend that collects the metric; only opentelemetry is supported. Defaults to opentelemetry.
	// +optional
	// +default="opentelemetry"
	Backend AIMServicePodMetricBackend `json:"backend,omitempty" protobuf:"bytes,1,opt,name=backend,casttype=AIMServicePodMetricBackend"`
	// serverAddress of the metrics backend.
	// +optional
	ServerAddress string `json:"serverAddress,omitempty" protobuf:"bytes,2,opt,name=serverAddress"`
	// metricNames to collect, for example vllm:num_requests_running.
	// +optional
	// +listType=atomic
	MetricNames []string `json:"metricNames,omitempty" protobuf:"bytes,3,rep,name=metricNames"`
	// query that computes the scaling value from the collected metrics.
	// +optional
	Query string `json:"query,omitempty" protobuf:"bytes,4,opt,name=query"`
	// operationOverTime aggregates the metric over time, for example last_one, avg or max.
	// +optional
	OperationOverTime string `json:"operationOverTime,omitempty" protobuf:"bytes,5,opt,name=operationOverTime"`
}

// AIMServiceMetricTarget is the target of an autoscaling metric.
type AIMServiceMetricTarget struct {
	// type of target: Value, AverageValue or Utilization.
	// +required
	Type AIMServiceMetricTargetType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=AIMServiceMetricTargetType"`
	// value is the target for type Value, as a quantity string.
	// +optional
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// averageValue is the target for type AverageValue, as a quantity string.
	// +optional
	AverageValue string `json:"averageValue,omitempty" protobuf:"bytes,3,opt,name=averageValue"`
	// averageUtilization is the target for type Utilization, in percent.
	// +optional
	// +k8s:validation:minimum=1
	AverageUtilization *int32 `json:"averageUtilization,omitempty" protobuf:"varint,4,opt,name=averageUtilization"`
}

// AIMServiceStatus is the observed state of an AIMService.
type AIMServiceStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	// +k8s:validation:minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// conditions: ModelReady, TemplateReady, RuntimeConfigReady, InferenceServiceReady,
	// InferenceServicePodsReady, CacheReady, HTTPRouteReady, HPAReady (autoscaled services), ConfigValid, AuthValid,
	// DependenciesReachable, Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
	// status is Pending, Starting, Running, Degraded, Failed or NotAvailable.
	// +optional
	// +k8s:validation:pattern="^(Pending|Starting|Running|Degraded|Failed|NotAvailable)?$"
	// +default="Pending"
	Status AIMStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status,casttype=AIMStatus"`
	// resolvedModel is the model the service runs.
	// +optional
	ResolvedModel *AIMResolvedReference `json:"resolvedModel,omitempty" protobuf:"bytes,4,opt,name=resolvedModel"`
	// resolvedTemplate is the template the service runs.
	// +optional
	ResolvedTemplate *AIMResolvedReference `json:"resolvedTemplate,omitempty" protobuf:"bytes,5,opt,name=resolvedTemplate"`
	// resolvedRuntimeConfig is the runtime config the service's defaults came from.
	// +optional
	ResolvedRuntimeConfig *AIMResolvedReference `json:"resolvedRuntimeConfig,omitempty" protobuf:"bytes,6,opt,name=resolvedRuntimeConfig"`
	// templateMatching records every template automatic selection considered.
	// +optional
	TemplateMatching *AIMTemplateMatching `json:"templateMatching,omitempty" protobuf:"bytes,7,opt,name=templateMatching"`
	// cache is the template cache the service mounts.
	// +optional
	Cache *AIMServiceCacheStatus `json:"cache,omitempty" protobuf:"bytes,8,opt,name=cache"`
	// routing is the state of the service's HTTPRoute.
	// +optional
	Routing *AIMServiceRoutingStatus `json:"routing,omitempty" protobuf:"bytes,9,opt,name=routing"`
	// endpoint is where the service answers.
	// +optional
	Endpoint *AIMServiceEndpoint `json:"endpoint,omitempty" protobuf:"bytes,10,opt,name=endpoint"`
	// runtime reports replica counts of the inference service.
	// +optional
	Runtime *AIMServiceRuntimeStatus `json:"runtime,omitempty" protobuf:"bytes,11,opt,name=runtime"`
}

// AIMTemplateMatching records the outcome of automatic template selection.
type AIMTemplateMatching struct {
	// candidates are the templates considered, chosen or rejected with a reason.
	// +optional
	// +listType=atomic
	Candidates []AIMTemplateCandidate `json:"candidates,omitempty" protobuf:"bytes,1,rep,name=candidates"`
}

// AIMTemplateCandidate is one template considered by automatic selection.
type AIMTemplateCandidate struct {
	// name of the template.
	// +required
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:maxLength=253
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// namespace of the template; empty for cluster templates.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
	// scope is Namespace or Cluster.
	// +optional
	Scope AIMResolutionScope `json:"scope,omitempty" protobuf:"bytes,3,opt,name=scope,casttype=AIMResolutionScope"`
	// status is chosen or rejected.
	// +required
	// +k8s:validation:pattern="^(chosen|rejected)$"
	Status string `json:"status" protobuf:"bytes,4,opt,name=status"`
	// reason explains the decision, for example BestMatch, RequiredGPUNotInCluster or LowerPreferenceRank.
	// +optional
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// message gives details.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// AIMServiceCacheStatus is the cache state of a service.
type AIMServiceCacheStatus struct {
	// templateCacheRef is the AIMTemplateCache the service mounts.
	// +optional
	TemplateCacheRef *AIMResolvedReference `json:"templateCacheRef,omitempty" protobuf:"bytes,1,opt,name=templateCacheRef"`
	// retryAttempts is not written by aim-apiserver (nor by aim-engine); kept for compatibility.
	// +optional
	RetryAttempts int32 `json:"retryAttempts,omitempty" protobuf:"varint,2,opt,name=retryAttempts"`
}

// AIMServiceRoutingStatus is the routing state of a service.
type AIMServiceRoutingStatus struct {
	// path is the rendered HTTPRoute path.
	// +optional
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
}

// AIMServiceEndpoint says where a service answers.
type AIMServiceEndpoint struct {
	// internal is the URL of the predictor Service inside the cluster.
	// +optional
	Internal string `json:"internal,omitempty" protobuf:"bytes,1,opt,name=internal"`
	// path is the Gateway path when the service is routed.
	// +optional
	Path string `json:"path,omitempty" protobuf:"bytes,2,opt,name=path"`
}

// AIMServiceRuntimeStatus reports replica counts of the inference service.
type AIMServiceRuntimeStatus struct {
	// currentReplicas is the number of ready predictor pods.
	// +optional
	CurrentReplicas int32 `json:"currentReplicas,omitempty" protobuf:"varint,1,opt,name=currentReplicas"`
	// desiredReplicas is the number of replicas wanted.
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas,omitempty" protobuf:"varint,2,opt,name=desiredReplicas"`
	// minReplicas is the lower replica bound: replicas when not autoscaled, else minReplicas (the HPA's once
	// KEDA made it).
	// +optional
	MinReplicas int32 `json:"minReplicas,omitempty" protobuf:"varint,3,opt,name=minReplicas"`
	// maxReplicas is the upper replica bound: replicas when not autoscaled, else maxReplicas (the HPA's once
	// KEDA made it).
	// +optional
	MaxReplicas int32 `json:"maxReplicas,omitempty" protobuf:"varint,4,opt,name=maxReplicas"`
	// replicas is a display string: "N" (the current replicas) when minReplicas equals maxReplicas, else
	// "current/desired (min-max)".
	// +optional
	Replicas string `json:"replicas,omitempty" protobuf:"bytes,5,opt,name=replicas"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMServiceList is a list of AIMServices.
type AIMServiceList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// items are the services.
	Items []AIMService `json:"items" protobuf:"bytes,2,rep,name=items"`
}
